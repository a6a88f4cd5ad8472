"""Retention: a window of daily history, the current payload of every open posting forever."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jobpipe.normalize.store import NotNormalizedError, normalize_fetch
from jobpipe.sources import load_snapshot
from jobpipe.sources.retention import prune_snapshots
from jobpipe_tests.lifecycle import DAY0, FileSource, row


def count(db, table: str) -> int:
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_history_older_than_the_window_is_pruned_and_open_postings_keep_their_payload(db, tmp_path):
    source = FileSource(tmp_path)
    # day 0: p0..p9; day 1: p1 changes, p2 leaves; days 2..9 unchanged
    source.night(db, [row(i) for i in range(10)], 0)
    later = [row(0), row(1, title="Senior Data Engineer 1")] + [row(i) for i in range(3, 10)]
    for day in range(1, 10):
        source.night(db, later, day)
    assert count(db, "raw_postings") == 11 and count(db, "fetch_runs") == 10
    pruned = prune_snapshots(db, keep_days=5, today=DAY0 + timedelta(days=9))
    # days 0..4 go; the spans closed at day 1 (p1's first payload, p2) covered only day 0
    assert (pruned.fetch_runs, pruned.spans, pruned.payloads, pruned.normalized) == (5, 2, 2, 2)
    assert pruned.payload_bytes > 0 and pruned.oldest_day == DAY0 + timedelta(days=5)
    assert count(db, "raw_postings") == 9 and count(db, "normalized_postings") == 9
    assert load_snapshot(db, source.name, DAY0) is None
    with pytest.raises(NotNormalizedError, match="no raw snapshot"):
        normalize_fetch(db, source.name, DAY0)
    kept = load_snapshot(db, source.name, DAY0 + timedelta(days=5))
    assert sorted(p.external_id for p in kept.postings) == sorted(f"p{i}" for i in range(10) if i != 2)
    assert {p.payload["title"] for p in kept.postings if p.external_id == "p1"} == {"Senior Data Engineer 1"}
    # the closed posting keeps its curated row
    assert db.execute("SELECT closed_at IS NOT NULL FROM jobs WHERE external_id = 'p2'").fetchone()[0]
    again = prune_snapshots(db, keep_days=5, today=DAY0 + timedelta(days=9))
    assert (again.fetch_runs, again.spans, again.payloads) == (0, 0, 0)


def test_the_latest_run_of_a_source_that_stopped_is_kept(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, [row(0)], 0)
    source.night(db, [row(0), row(1)], 1)
    pruned = prune_snapshots(db, keep_days=30, today=DAY0 + timedelta(days=400))
    assert pruned.fetch_runs == 1 and pruned.payloads == 0
    assert [p.external_id for p in load_snapshot(db, source.name, DAY0 + timedelta(days=1)).postings] == ["p0", "p1"]
    assert count(db, "raw_postings") == 2


def test_keep_days_must_be_positive(db):
    with pytest.raises(ValueError, match="keep_days"):
        prune_snapshots(db, keep_days=0)
