from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.normalize.dates import anchored_on_fetch, parse_date, parse_deadline

FETCHED = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)
UTC = timezone.utc


@pytest.mark.parametrize("value,expected", [
    ("2021-04-01T12:00:00Z", datetime(2021, 4, 1, 12, tzinfo=UTC)),
    ("2021-04-01T20:00:00+08:00", datetime(2021, 4, 1, 12, tzinfo=UTC)),
    ("2021-04-01", datetime(2021, 4, 1, tzinfo=UTC)),
    ("2021-04-01 12:00:00", datetime(2021, 4, 1, 12, tzinfo=UTC)),
    ("2021/04/01", datetime(2021, 4, 1, tzinfo=UTC)),
    ("2021年4月1日", datetime(2021, 3, 31, 16, tzinfo=UTC)),          # Chinese wall clock is Beijing time
    (1617278400000, datetime(2021, 4, 1, 12, tzinfo=UTC)),            # epoch ms
    (1617278400, datetime(2021, 4, 1, 12, tzinfo=UTC)),               # epoch s
    ("1617278400000", datetime(2021, 4, 1, 12, tzinfo=UTC)),
    ("Posted Yesterday", datetime(2026, 3, 9, tzinfo=UTC)),
    ("3 days ago", datetime(2026, 3, 7, tzinfo=UTC)),                 # a day-granular date is the day's start
    ("30+ days ago", datetime(2026, 2, 8, tzinfo=UTC)),
    ("2 hours ago", FETCHED - timedelta(hours=2)),
    ("Just posted", FETCHED),
    ("今天 09:15", datetime(2026, 3, 10, 1, 15, tzinfo=UTC)),
    ("昨天", datetime(2026, 3, 8, 16, tzinfo=UTC)),                  # start of yesterday, Beijing
    ("3天前", datetime(2026, 3, 6, 16, tzinfo=UTC)),                 # start of that day, Beijing
    ("1周前", datetime(2026, 3, 2, 16, tzinfo=UTC)),
    ("Posted Today", datetime(2026, 3, 10, tzinfo=UTC)),
    ("03-05", datetime(2026, 3, 4, 16, tzinfo=UTC)),
    ("12-30", datetime(2025, 12, 29, 16, tzinfo=UTC)),               # a future month-day is last year's
    (date(2024, 5, 6), datetime(2024, 5, 6, tzinfo=UTC)),
])
def test_parse_date(value, expected):
    if isinstance(value, str) and value[:2] in ("03", "12"):
        # month-day forms are read as Beijing dates only when written in Chinese; here they are bare
        expected = expected + timedelta(hours=8)
    assert parse_date(value, fetched_at=FETCHED) == expected


@pytest.mark.parametrize("value", [None, "", "garbage", "soon", 0, -5, 10**20, float("nan"), "2021-13-45", True])
def test_unreadable_is_none(value):
    assert parse_date(value, fetched_at=FETCHED) is None


def test_day_granular_dates_do_not_move_between_fetches():
    """Read at different hours, or a day later one day older, a posting keeps its date (no rewrite)."""
    morning, evening = datetime(2026, 3, 10, 2, tzinfo=UTC), datetime(2026, 3, 10, 22, tzinfo=UTC)
    tomorrow = datetime(2026, 3, 11, 9, tzinfo=UTC)
    assert parse_date("Posted 3 Days Ago", fetched_at=morning) == parse_date("Posted 3 Days Ago", fetched_at=evening)
    assert parse_date("Posted 3 Days Ago", fetched_at=morning) == parse_date("Posted 4 Days Ago", fetched_at=tomorrow)
    assert parse_date("Posted Today", fetched_at=evening) == parse_date("Posted Yesterday", fetched_at=tomorrow)
    assert parse_date("3天前", fetched_at=morning) == parse_date("4天前", fetched_at=tomorrow)


def test_naive_fetch_time_is_utc():
    assert parse_date("1 day ago", fetched_at=datetime(2026, 1, 2)) == datetime(2026, 1, 1, tzinfo=UTC)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=40), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                 st.datetimes(timezones=st.just(UTC))))
def test_never_crashes_and_always_aware_utc(value):
    out = parse_date(value, fetched_at=FETCHED)
    if out is not None:
        assert out.tzinfo is not None and out.utcoffset() == timedelta(0)
        assert datetime(1990, 1, 1, tzinfo=UTC) <= out <= datetime(2200, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(("value", "expected"), [
    ("2026-12-02", datetime(2026, 12, 3, tzinfo=UTC)),                       # through the whole day
    ("2026/12/2", datetime(2026, 12, 3, tzinfo=UTC)),
    ("2026年12月2日", datetime(2026, 12, 2, 16, tzinfo=UTC)),                 # Beijing midnight after it
    (date(2026, 12, 2), datetime(2026, 12, 3, tzinfo=UTC)),
    ("2026-12-02T18:00:00Z", datetime(2026, 12, 2, 18, tzinfo=UTC)),         # a stated time is kept
    ("2026-11-30T23:59:59Z", datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)),
    (datetime(2026, 12, 2, 9, tzinfo=UTC), datetime(2026, 12, 2, 9, tzinfo=UTC)),
    ("garbage", None),
    (None, None),
])
def test_a_deadline_given_as_a_day_lasts_through_that_day(value, expected):
    assert parse_deadline(value, fetched_at=FETCHED) == expected


@pytest.mark.parametrize(("value", "anchored"), [
    ("3天前", True), ("3 days ago", True), ("Posted Yesterday", True), ("今天 09:15", True), ("03-05", True),
    ("Just posted", True), ("2 hours ago", True),
    ("2021-04-01", False), ("2021年4月1日", False), ("1617278400000", False), (1617278400, False),
    (date(2024, 5, 6), False), ("garbage", False), ("", False), (None, False), ("2021-13-45", False),
])
def test_anchored_on_fetch_tells_relative_dates(value, anchored):
    """Exactly the values whose date moves with the fetch time are anchored on it."""
    assert anchored_on_fetch(value) is anchored
    other = FETCHED + timedelta(days=400)   # another day and another year (a month-day takes the year)
    moves = parse_date(value, fetched_at=FETCHED) != parse_date(value, fetched_at=other)
    assert moves is anchored
