"""Night by night through fetch -> normalize -> curate: only changes cost anything, and nothing rolls back."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

import jobpipe.normalize.store as normalize_store
from jobpipe.embedding import TokenHashEmbedder
from jobpipe.hashing import content_hash
from jobpipe.normalize.store import NotNormalizedError, normalize_fetch
from jobpipe.store import sync_job_embeddings
from jobpipe.store.curate import curate_fetch
from jobpipe_tests.lifecycle import DAY0, FileSource, job, row, written
from jobpipe_tests.store.helpers import gin_pending_pages

ROWS = [row(i) for i in range(12)]


class Counting(TokenHashEmbedder):
    def __init__(self):
        super().__init__(16)
        self.texts: list[str] = []

    def embed_documents(self, texts):
        self.texts.extend(texts)
        return super().embed_documents(texts)


def test_first_night_loads_everything_and_an_unchanged_night_only_logs_the_run(db, tmp_path):
    source = FileSource(tmp_path)
    fetched, normalized, curated = source.night(db, ROWS, 0)
    assert (fetched.listed_new, normalized.mode, normalized.normalized, normalized.written) == (12, "full", 12, 12)
    assert (curated.mode, curated.upsert.inserted) == ("full", 12)
    sync_job_embeddings(db, Counting())
    (_, normalized, curated), stats = written(db, lambda: source.night(db, ROWS, 1))
    assert normalized.mode == "incremental" and normalized.normalized == 0
    assert curated.candidates == 0 and curated.unchanged == 12 and curated.closed == 0
    assert stats == {"fetch_runs": 1}   # the run's row (inserted, then marked normalized and curated)
    again = Counting()
    assert sync_job_embeddings(db, again).embedded == 0 and again.texts == []


def test_a_changed_night_normalizes_and_embeds_exactly_the_changes(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, ROWS, 0)
    sync_job_embeddings(db, Counting())
    night = [row(0, description="Now with Rust."), row(1, url="https://acme.example/jobs/1?v=2")] + ROWS[2:11]
    fetched, normalized, curated = source.night(db, night, 1)
    assert (fetched.listed_changed, fetched.listed_removed) == (2, 1)
    assert normalized.normalized == 2 and normalized.written == 2
    assert (curated.candidates, curated.upsert.updated, curated.closed) == (2, 2, 1)
    embedder = Counting()
    assert sync_job_embeddings(db, embedder).embedded == 1 and "Rust" in embedder.texts[0]
    assert job(db, "p11")["closed_at"] is not None


def test_a_night_that_wrote_leaves_no_gin_pending_list_for_searches_to_scan(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, ROWS, 0)
    assert set(gin_pending_pages(db, "jobs").values()) == {0}
    night = [row(0, description="Now with Rust."), row(1, url="https://acme.example/jobs/1?v=2")] + ROWS[2:11]
    assert source.night(db, night, 1)[2].closed == 1
    assert set(gin_pending_pages(db, "jobs").values()) == {0}
    assert set(gin_pending_pages(db, "job_terms").values()) == {0}


def test_a_backfill_of_an_older_day_never_rolls_a_job_back(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, [row(1, title="Title A")], 0)
    source.night(db, [row(1, title="Title B")], 1)
    sync_job_embeddings(db, Counting())
    before = job(db, "p1")
    assert before["title"] == "Title B"
    # backfill day 0 (Dagster backfill, `jobpipe run --date`): its stages run again
    normalize_fetch(db, source.name, DAY0)
    curated = curate_fetch(db, source.name, DAY0)
    assert curated.upsert.updated == 0 and curated.closed == 0 and not curated.latest
    embedder = Counting()
    assert sync_job_embeddings(db, embedder).embedded == 0
    assert job(db, "p1") == before   # same title, same row version


def test_a_replay_after_a_normalizer_change_rederives_only_what_it_holds(db, tmp_path, monkeypatch):
    source = FileSource(tmp_path)
    source.night(db, [row(1, title="Title A"), row(2)], 0)
    source.night(db, [row(1, title="Title B"), row(2)], 1)
    monkeypatch.setattr(normalize_store, "normalizer_version", lambda: "v-next")
    original = normalize_store.write_normalized

    def shouting(conn, source_name, day, result, *args, **kwargs):   # the new normalizer computes titles differently
        shouted = [replace(p, title=p.title.upper()) for p in result.valid]
        result.valid = [replace(p, content_hash=content_hash(p)) for p in shouted]
        return original(conn, source_name, day, result, *args, **kwargs)

    monkeypatch.setattr(normalize_store, "write_normalized", shouting)
    replayed = normalize_fetch(db, source.name, DAY0)
    assert replayed.mode == "full" and replayed.normalized == 2 and replayed.written == 2
    curate_fetch(db, source.name, DAY0)
    assert job(db, "p1")["title"] == "Title B"         # newer content is kept
    assert job(db, "p2")["title"] == "DATA ENGINEER 2"  # unchanged since day 0: re-derived


def test_a_closed_posting_is_reopened_only_by_a_later_observation(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, ROWS[:5], 0)
    source.night(db, ROWS[:4], 1)             # p4 vanishes
    assert job(db, "p4")["closed_at"] is not None
    normalize_fetch(db, source.name, DAY0)
    curate_fetch(db, source.name, DAY0)        # replaying day 0 does not bring it back
    assert job(db, "p4")["closed_at"] is not None
    _, _, curated = source.night(db, ROWS[:5], 2)   # listed again: reopened
    assert curated.upsert.reopened == 1 and job(db, "p4")["closed_at"] is None


def test_valid_through_closes_like_a_vanished_posting_and_an_extension_reopens(db, tmp_path):
    source = FileSource(tmp_path)
    now = datetime.now(timezone.utc)
    past, future = (now - timedelta(days=2)).isoformat(), (now + timedelta(days=30)).isoformat()
    rows = [row(1, valid_through=past), row(2, valid_through=future), row(3)]
    _, _, curated = source.night(db, rows, 0)
    assert curated.expired.closed == 1
    assert job(db, "p1")["closed_at"] is not None and job(db, "p2")["closed_at"] is None
    _, _, curated = source.night(db, rows, 1)    # still expired, still listed: stays closed, nothing written
    assert curated.candidates == 0 and job(db, "p1")["closed_at"] is not None
    extended = [row(1, valid_through=future), *rows[1:]]
    _, _, curated = source.night(db, extended, 2)
    assert curated.upsert.reopened == 1 and job(db, "p1")["closed_at"] is None


def test_curating_a_run_that_was_not_normalized_fails_loudly(db, tmp_path):
    source = FileSource(tmp_path)
    source.fetch(db, ROWS, 0)
    with pytest.raises(NotNormalizedError, match="not normalized"):
        curate_fetch(db, source.name, DAY0)


def test_a_night_that_crashed_after_fetching_is_caught_up_by_the_next(db, tmp_path):
    source = FileSource(tmp_path)
    source.night(db, ROWS, 0)
    source.fetch(db, [row(0, title="Changed on day 1"), *ROWS[1:]], 1)    # normalization never ran
    _, normalized, curated = source.night(db, [row(0, title="Changed on day 1"), *ROWS[1:]], 2)
    assert normalized.normalized == 1 and curated.upsert.updated == 1
    assert job(db, "p0")["title"] == "Changed on day 1"


def test_a_posting_valid_through_today_stays_open_all_day(db, tmp_path):
    """A deadline stated as a day lasts through that day: it is not closed at its first midnight."""
    source = FileSource(tmp_path)
    today = datetime.now(timezone.utc).date()
    rows = [row(1, valid_through=today.isoformat()), row(2, valid_through=(today - timedelta(days=1)).isoformat())]
    _, _, curated = source.night(db, rows, 0)
    assert curated.expired.closed == 1
    assert job(db, "p1")["closed_at"] is None and job(db, "p2")["closed_at"] is not None
