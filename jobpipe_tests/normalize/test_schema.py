"""Validation: every failed check is named, and a batch never crashes or drops a posting silently."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from jobpipe.models import NormalizedPosting, PostingFields, RawPosting, Salary
from jobpipe.normalize import normalize_batch, normalize_posting, validate_postings
from jobpipe_tests.clock import set_wall_clock

NOW = datetime(2026, 3, 10, tzinfo=timezone.utc)


def _good(i: str = "1") -> NormalizedPosting:
    return normalize_posting(PostingFields(title="Go 工程师", location="北京", salary_text="20-30K"),
                             source="s", external_id=i, fetched_at=NOW)


def test_good_posting_passes():
    result = validate_postings([_good()], now=NOW)
    assert len(result.valid) == 1 and result.rejected == [] and result.reject_rate == 0


def test_every_failed_check_is_reported_per_row():
    bad = dataclasses.replace(
        _good("bad"), title="  ", country="China", remote="sometimes", job_type="gig", cities=["Atlantis City"],
        salary=Salary(min=50000, max=20000, currency="XYZ", period="fortnight", months_per_year=40),
        url="ftp://example.com", posted_at=NOW + timedelta(days=30), skills=["Basket Weaving"],
        experience_min=8, experience_max=3, raw_id=None,
    )
    result = validate_postings([_good("ok"), bad], now=NOW)
    assert [p.external_id for p in result.valid] == ["ok"]
    (rej,) = result.rejected
    assert rej.external_id == "bad"
    checks = " ".join(rej.failed_checks)
    for expected in ["title_not_blank", "country_iso_alpha2", "remote", "job_type", "cities_canonical", "currency_known",
                     "period_known", "months_per_year_1_24", "url_http", "posted_at_not_in_future", "skills_canonical",
                     "salary_min_le_max", "experience_min_le_max"]:
        assert expected in checks, (expected, rej.failed_checks)


def test_negative_amount_and_missing_period_rejected():
    bad = dataclasses.replace(_good("neg"), salary=Salary(min=-5, max=None, currency="CNY", period=None))
    (rej,) = validate_postings([bad], now=NOW).rejected
    assert any("salary_min_positive" in c for c in rej.failed_checks)
    assert any("salary_amount_has_period" in c for c in rej.failed_checks)


def _extract(fmt: str, payload: dict) -> PostingFields:
    if fmt == "broken":
        raise ValueError("payload has no title field")
    return PostingFields(title=payload.get("title"), location=payload.get("location"), url=payload.get("url"))


def test_normalize_batch_turns_errors_into_rejections():
    items = [
        (1, RawPosting("s", "a", "ok", {"title": "数据分析师", "location": "上海"}, fetched_at=NOW)),
        (2, RawPosting("s", "b", "broken", {}, fetched_at=NOW)),
        (3, RawPosting("s", "c", "ok", {"title": "", "location": "上海"}, fetched_at=NOW)),   # fails the schema
        (None, RawPosting("s", "d", "ok", {"title": "Analyst", "location": "London"}, fetched_at=NOW)),
    ]
    result = normalize_batch(items, _extract, fetch_id=9)
    assert sorted(p.external_id for p in result.valid) == ["a", "d"]
    assert {p.fetch_id for p in result.valid} == {9} and result.valid[0].raw_id == 1
    rejected = {r.external_id: r for r in result.rejected}
    assert set(rejected) == {"b", "c"}
    assert rejected["b"].raw_id == 2 and "extract_error: ValueError: payload has no title field" in rejected["b"].failed_checks[0]
    assert rejected["c"].raw_id == 3 and any("title" in c for c in rejected["c"].failed_checks)
    assert abs(result.reject_rate - 0.5) < 1e-9


def test_empty_batch():
    assert validate_postings([]).valid == [] and normalize_batch([], _extract).rejected == []


def test_normalize_batch_falls_back_to_the_page_url():
    items = [
        (1, RawPosting("s", "a", "ok", {"title": "数据分析师", "location": "上海"}, url="https://acme.example/jobs/a",
                       fetched_at=NOW)),
        (2, RawPosting("s", "b", "ok", {"title": "Analyst", "location": "London", "url": "https://acme.example/b"},
                       url="https://acme.example/careers/page-2", fetched_at=NOW)),
    ]
    by_id = {p.external_id: p for p in normalize_batch(items, _extract).valid}
    assert by_id["a"].url == "https://acme.example/jobs/a"   # no url in the payload: the page it came from
    assert by_id["b"].url == "https://acme.example/b"        # the posting's own url wins


def _dated(eid: str, posted: str, fetched_at: datetime | None) -> tuple[int, RawPosting]:
    return (1, RawPosting("s", eid, "dated", {"title": "数据分析师", "location": "上海", "posted": posted},
                          fetched_at=fetched_at))


def _extract_dated(fmt: str, payload: dict) -> PostingFields:
    return PostingFields(title=payload["title"], location=payload["location"], posted_at=payload["posted"])


def _wall_clock(monkeypatch, at: datetime) -> None:
    """Every module of the normalizer sees ``at`` as the wall clock (datetime.now)."""
    import jobpipe.normalize.batch
    import jobpipe.normalize.dates
    import jobpipe.normalize.posting
    import jobpipe.normalize.schema

    set_wall_clock(monkeypatch, at, jobpipe.normalize.batch, jobpipe.normalize.dates, jobpipe.normalize.posting,
                   jobpipe.normalize.schema)


def test_relative_dates_follow_the_fetch_time_not_the_clock_of_the_run(monkeypatch):
    """The same stored payload normalized before and after Beijing midnight (16:00 UTC) -- the
    first load, then a re-normalization -- gets the same posted date: that of its fetch."""
    fetched = datetime(2026, 3, 10, 15, 40, tzinfo=timezone.utc)          # 23:40 in Beijing
    items = [_dated("zh", "3天前", fetched), _dated("en", "3 days ago", fetched), _dated("today", "今天", fetched)]
    posted = {}
    for clock in (datetime(2026, 3, 10, 15, 50, tzinfo=timezone.utc), datetime(2026, 3, 10, 16, 10, tzinfo=timezone.utc),
                  datetime(2026, 3, 14, 9, 0, tzinfo=timezone.utc)):
        _wall_clock(monkeypatch, clock)
        result = normalize_batch(items, _extract_dated)
        assert result.rejected == []
        posted[clock] = {p.external_id: p.posted_at for p in result.valid}
    first, *later = posted.values()
    assert all(run == first for run in later)
    assert first == {"zh": datetime(2026, 3, 6, 16, tzinfo=timezone.utc),     # Beijing's 3-07, from 3-10 23:40
                     "en": datetime(2026, 3, 7, tzinfo=timezone.utc),
                     "today": datetime(2026, 3, 9, 16, tzinfo=timezone.utc)}


def test_a_date_is_in_the_future_relative_to_its_fetch_not_to_the_run():
    """A date after the fetch (beyond the tolerance) is rejected on every run, and a payload
    fetched later may carry it: the verdict depends on the payload's fetch time only."""
    early, late = datetime(2026, 3, 1, tzinfo=timezone.utc), datetime(2026, 3, 9, tzinfo=timezone.utc)
    result = normalize_batch([_dated("early", "2026-03-08", early), _dated("late", "2026-03-08", late)],
                             _extract_dated)
    assert [p.external_id for p in result.valid] == ["late"]
    assert [(r.external_id, r.failed_checks) for r in result.rejected] == [
        ("early", ["posted_at:posted_at_not_in_future"])]


def test_a_payload_without_a_fetch_time_is_rejected_not_anchored_on_the_clock():
    result = normalize_batch([_dated("a", "3天前", None), _dated("b", "3天前", NOW)], _extract_dated)
    assert [p.external_id for p in result.valid] == ["b"]
    assert result.rejected[0].external_id == "a" and result.rejected[0].failed_checks[0].startswith("fetch_time_missing")
