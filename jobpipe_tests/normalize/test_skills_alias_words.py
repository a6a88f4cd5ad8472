"""Skill extraction reads only the alias words of a posting (``_alias_words``) instead of its full
word set (``_utf8_word_set``, the previous path): both must give the same skills, in the same order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize import skills
from jobpipe.normalize.skills import _alias_words, _key_sets, _plain_alias_words, _utf8_word_set, extract_skills

_TRICKY = [
    "Google Cloud and go-to-market; Go, golang, GO, Go to market, go ahead",
    "C++, C#, .NET, node.js, Node.JS-based services, react-native, React Native, ci/cd, CI-CD.",
    "machine learning, Machine-Learning, machine_learning, machine / learning, deep learning.",
    "熟悉大模型、k8s、K8S与Kubernetes，精通Python3和java；了解R语言",
    "Python, R, SQL and SAS; R&D, R's, R-based, R.",
    "Java/JavaScript/TypeScript; javascript before java",
    "数据分析data analysis数据挖掘; AI/ML、生成式AI与LLM",
    "end. end.. e.g. u.s. 3.5 -x x- .- -. a.b-c c++. k8s. .net. --help",
    "ＰＹＴＨＯＮ和Ｇｏ语言；Ｒ语言",
    "Spark, Hive, Excel, Word, Agent, PR, PS, Unity, Spring, Oracle, Snowflake: SQL-on-Hadoop",
    "research and development of a/b testing, A/B tests, power bi, Power-BI, tensorflow2.x",
    "",
    "-",
    "...",
    "中文only没有英文",
]


def _previous(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setattr(skills, "_alias_words", _utf8_word_set)
        return extract_skills(text)


@pytest.mark.parametrize("text", _TRICKY)
def test_same_skills_as_the_full_word_set(text, monkeypatch):
    for variant in (text, text.upper(), text.lower(), text.title(), f"熟悉{text}语言", f"{text}\n{text[::-1]}"):
        assert extract_skills(variant) == _previous(variant, monkeypatch), variant


def test_fixtures_find_skills_and_refuse_lookalikes():
    found = extract_skills(_TRICKY[0] + " " + _TRICKY[1] + " " + _TRICKY[2] + " " + _TRICKY[3])
    assert {"Go", "C++", "C#", "Node.js", "Machine Learning", "LLM", "Kubernetes"} <= set(found)
    assert "Go" not in extract_skills("Google Cloud and a go-to-market plan")


def _keys_in(words: set[str]) -> set[str]:
    return set(_key_sets()[0].intersection(words))


_PIECES = ["a", "go", "c++", "c#", ".", "..", "-", "--", ".net", "node.js", "ci-cd", "ci/cd", "3", "5.5", " ", "\n",
           "中", "语言", "é", "\u3000", "k8s.", "-x", "x-", "a.b-c", "\ud800", "e.g.", "-3", "c++.", ",", "_", "a_b",
           "java", "python", "machine", "learning", "data", "and", "r", "sql", "react", "native", "power", "bi"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_alias_words_are_the_word_set_as_far_as_aliases_care(text):
    data = text.encode("utf-8", "surrogatepass")
    full, alias = _utf8_word_set(data), _alias_words(data)
    assert alias <= full
    assert full & _plain_alias_words() == alias & _plain_alias_words()
    assert _keys_in(full) == _keys_in(alias)
    assert {w for w in full if "." in w or "-" in w} <= alias


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([p for p in _PIECES if p != "\ud800"]   # a lone surrogate next to Chinese text
                                  + ["Go", "R", "Google", "GO ", "大模型", "K8s", "R&D", "Node.JS"]), max_size=25)
       .map("".join))   # makes the CJK alias scan raise, before and after this change alike
def test_same_skills_on_random_mixtures(text):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(skills, "_alias_words", _utf8_word_set)
        previous = extract_skills(text)
    assert extract_skills(text) == previous


def test_lone_surrogate_next_to_chinese_does_not_break_extraction():
    from jobpipe.normalize.skills import extract_skills

    assert {"Python"} <= set(extract_skills("大模型 工程师 \ud800 Python"))
    assert extract_skills("大模型 工程师 \ud800 Python") == extract_skills("大模型 工程师 Python")
