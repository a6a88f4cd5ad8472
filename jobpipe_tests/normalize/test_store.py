"""Partition writes on the real database: replace-in-one-transaction, quarantine, reject rates."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timezone

from psycopg.types.json import Jsonb

from jobpipe.models import PostingFields
from jobpipe.normalize import (
    load_normalized,
    normalize_posting,
    reject_rates,
    sources_over_threshold,
    validate_postings,
    write_normalized,
)
from jobpipe.normalize.schema import Rejection, ValidationResult
from jobpipe.normalize.store import load_quarantine

NOW = datetime(2026, 3, 10, tzinfo=timezone.utc)
DAY = date(2026, 3, 10)


def _raw_id(db, external_id: str) -> int:
    row = db.execute(
        "INSERT INTO raw_postings (source, external_id, format, payload, payload_hash) VALUES (%s, %s, 'file', %s, %s) RETURNING raw_id",
        ("s", external_id, Jsonb({"title": external_id}), external_id),
    ).fetchone()
    db.commit()
    return row[0]


def _posting(i: str, raw_id: int | None = None):
    return normalize_posting(
        PostingFields(title=f"后端工程师 {i}", company="Acme", location="北京/上海", salary_text="15-25K·14薪",
                      employment_type="全职", description="熟悉 Go、k8s。3-5年经验，本科。", posted_at="2026-03-01"),
        source="s", external_id=i, fetched_at=NOW, raw_id=raw_id, fetch_id=5,
    )


def test_write_and_load_round_trip(db):
    rid = _raw_id(db, "1")
    result = validate_postings([_posting("1", rid), _posting("2")], now=NOW)
    counts = write_normalized(db, "s", DAY, result, dagster_run_id="run-1")
    assert (counts.passed, counts.rejected) == (2, 0)
    loaded = load_normalized(db, "s", DAY)
    assert [p.external_id for p in loaded] == ["1", "2"]
    assert loaded[0] == result.valid[0]          # every field survives the database
    assert loaded[0].salary.months_per_year == 14 and loaded[0].cities == ["Beijing", "Shanghai"]


def test_rerun_replaces_the_partition(db):
    write_normalized(db, "s", DAY, validate_postings([_posting("1"), _posting("2"), _posting("3")], now=NOW))
    bad = dataclasses.replace(_posting("4"), title=" ")
    write_normalized(db, "s", DAY, validate_postings([_posting("1"), bad], now=NOW), dagster_run_id="run-2")
    write_normalized(db, "s", DAY, validate_postings([_posting("1"), bad], now=NOW), dagster_run_id="run-2")
    assert [p.external_id for p in load_normalized(db, "s", DAY)] == ["1"]
    quarantined = load_quarantine(db, "s", DAY)
    assert len(quarantined) == 1 and quarantined[0]["external_id"] == "4" and quarantined[0]["dagster_run_id"] == "run-2"
    assert any("title" in c for c in quarantined[0]["failed_checks"])
    # other partitions and sources are untouched
    write_normalized(db, "other", DAY, validate_postings([_posting("9")], now=NOW))
    write_normalized(db, "s", date(2026, 3, 11), validate_postings([_posting("8")], now=NOW))
    write_normalized(db, "s", DAY, validate_postings([_posting("5")], now=NOW))
    assert [p.external_id for p in load_normalized(db, "other", DAY)] == ["9"]
    assert [p.external_id for p in load_normalized(db, "s", date(2026, 3, 11))] == ["8"]


def test_quarantine_keeps_raw_reference_and_errors(db):
    rid = _raw_id(db, "x")
    result = ValidationResult(valid=[_posting("ok")], rejected=[Rejection("x", rid, ["extract_error: KeyError: 'title'"], "s", 5)])
    write_normalized(db, "s", DAY, result, dagster_run_id="run-3")
    (q,) = load_quarantine(db, "s", DAY)
    assert q == {"stage": "normalize", "position": None, "external_id": "x", "raw_id": rid, "fetch_id": 5,
                 "failed_checks": ["extract_error: KeyError: 'title'"], "raw_text": None, "dagster_run_id": "run-3"}


def test_duplicate_external_ids_stored_once(db):
    counts = write_normalized(db, "s", DAY, ValidationResult(valid=[_posting("1"), _posting("1")]))
    assert counts.passed == 1 and len(load_normalized(db, "s", DAY)) == 1


def test_reject_rates_and_threshold(db):
    ok = [_posting(str(i)) for i in range(19)]
    write_normalized(db, "good", DAY, ValidationResult(valid=ok, rejected=[Rejection("r", None, ["x"], "good")]))
    write_normalized(db, "bad", DAY, ValidationResult(valid=ok[:3], rejected=[Rejection("r", None, ["x"], "bad")]))
    write_normalized(db, "bad", date(2026, 3, 9), ValidationResult(valid=ok[:1]))
    rates = reject_rates(db, DAY)
    assert rates["good"] == (19, 1, 0.05) and rates["bad"] == (3, 1, 0.25)
    assert sources_over_threshold(rates) == ["bad"]
    assert sources_over_threshold(rates, threshold=0.5) == []
    assert reject_rates(db)["bad"] == (4, 1, 0.2)
