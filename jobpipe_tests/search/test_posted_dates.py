"""Posting-date windows read from a question: which words state one, and which days it covers."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.search.posted_dates import find_dates

TODAY = date(2026, 12, 7)


def _read(query: str) -> list[tuple[str, date | None, date | None]]:
    return [(query[d.start:d.end], d.posted_from, d.posted_until) for d in find_dates(query, TODAY)]


@pytest.mark.parametrize(("query", "text", "first", "last"), [
    ("posted in November 2026 data engineer", "posted in November 2026", date(2026, 11, 1), date(2026, 11, 30)),
    ("2021年2月发布的产品经理", "2021年2月发布", date(2021, 2, 1), date(2021, 2, 28)),
    ("2024年2月发布 运营", "2024年2月发布", date(2024, 2, 1), date(2024, 2, 29)),           # a leap year
    ("产品经理 2026-11-01以来", "2026-11-01以来", date(2026, 11, 1), None),
    ("since 2026-11-01 golang", "since 2026-11-01", date(2026, 11, 1), None),
    ("after 2026-11-30 python", "after 2026-11-30", date(2026, 12, 1), None),           # after: the next day
    ("posted before March 2021", "posted before March 2021", None, date(2021, 2, 28)),  # before: the day before
    ("until 2021-02-28 产品", "until 2021-02-28", None, date(2021, 2, 28)),               # until: that day too
    ("2026/11/05 发布", "2026/11/05 发布", date(2026, 11, 5), date(2026, 11, 5)),
    ("jobs posted between 2026-11-01 and 2026-11-15", "posted between 2026-11-01 and 2026-11-15",
     date(2026, 11, 1), date(2026, 11, 15)),
    ("2026年11月1日到11月15日发布的运营", "2026年11月1日到11月15日发布", date(2026, 11, 1), date(2026, 11, 15)),
    ("2024年12月到1月发布", "2024年12月到1月发布", date(2024, 12, 1), date(2025, 1, 31)),  # the end's year follows
    ("去年发布的 Java", "去年发布", date(2025, 1, 1), date(2025, 12, 31)),
    ("golang jobs since November 2026", "since November 2026", date(2026, 11, 1), None),   # a clause about jobs
    ("2026年11月以来的岗位", "2026年11月以来", date(2026, 11, 1), None),
    ("2021年2月份发布的产品经理", "2021年2月份发布", date(2021, 2, 1), date(2021, 2, 28)),
    ("上个月发布的运营", "上个月发布", date(2026, 11, 1), date(2026, 11, 30)),       # the calendar month before
    ("jobs posted in Q3 2026", "posted in Q3 2026", date(2026, 7, 1), date(2026, 9, 30)),
    ("2026年第四季度发布的岗位", "2026年第四季度发布", date(2026, 10, 1), date(2026, 12, 31)),
])
def test_a_window_and_the_words_that_state_it(query, text, first, last):
    assert _read(query) == [(text, first, last)]


@pytest.mark.parametrize(("query", "first", "last"), [
    ("data scientist posted since Nov 5", date(2026, 11, 5), None),       # not after today: this year
    ("posted in December", date(2026, 12, 1), date(2026, 12, 31)),         # the month under way
    ("12月8日以来 前端", date(2025, 12, 8), None),                             # tomorrow's date: last year's
])
def test_a_date_without_a_year_is_the_latest_one_not_after_today(query, first, last):
    ((_, got_first, got_last),) = _read(query)
    assert (got_first, got_last) == (first, last)


@pytest.mark.parametrize("query", [
    "2026届校招 算法",            # a graduating class
    "2026年3月入职 实习",         # a start date
    "3个月内 前端",               # freshness, read elsewhere
    "5年以上 Java 30k",          # experience
    "上海 13薪 30k",
    "2026年11月前端开发",          # 前 of 前端 is no "before"
    "11月后端",                  # 后 of 后端 is no "after"
    "may jobs you may like",     # a word, not a month
    "posted on 2026-02-30",      # no such day
    # a posting's own history, pasted into a query: bounds on a month or a year, no word of postings
    "创始团队自2017年迈入区块链行业以来", "截至2023年4月份，已经积累了全球用户", "since 2018 in the blockchain space",
    "自 2022 年 6 月上线之后",
    "on standby 2026-11-01 shift nurse",   # "by" only as a word
    "11月份工资 发布",                        # a month's pay
])
def test_dates_that_are_not_a_posting_window(query):
    assert _read(query) == []


_PIECES = ["2026", "2021", "1999", "-", "/", ".", "年", "月", "日", "号", "份", "11", "2", "30", "31", "0", " ", "，",
           "Q3", "第三季度", "上个月",
           "since ", "before ", "after ", "until ", "between ", " and ", "到", "至", "以来", "以前", "前端", "后端",
           "posted ", "发布", "jobs ", "岗位", "November", "Nov", "may", "今年", "去年", "this year", "个月", "薪"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_any_mix_of_date_words_reads_as_ordered_windows_inside_the_text(text):
    statements = find_dates(text, TODAY)
    ends = -1
    for d in statements:
        assert 0 <= d.start < d.end <= len(text) and d.start >= ends   # in order, never overlapping
        ends = d.end
        assert d.posted_from is not None or d.posted_until is not None
        if d.posted_from is not None and d.posted_until is not None:
            assert d.posted_from <= d.posted_until
