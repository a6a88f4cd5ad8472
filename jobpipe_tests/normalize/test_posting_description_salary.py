"""Pay statements in descriptions are matched only where a label starts (found by an automaton);
that must give the regex's own matches, and the texts the automaton cannot serve must fall back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize.posting import _DESCRIPTION_SALARY, _description_salary, _salary_statements


def _spans(matches) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(1)) for m in matches]


def _same_as_the_regex(text: str) -> None:
    assert _spans(_salary_statements(text, text.lower())) == _spans(_DESCRIPTION_SALARY.finditer(text))


@pytest.mark.parametrize("text", [
    "Base salary: $120k-$150k. Salary range 100-200K",
    "SALARY range: 30-50K; compensation: up to $200k",
    "The pay range for this role is $90k–$120k",
    "薪资范围：15-25K，月薪 2万，年薪 30万，工资 8000",
    "İstanbul office, salary: 5000 TRY",     # "İ" lowercases to two characters: positions move
    "ſalary: 5000 EUR",                       # long s matches "s" under IGNORECASE only
    "Iı salary: 5000",                        # dotless i
    "salary \ud800: 5000",                    # a lone surrogate: the automaton cannot read it
    "no pay stated here",
    "",
])
def test_label_starts_give_the_regex_matches(text):
    _same_as_the_regex(text)


def test_fallback_texts_still_find_the_salary():
    found = _description_salary("İstanbul: salary 5000-6000 USD per month", None)
    assert found is not None and (found.min, found.max, found.currency) == (5000, 6000, "USD")
    found = _description_salary("\ud800 salary 5000-6000 USD per month", None)
    assert found is not None and found.max == 6000


_PIECES = ["salary", "Salary", "SALARY", "base salary", "salary range", "compensation", "Compensation range",
           "pay range", "pay range for this role is", "薪", "薪资", "薪资范围", "月薪", "年薪", "工资", ":", "：", " ", "\n",
           "。", "30-50K", "$120k", "5000", "İ", "ſ", "ı", "Σ", "x", "pay", "base"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_random_mixtures(text):
    _same_as_the_regex(text)
