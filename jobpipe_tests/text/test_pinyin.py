"""Tone-less pinyin of Chinese words, and which Latin words can be pinyin."""

from __future__ import annotations

from jobpipe.text.pinyin import may_be_pinyin, posting_terms, romanize
from jobpipe.text.tokenize import tokenize


def test_words_of_two_or_more_characters_are_romanized_with_their_phrase_readings():
    assert romanize("链家") == "lianjia"
    assert romanize("重庆") == "chongqing" and romanize("银行") == "yinhang"   # polyphones read as words
    assert romanize("家") is None and romanize("Lianjia") is None and romanize("链家ABC") is None


def test_posting_terms_are_marked_once_per_word():
    terms = posting_terms(tokenize("小红书 数据分析师 数据 Python"))
    assert "py0xiaohongshu" in terms and "py0shuju" in terms and "py0fenxi" in terms
    assert len(terms) == len(set(terms)) and not any(t in {"py0python", "python"} for t in terms)


def test_only_latin_words_of_two_or_more_syllables_may_be_pinyin():
    assert all(map(may_be_pinyin, ["lianjia", "xiaohongshu", "pinduoduo", "meituan", "shuju", "women"]))
    assert not any(map(may_be_pinyin, ["engineer", "python", "manager", "shu", "kubernetes", "x" * 40]))
