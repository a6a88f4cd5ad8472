from __future__ import annotations

import html

from jobpipe.normalize.text import clean_text, detect_language, repair_mojibake


def test_html_keeps_paragraphs_and_list_items():
    out = clean_text("<div><p>About us</p><ul><li>Build <b>APIs</b></li><li>Ship&nbsp;fast</li></ul><script>x()</script></div>")
    assert out.split("\n") == ["About us", "", "- Build APIs", "", "- Ship fast"] or out.split("\n") == ["About us", "- Build APIs", "- Ship fast"]
    assert "<" not in out and "x()" not in out


def test_greenhouse_double_escaped_html():
    raw = html.escape("<p>We are <strong>hiring</strong> &amp; growing</p><ul><li>Python</li></ul>")
    assert raw.startswith("&lt;p&gt;")
    out = clean_text(raw)
    assert "We are hiring & growing" in out and "- Python" in out and "&lt;" not in out and "<" not in out


def test_markdown_to_text():
    md = "## 岗位职责\n1. 负责**后端**开发\n2. 熟悉 [Go](https://go.dev)\n\n> note\n\n```\ncode\n```\n- [x] done"
    out = clean_text(md)
    assert "##" not in out and "**" not in out and "](" not in out and "```" not in out
    assert "岗位职责" in out and "- 负责后端开发" in out and "- 熟悉 Go" in out and "code" in out


def test_control_and_zero_width_characters_removed():
    out = clean_text("Py\u200bthon\u00ad \x07engineer\ufeff\r\nline2\u2028line3")
    assert out == "Python engineer\nline2\nline3"


def test_whitespace_normalized():
    assert clean_text("  a \t  b  \n\n\n\n  c  ") == "a b\n\nc"
    assert clean_text(None) == "" and clean_text("") == ""


def test_gbk_mojibake_repaired():
    original = "上海,数据分析师,本科,应届毕业生"
    garbled = original.encode("gbk").decode("latin-1")
    assert repair_mojibake(garbled) == original
    assert clean_text(garbled) == original


def test_utf8_mojibake_repaired():
    original = "数据分析 — 北京"
    garbled = original.encode("utf-8").decode("latin-1")
    assert repair_mojibake(garbled) == original


def test_legit_accents_untouched():
    for text in ["Zürich, Switzerland", "São Paulo", "Café crème", "naïve résumé", "北京 Zürich"]:
        assert repair_mojibake(text) == text


def test_detect_language():
    assert detect_language("负责后端服务开发，熟悉 Java、Go 和 Kubernetes") == "zh"
    assert detect_language("We are hiring a backend engineer") == "en"
    assert detect_language("東京でエンジニアを募集しています") == "ja"
    assert detect_language("12345 !!!") is None
