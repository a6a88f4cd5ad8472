"""guarded(pattern) finds exactly what pattern finds (spans and groups), only faster."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize import experience, job_type, posting
from jobpipe.normalize.regex_guard import guarded, start_class

_TRICKY = [
    re.compile(r"\.?[A-Za-z0-9+#]+(?:[.\-][A-Za-z0-9+#]+)*"),                  # optional first character
    re.compile(r"(?<![a-z])go(?![a-z])|\bR\b", re.I),                           # lookbehind, \b, case-insensitive
    re.compile(r"(\d+(?:\.\d+)?|一|两)\s*(?:-|~|至)\s*(\d+)\s*年"),               # category in a group
    re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M),                               # anchors, nullable prefix
    re.compile(r"(?:ab)*c|x{0,2}y"),                                             # nullable repeats before a literal
    re.compile(r"[^a-z]q"),                                                      # negated class: left unguarded
    re.compile(r"a*"),                                                           # matches empty: left unguarded
]
_MODULE_PATTERNS = [p for _, p in experience._DEGREE_RES] + [
    experience._NONE_RE, experience._GRAD_RE, experience._BELOW_RE,
    experience._CONTEXT_RE, experience._DEGREE_CONTEXT, job_type._TYPE_LINE, job_type._CAMPUS,
    job_type._SENIORITY[1][1], job_type._CONTRACT, posting._TITLE_SALARY_CUE,
]
_TOKENS = ["go", "Go", "R", "r", "c++", ".net", "node.js", "ab", "c", "x", "y", "q", "1", "3", "5.5", "一", "两",
           "-", "~", "至", "年", "以上", "years", "experience", "本科", "硕士", "博士", "BS", "M.S.", "MS Office",
           "Bachelor's", "PhD", "degree", "in CS", "不限", "学历", "经验", "工作性质：", "全职", "employment type:",
           "应届", "less than", "+", "#", " ", "\n", "  ", "*", "·", "中文", "Ǆ", "ſ", "K", "Senior", "sr.", "II",
           "I", "/", "实习", "Intern", "2027届", "contractor", "temp", "salary", "pay", "Head of", "经理"]


def _result(pattern: re.Pattern[str], text: str) -> list[tuple]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@pytest.mark.parametrize("pattern", _TRICKY[:5] + _MODULE_PATTERNS)
@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=25).map("".join))
def test_guarded_pattern_matches_exactly_like_the_original(pattern, text):
    # the module patterns are already guarded; strip the guard to compare with the original
    original = re.compile(pattern.pattern.split(")(?:", 1)[1][:-1], pattern.flags) \
        if pattern.pattern.startswith("(?=[") else pattern
    fast = guarded(original)
    assert _result(fast, text) == _result(original, text)


def test_guard_is_added_only_when_the_start_set_is_known():
    assert start_class(re.compile(r"\.?[a-z]+")) == r"\.a-z"
    assert start_class(re.compile(r"\bfoo|(?:ba)?r", re.I)) == "fbr"
    assert start_class(re.compile(r"(\d+|一)年")) == r"\d一"
    for pattern in _TRICKY[5:]:
        assert guarded(pattern) is pattern
    assert guarded(re.compile("x")).pattern == "(?=[x])(?:x)"


def test_module_patterns_are_guarded():
    assert all(p.pattern.startswith("(?=[") for p in _MODULE_PATTERNS)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "Go", "c++", "c#", ".", "..", "-", ".net", "node.js", "ci-cd", "3", " ", "中", "+"]),
                max_size=20).map("".join))
def test_skill_word_pattern_matches_its_plain_spelling(text):
    """skills._WORD is respelled to start with a character class; it must find the same words."""
    from jobpipe.normalize.skills import _WORD
    plain = re.compile(r"\.?[A-Za-z0-9+#]+(?:[.\-][A-Za-z0-9+#]+)*")
    assert _WORD.findall(text) == plain.findall(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS + ["12", "3.5", "1.", ".5", "三", "十", "5-8", "3~5年", "10+ years", "2 to 4 yrs",
                                            "five", "年以上", "或以上", "or more", "٣"]), max_size=20).map("".join))
def test_experience_number_patterns_equal_their_plain_spelling(text):
    """experience._RANGE_RE / _MIN_RE start with one character class (so re skips ahead even under
    IGNORECASE); they must match exactly what the plain ``_NUM`` spelling matches."""
    plain_range = re.compile(experience._NUM + experience._RANGE_TAIL, re.I)
    plain_min = re.compile(experience._NUM + experience._MIN_TAIL, re.I)
    assert _result(experience._RANGE_RE, text) == _result(plain_range, text)
    assert _result(experience._MIN_RE, text) == _result(plain_min, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS + ["No Experience required", "NO EXPERIENCE necessary", "new grads", "New Grad",
                                            "Fresh Graduate", "经验不限", "无需经验", "在校生", "ı", "İ", "ſ", "Freſh graduate",
                                            "no experıence required", "不限"]), max_size=12).map("".join))
def test_experience_cue_prefilter_never_hides_a_match(text):
    low = text.lower()
    if experience._NONE_RE.search(text):
        assert experience._has_cue(text, low, experience._NONE_CUES)
    if experience._GRAD_RE.search(text):
        assert experience._has_cue(text, low, experience._GRAD_CUES)
