"""The fast paths of clean_text and detect_language agree with the straightforward versions.

clean_text skips its whitespace regex when no run of blanks occurs and collapses blank lines with
str.replace; detect_language counts letters on UTF-8 bytes. Each is checked here against the
per-character algorithm it replaced, on generated texts that mix the characters those paths treat
specially.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize.text import INVISIBLE, _language_by_runs, clean_text, detect_language

_SPACES = re.compile(r"[ \t\f\v]{2,}|[\t\f\v]")


def _layout_reference(raw: str) -> str:
    """clean_text's whitespace and line handling as first written: regex always, then a line loop."""
    text = INVISIBLE.sub("", unicodedata.normalize("NFC", raw)).replace("\u3000", " ")
    text = _SPACES.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    out: list[str] = []
    blank = False
    for line in (line.strip() for line in text.split("\n")):
        if not line:
            blank = bool(out)
            continue
        if blank:
            out.append("")
        out.append(line)
        blank = False
    return "\n".join(out)


# letters, CJK, every blank and control character the layout step treats specially; no markup
_LAYOUT_ALPHABET = "ab中 \t\n\r\x0b\x0c\x7f\x01\u200b\u3000"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_LAYOUT_ALPHABET, max_size=40))
def test_clean_text_layout_matches_reference(raw: str) -> None:
    assert clean_text(raw) == _layout_reference(raw)


def test_clean_text_layout_examples() -> None:
    assert clean_text("\n\n  a  b\t c \n\n\n\n d\n \n") == "a b c\n\nd"
    assert clean_text("a\r\n\r\n\r\nb") == "a\n\nb"   # \r is a control character, removed before lines split
    assert clean_text("x\x0b\x0cy") == "xy"
    assert clean_text(" \n \n ") == ""


# Latin, digits, CJK (main block and extension A, U+3400), CJK punctuation (U+3002, same lead byte
# as extension A), kana, hangul, Yi (shares hangul's lead byte), emoji, a lone surrogate
_LANG_ALPHABET = "aZ9 中文字㐀㒸。、「ひカ한국ꀀ😀\ud800é"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_LANG_ALPHABET, max_size=60))
def test_detect_language_byte_counts_match_character_counts(text: str) -> None:
    expected = _language_by_runs(text[:800]) if text else None
    assert detect_language(text) == expected


def test_detect_language_examples() -> None:
    assert detect_language("高级 Go 工程师，负责后端开发。") == "zh"
    assert detect_language("Senior Go engineer — backend") == "en"
    assert detect_language("東京のエンジニア募集") == "ja"
    assert detect_language("서울 백엔드 개발자 채용") == "ko"
    assert detect_language("12345 !!") is None
    # only the first 800 characters count
    assert detect_language("a" * 800 + "中" * 500) == "en"


def test_emphasis_regex_spelled_star_first_matches_the_plain_spelling() -> None:
    """text._MD_EM starts with its literal "*" for speed; it must substitute exactly like the lookbehind-first form."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from jobpipe.normalize.text import _MD_EM

    plain = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
    alphabet = st.sampled_from(list("** \n\tab1_中-.,"))

    @settings(max_examples=500, deadline=None)
    @given(st.text(alphabet=alphabet, max_size=40))
    def check(text: str) -> None:
        assert _MD_EM.sub(r"\1", text) == plain.sub(r"\1", text)

    check()
    assert _MD_EM.sub(r"\1", "a *really* big, 2*3*4, **x**") == "a really big, 2*3*4, **x**"


# Markdown line patterns: started from the first line where they can match (see text._LineStart).
_MD_PIECES = ["\n", "\n\n", " ", "  ", "\t", "#", "##", "- ", "-", "* ", "+ ", "• ", "·", "1. ", "12) ", "3、", "---",
              "===", "a", "Title", "中文", ">", "2", "\r", "\u3000", "\u2028", "x\n#", "\n- \n- "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_MD_PIECES), max_size=25).map("".join))
def test_line_start_substitutions_equal_the_plain_multiline_regexes(text):
    from jobpipe.normalize import text as t

    assert t._sub_from(t._MD_BULLET, t._BULLET_START, "- ", text) == t._MD_BULLET.sub("- ", text)
    assert t._sub_from(t._MD_HEADING, t._HEADING_START, "", text) == t._MD_HEADING.sub("", text)
    hint = re.compile(r"^[ \t]*(?:[-+•·]|\d+[.)、])[ \t]|^[ \t]*[-=]{3,}", re.M)
    assert (t._MARKDOWN_HINT.first(text) >= 0) == (hint.search(text) is not None)


def test_markdown_lists_and_headings_still_cleaned():
    assert clean_text("intro\n## Requirements\n* Python\n1. SQL\n- Go") == "intro\nRequirements\n- Python\n- SQL\n- Go"
    assert clean_text("no markup here, 3-5 years # not a heading") == "no markup here, 3-5 years # not a heading"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([" ", "  ", "\t", "\f", "\v", "a", "中", "\n", " \t", "\t "]), max_size=20).map("".join))
def test_spaces_pattern_equals_its_plain_spelling(text):
    from jobpipe.normalize.text import _SPACES as fast

    assert fast.sub(" ", text) == _SPACES.sub(" ", text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\n", " ", "a", "中", "\u2003", "\t", "x y", "\n\n", " \n", "\n "]), max_size=20).map("".join))
def test_line_strip_shortcut_equals_stripping_every_line(text):
    from jobpipe.normalize.text import _BLANK_AT_LINE_END, _blank

    stripped = "\n".join(line.strip() for line in text.split("\n"))
    needs = bool(_BLANK_AT_LINE_END.search(text) or (text and (_blank(text[0]) or _blank(text[-1]))))
    assert needs or stripped == text


_EMPHASIS_PIECES = ["**", "__", "~~", "*", "_", "~", "a", "bold", " ", "\n", "中", "**x**", "__y__"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_EMPHASIS_PIECES), max_size=16).map("".join))
def test_emphasis_second_pass_skipped_only_when_the_first_changed_nothing(text):
    """_markdown_to_text runs the emphasis substitution a second time only after a first pass that
    substituted something: on unchanged text the second pass is the same as the first."""
    from jobpipe.normalize.text import _MD_EMPH

    def reference(t: str) -> str:
        for _ in range(2):
            t = _MD_EMPH.sub(r"\2", t)
        return t

    fast, changed = _MD_EMPH.subn(r"\2", text)
    if changed:
        fast = _MD_EMPH.sub(r"\2", fast)
    assert fast == reference(text)


def test_nested_emphasis_still_needs_two_passes():
    assert clean_text("**__both__** and ~~**gone**~~") == "both and gone"
