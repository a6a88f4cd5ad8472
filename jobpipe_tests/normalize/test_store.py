"""Normalized rows per stored payload on the real database: written only when their output differs,
normalization only of what is new since the last run of the same normalizer version."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timezone

import pytest
from psycopg.types.json import Jsonb

import jobpipe.normalize.store as store
from jobpipe.hashing import content_hash
from jobpipe.models import PostingFields
from jobpipe.normalize import load_normalized, normalize_posting, reject_rates, sources_over_threshold, write_normalized
from jobpipe.normalize.schema import Rejection, ValidationResult
from jobpipe.normalize.store import load_quarantine, normalize_fetch
from jobpipe.normalize.version import normalizer_version
from jobpipe_tests.lifecycle import DAY0, FileSource, row

NOW = datetime(2026, 3, 10, tzinfo=timezone.utc)
DAY = date(2026, 3, 10)


def _raw_id(db, external_id: str) -> int:
    found = db.execute(
        "INSERT INTO raw_postings (source, external_id, format, payload, payload_hash) VALUES (%s, %s, 'file', %s, %s) RETURNING raw_id",
        ("s", external_id, Jsonb({"title": external_id}), external_id),
    ).fetchone()
    db.commit()
    return found[0]


def _posting(db, i: str, **changes):
    posting = normalize_posting(
        PostingFields(title=f"后端工程师 {i}", company="Acme", location="北京/上海", salary_text="15-25K·14薪",
                      employment_type="全职", description="熟悉 Go、k8s。3-5年经验，本科。", posted_at="2026-03-01"),
        source="s", external_id=i, fetched_at=NOW, raw_id=_raw_id(db, i), fetch_id=5,
    )
    return dataclasses.replace(posting, **changes) if changes else posting


def _stored(db):
    return dict(db.execute("SELECT raw_id, xmin::text FROM normalized_postings").fetchall())


def test_rows_are_per_payload_and_rewritten_only_when_their_output_differs(db):
    a, b = _posting(db, "1"), _posting(db, "2")
    counts = write_normalized(db, "s", DAY, ValidationResult(valid=[a, b]))
    assert (counts.passed, counts.written) == (2, 2)
    before = _stored(db)
    assert write_normalized(db, "s", DAY, ValidationResult(valid=[a, b])).written == 0
    assert _stored(db) == before          # not rewritten: no new row version
    changed = dataclasses.replace(b, title="后端专家 2")
    changed = dataclasses.replace(changed, content_hash=content_hash(changed))
    assert write_normalized(db, "s", DAY, ValidationResult(valid=[a, changed])).written == 1
    after = _stored(db)
    assert after[a.raw_id] == before[a.raw_id] and after[b.raw_id] != before[b.raw_id]


def test_a_payload_moves_between_rows_and_quarantine_as_its_verdict_changes(db):
    good = _posting(db, "1")
    write_normalized(db, "s", DAY, ValidationResult(valid=[good]))
    rejection = Rejection("1", good.raw_id, ["title:str_length"], "s", 5)
    write_normalized(db, "s", DAY, ValidationResult(rejected=[rejection]), dagster_run_id="run-2")
    assert db.execute("SELECT count(*) FROM normalized_postings").fetchone()[0] == 0
    (q,) = db.execute("SELECT raw_id, failed_checks, dagster_run_id FROM quarantine").fetchall()
    assert q == (good.raw_id, ["title:str_length"], "run-2")
    write_normalized(db, "s", DAY, ValidationResult(rejected=[rejection]), dagster_run_id="run-3")
    assert db.execute("SELECT dagster_run_id FROM quarantine").fetchone()[0] == "run-2"   # same verdict: untouched
    write_normalized(db, "s", DAY, ValidationResult(valid=[good]))
    assert db.execute("SELECT count(*) FROM quarantine").fetchone()[0] == 0


def test_a_posting_without_its_payload_id_is_refused(db):
    posting = dataclasses.replace(_posting(db, "1"), raw_id=None)
    with pytest.raises(ValueError, match="raw_id"):
        write_normalized(db, "s", DAY, ValidationResult(valid=[posting]))


def test_normalize_fetch_runs_only_what_is_new_for_its_version(db, tmp_path, monkeypatch):
    source = FileSource(tmp_path)
    source.fetch(db, [row(i) for i in range(5)], 0)
    first = normalize_fetch(db, source.name, DAY0)
    assert (first.mode, first.normalized, first.written, first.listed) == ("full", 5, 5, 5)
    assert first.version == normalizer_version()
    assert normalize_fetch(db, source.name, DAY0).mode == "current"   # a replay with the same normalizer: nothing
    source.fetch(db, [row(0, title="Changed")] + [row(i) for i in range(1, 6)], 1)
    second = normalize_fetch(db, source.name, DAY0.replace(day=2))
    assert (second.mode, second.normalized, second.written, second.listed) == ("incremental", 2, 2, 6)
    before = _stored(db)
    monkeypatch.setattr(store, "normalizer_version", lambda: "v-next")
    third = normalize_fetch(db, source.name, DAY0.replace(day=2))
    assert (third.mode, third.normalized, third.written) == ("full", 6, 0)   # all re-run, nothing differs
    assert _stored(db) == before
    assert [p.title for p in load_normalized(db, source.name, DAY0)][0] == "Data Engineer 0"
    assert [p.title for p in load_normalized(db, source.name, DAY0.replace(day=2))][0] == "Changed"


def test_reject_rate_counts_every_posting_of_the_run(db, tmp_path):
    source = FileSource(tmp_path)
    rows = [row(i) for i in range(9)] + [row(9, title="")]
    source.fetch(db, rows, 0)
    counts = normalize_fetch(db, source.name, DAY0)
    assert (counts.listed, counts.rejected_listed) == (10, 1) and counts.reject_rate == pytest.approx(0.1)
    source.fetch(db, rows, 1)
    quiet = normalize_fetch(db, source.name, DAY0.replace(day=2))
    assert quiet.normalized == 0 and quiet.reject_rate == pytest.approx(0.1)   # an unchanged night keeps the rate
    assert reject_rates(db)[source.name] == (9, 1, pytest.approx(0.1))
    assert sources_over_threshold(reject_rates(db), 0.05) == [source.name]
    quarantined = [q for q in load_quarantine(db, source.name, DAY0) if q["stage"] == "normalize"]
    assert len(quarantined) == 1 and quarantined[0]["external_id"] == "p9"
