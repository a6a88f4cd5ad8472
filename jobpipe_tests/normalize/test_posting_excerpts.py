"""Requirement excerpts: one Aho-Corasick pass over the description must pick the same passages as
searching each hint word with str.find, and experience/degree still come out of long descriptions."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting
from jobpipe.normalize.posting import _DEGREE_HINT, _EXPERIENCE_HINT, _excerpt, _hint_positions


def _find_excerpt(text: str, hints: tuple[str, ...], radius: int = 80, limit: int = 3) -> str:
    """The excerpt as first written: str.find per hint word."""
    lower = text.lower()
    starts: list[int] = []

    def find(word: str, start: int) -> int:
        """The next occurrence that starts a word ("ms " in "systems " does not)."""
        pos = lower.find(word, start)
        while pos > 0 and word[0].isascii() and lower[pos - 1].isascii() and lower[pos - 1].isalpha():
            pos = lower.find(word, pos + 1)
        return pos

    for word in hints:
        pos = find(word, 0)
        while pos >= 0 and len(starts) < limit * 2:
            starts.append(pos)
            pos = find(word, pos + len(word) + radius)
    starts.sort()
    parts, last_end = [], -1
    for pos in starts[:limit]:
        a, b = max(0, pos - radius, last_end), pos + radius
        if b > a:
            parts.append(text[a:b])
            last_end = b
    return "\n".join(parts)


_PIECES = ["years", "Years", "experience", "经验", "5年以上", "本科", "硕士", "博士", "大专", "学历", "degree", "Bachelor",
           "master", "PhD", "Ph.D", "BS/MS", "BS ", "MS ", "bs ms ", "ph.dphd", "yearsyears", " ", "\n", "x" * 30,
           "要求" * 10, "a", "中"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_excerpts_equal_the_find_loop(text):
    positions = _hint_positions(text.lower())
    assert _excerpt(text, positions, _EXPERIENCE_HINT, radius=60, limit=2) == \
        _find_excerpt(text, _EXPERIENCE_HINT, radius=60, limit=2)
    assert _excerpt(text, positions, _DEGREE_HINT) == _find_excerpt(text, _DEGREE_HINT)


def test_requirements_read_from_a_long_description():
    filler = "We build data pipelines and care about quality. " * 40
    fields = PostingFields(title="Data Engineer", description=filler + "You have 5+ years of experience and a "
                           "Bachelor's degree in Computer Science or equivalent. " + filler)
    p = normalize_posting(fields, source="t", external_id="1", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.degree) == (5.0, "bachelor")
    zh = PostingFields(title="数据工程师", description="负责数据平台建设。" * 50 + "任职要求：3-5年工作经验，本科及以上学历。")
    p = normalize_posting(zh, source="t", external_id="2", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.experience_max, p.degree) == (3.0, 5.0, "bachelor")


def test_a_hint_inside_a_word_does_not_crowd_out_the_requirement():
    """"ms " ends "systems " and "teams ": those were hints, and three of them before the
    requirement filled the excerpt, so "Bachelor's degree" further down was never read."""
    text = ("We build systems for teams. " + "x" * 200 + " Our platforms serve programs. " + "y" * 200 +
            " More systems and teams here. " + "z" * 200 + " Requirements: Bachelor's degree in CS.")
    fields = PostingFields(title="Engineer", description=text)
    p = normalize_posting(fields, source="t", external_id="4", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert p.degree == "bachelor"


def test_the_stated_years_are_read_past_other_senses_of_experience():
    """"experience" and "years" say other things first ("customer experience", "for 20 years");
    the excerpt now starts at a number of years named as experience."""
    text = ("Shape the customer experience of millions. Our learning experience team has grown for 20 years. "
            + "We value craft. " * 30 + "Minimum Qualifications: 3+ years of software development experience.")
    fields = PostingFields(title="Engineer", description=text)
    p = normalize_posting(fields, source="t", external_id="5", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.experience_max) == (3.0, None)
    zh = PostingFields(title="运维", description="公司成立于2016年，连续4年获奖。" + "福利好。" * 40 + "岗位无工作经验要求，应届生均可")
    p = normalize_posting(zh, source="t", external_id="6", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.experience_max) == (0.0, None)      # no number to find it by: the plain excerpt


def test_a_degree_written_with_dots_or_as_a_diploma_is_read_from_the_description():
    filler = "We run labs and care about quality. " * 40
    for stated, degree in (("Must have a B.S. degree in Medical Technology.", "bachelor"),
                           ("Education: M.S. with 8-12 years or Ph.D. with 5-7 years.", "master"),
                           ("Education: High school diploma or GED required.", "high_school")):
        fields = PostingFields(title="Scientist", description=filler + stated)
        p = normalize_posting(fields, source="t", external_id="7", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
        assert p.degree == degree, stated


def test_an_experience_field_without_a_number_leaves_it_to_the_description():
    """An API's "experienced" or "mid_level" is a level, not years: the description says how many."""
    fields = PostingFields(title="Accountant", experience_text="experienced",
                           description="What we expect: 5+ years of relevant professional experience in finance.")
    p = normalize_posting(fields, source="t", external_id="8", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.experience_max) == (5.0, None)


def test_a_short_degree_field_that_says_nothing_falls_back_to_the_description():
    fields = PostingFields(title="Analyst", experience_text="3年", degree_text="不限",
                           description="Requirements: a master's degree in statistics is required.")
    p = normalize_posting(fields, source="t", external_id="3", fetched_at=datetime(2026, 11, 29, tzinfo=timezone.utc))
    assert (p.experience_min, p.degree) == (3.0, "master")
