"""The fast paths inside skill extraction must find exactly what the plain spelling finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize.skills import _CJK, _WORD, _has_cjk_utf8, _word_set, extract_skills

_PLAIN_WORD = re.compile(r"\.?[A-Za-z0-9+#]+(?:[.\-][A-Za-z0-9+#]+)*")


def _reference_words(lower: str) -> set[str]:
    words = set(_PLAIN_WORD.findall(lower))
    for w in [w for w in words if "-" in w]:
        words.update(p for p in w.split("-") if p)
    return words


_PIECES = ["a", "go", "c++", "c#", ".", "..", "...", "-", "--", ".net", "node.js", "ci-cd", "ci/cd", "3", "5.5", " ",
           "\n", "中", "语言", "+", "#", "é", "ß", "\u3000", "k8s.", "-x", "x-", ".-", "-.", "a.b-c", "\ud800",
           "ＡＢ", "\u212a", "İ", "e.g.", "u.s.", "-3", "c++.", "(", ")", ",", "_", "a_b"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_word_set_equals_the_regex_word_set(text):
    lower = text.lower()
    assert _word_set(lower) == _reference_words(lower)
    assert set(_WORD.findall(lower)) <= _word_set(lower)


def test_word_set_examples():
    assert _word_set("node.js, c++ and c#; ci-cd. .net end.") == {
        "node.js", "c++", "and", "c#", "ci-cd", "ci", "cd", ".net", "end"}
    assert _word_set("熟悉java和python3") == {"java", "python3"}
    assert _word_set("") == set()


def test_extraction_keeps_symbols_phrases_and_chinese_aliases():
    skills = extract_skills("Senior engineer: C++, C#, Node.js, machine learning; 熟悉大模型。Google Cloud, go-to-market")
    assert {"C++", "C#", "Node.js", "Machine Learning", "LLM"} <= set(skills)
    assert "Go" not in skills   # neither inside "Google" nor in "go-to-market"


_CASE_PIECES = ["Σ", "σ", "ς", "A", "a", "İ", "\u0307", ".", "'", ":", " ", "\n", "中", "Ｇｏ", "ＰＹＴＨＯＮ", "K", "\u212a",
                "ß", "ǅ", "Python", "GO", "\u00ad", "1"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CASE_PIECES), max_size=12).map("".join),
       st.lists(st.sampled_from(_CASE_PIECES), max_size=12).map("".join))
def test_lowercase_of_title_and_description_joins(title, description):
    """posting.py hands extract_skills the lowercase halves joined by a line break: it must be the
    lowercase of the joined text (a final sigma looks no further than the line break)."""
    text = f"{title}\n{description}"
    lower = f"{title.lower()}\n{description.lower()}"
    assert lower == text.lower()
    assert extract_skills(text, lower=lower) == extract_skills(text)


def test_fullwidth_text_is_normalized_before_matching():
    assert {"Python", "Go"} <= set(extract_skills("熟悉ＰＹＴＨＯＮ和Ｇｏ语言"))
    assert "Python" in extract_skills("Ｐｙｔｈｏｎ", lower="ｐｙｔｈｏｎ")


def _regex_cjk_matches(lower: str) -> list[tuple[int, str]]:
    from jobpipe.normalize.skills import _matchers

    cjk = _matchers()[1]
    word = "abcdefghijklmnopqrstuvwxyz0123456789+#"
    # an alias that starts with a Latin word ("go语言", "office软件") must start a word
    return [(m.start(), m.group(1)) for m in cjk.finditer(lower)
            if not (m.start() and lower[m.start() - 1] in word and m.group(1)[0] in word)]


def test_an_alias_of_latin_and_cjk_is_found_and_starts_a_word():
    assert "Go" in extract_skills("使用go语言开发服务器")
    assert "Microsoft Office" in extract_skills("熟练使用Office软件")
    assert "Go" not in extract_skills("使用ergo语言")


_CJK_PIECES = ["机器学习", "机器", "学习", "大模型", "模型", "生成式ai", "生成式", "ai", "a", "1", "数据分析", "数据", "分析",
               "前端开发", "前端", "开发", "产品经理", "产品", "区块链", "智能合约", "合约", "的", "，", " ", "x", "go语言", "深度学习"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CJK_PIECES), max_size=15).map("".join))
def test_cjk_automaton_finds_what_the_alias_regex_finds(text):
    from jobpipe.normalize.skills import _cjk_matches

    assert _cjk_matches(text) == _regex_cjk_matches(text)


def test_cjk_alias_ending_in_a_latin_letter_does_not_run_into_a_word():
    from jobpipe.normalize.skills import _cjk_matches

    assert [a for _, a in _cjk_matches("熟悉生成式ai和大模型")] == ["生成式ai", "大模型"]
    assert _cjk_matches("生成式aix 大模型") == _regex_cjk_matches("生成式aix 大模型")
    assert "LLM" in extract_skills("熟悉大模型微调") and "Generative AI" not in extract_skills("生成式aiops")


#: Around the CJK range's ends, and other characters whose UTF-8 starts with E3 (kana, CJK punctuation).
_CJK_EDGE_PIECES = ["a", " ", "’", "é", "\u33ff", "\u3400", "\u3fff", "\u4000", "\u9fff", "\ua000", "あ", "。", "\u3000",
                    "中", "\ud800", "\U00020000", "ＡＢ"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CJK_EDGE_PIECES), max_size=12).map("".join))
def test_cjk_check_on_utf8_equals_the_regex(text):
    assert _has_cjk_utf8(text.encode("utf-8", "surrogatepass")) == (_CJK.search(text) is not None)
