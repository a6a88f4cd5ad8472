"""Validation: every failed check is named, and a batch never crashes or drops a posting silently."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from jobpipe.models import NormalizedPosting, PostingFields, RawPosting, Salary
from jobpipe.normalize import normalize_batch, normalize_posting, validate_postings

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
        (None, RawPosting("s", "d", "ok", {"title": "Analyst", "location": "London"})),
    ]
    result = normalize_batch(items, _extract, fetch_id=9, now=NOW)
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
    by_id = {p.external_id: p for p in normalize_batch(items, _extract, now=NOW).valid}
    assert by_id["a"].url == "https://acme.example/jobs/a"   # no url in the payload: the page it came from
    assert by_id["b"].url == "https://acme.example/b"        # the posting's own url wins
