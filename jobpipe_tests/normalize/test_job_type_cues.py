"""The cue check in front of the type and seniority patterns must never hide a match: the
patterns decide alone where the check cannot (case-folded letters, a lone surrogate)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize import job_type
from jobpipe.normalize.job_type import _SENIORITY, _type_of, parse_seniority


@pytest.mark.parametrize("title,expected", [
    ("İntern, data", "intern"),          # "İ".lower() is "i" + a combining dot: no "intern" cue
    ("ıntern", "intern"),                # dotless i matches "i" under IGNORECASE, not in lowercase
    ("ſenior Engineer", "senior"),       # long s
    ("\u212aey Engineer I", "junior"),   # Kelvin sign lowercases to "k"; the lone "I" has no cue word
    ("Engineer i", "junior"),
    ("Engineer \ud800 intern", "intern"),  # a lone surrogate: the automaton cannot read it
    ("Data Scientist", None),
])
def test_seniority_through_the_cue_check(title, expected):
    assert parse_seniority.__wrapped__(title) == expected


@pytest.mark.parametrize("text,expected", [
    ("İnternship", ("intern",)),
    ("ſeasonal", ("contract",)),
    ("\ud800 part-time", ("part_time",)),
    ("否，兼职", ("part_time",)),
    ("Senior Engineer", ()),
])
def test_types_through_the_cue_check(text, expected):
    assert _type_of.__wrapped__(text) == expected


_PIECES = ["İ", "ı", "ſ", "\u212a", "\ud800", "I", "i", " ", "/", "-", "II", "Sr.", "Jr", "co-op", "全/兼", "否，", "兼职", "届",
           "Senior", "intern", "PART_TIME", "Lead", "Head of", "temp", "Full-time", "ntern", "enior", "easonal", "x"]


def _assert_cue_check_only_skips_texts_the_patterns_reject(text: str) -> None:
    if not job_type._has_cue(text, job_type._TYPE_CUE_AUTOMATON):
        patterns = (job_type._INTERN, job_type._CAMPUS, job_type._FULL, job_type._PART, job_type._CONTRACT,
                    job_type._NEGATED_FULL)
        assert not any(p.search(text) for p in patterns)
    if not (job_type._has_cue(text, job_type._SENIORITY_CUE_AUTOMATON) or job_type._LONE_I.search(text)):
        assert not any(p.search(text) for _, p in _SENIORITY)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join))
def test_cue_check_only_skips_texts_the_patterns_reject(text):
    _assert_cue_check_only_skips_texts_the_patterns_reject(text)


@pytest.mark.parametrize("text", [
    "Senior Software Engineer", "高级Java开发", "Sr. Data Analyst", "Software Engineer II", "Engineer I / II",
    "Head of Data", "实习生-算法", "2027届校招", "Associate Product Manager", "Backend Developer", "数据分析师",
    "Part-time tutor", "Contractor, QA", "Full Stack Engineer", "正式员工", "", "iOS Developer", "Intern (Summer)",
])
def test_cue_check_on_examples(text):
    _assert_cue_check_only_skips_texts_the_patterns_reject(text)
