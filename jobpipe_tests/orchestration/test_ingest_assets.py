"""raw_postings -> normalized_postings -> curated_jobs, one asset at a time, on the real database."""

from __future__ import annotations

from datetime import timedelta

from dagster import AssetCheckSeverity

from jobpipe.orchestration.assets.ingest import curated_jobs, normalized_postings, raw_postings
from jobpipe.orchestration.outcomes import failure_text, read_outcome
from jobpipe.pipeline.ingest import CurateOutcome, FetchOutcome, NormalizeOutcome, utc_today
from jobpipe_tests.orchestration.conftest import SOURCE, check, posting


def count(db, sql: str, *params) -> int:
    n = db.execute(sql, params).fetchone()[0]
    db.commit()   # hold no snapshot while the assets work
    return n


def test_raw_postings_stores_the_fetch_and_reports_it(run, db):
    result = run(raw_postings)
    assert result.success
    outcome = read_outcome(result, "raw_postings", FetchOutcome)
    assert outcome is not None and outcome.fetched == 10 and outcome.new_payloads == 10 and outcome.complete
    assert not outcome.replayed
    assert count(db, "SELECT count(*) FROM raw_postings WHERE source = %s", SOURCE) == 10
    assert count(db, "SELECT count(*) FROM fetch_runs WHERE source = %s AND partition_date = %s",
                 SOURCE, utc_today()) == 1
    # Nothing downstream ran: one asset is one stage.
    assert count(db, "SELECT count(*) FROM normalized_postings") == 0


def test_a_past_day_is_replayed_never_fetched(run, db, board):
    yesterday = utc_today() - timedelta(days=1)
    result = run(raw_postings, day=yesterday)
    assert not result.success
    assert "no raw snapshot" in failure_text(result, ["raw_postings"])
    assert count(db, "SELECT count(*) FROM fetch_runs") == 0   # no fetch happened for the past day

    # A stored day replays from its snapshot, even after the source changed meanwhile.
    assert run(raw_postings).success
    db.execute("UPDATE fetch_runs SET partition_date = %s", (yesterday,))
    db.commit()
    board.write([posting(1)])
    replay = run(raw_postings, day=yesterday)
    assert replay.success
    outcome = read_outcome(replay, "raw_postings", FetchOutcome)
    assert outcome is not None and outcome.replayed and outcome.fetched == 10
    assert count(db, "SELECT count(*) FROM fetch_runs") == 1


def test_normalized_postings_validates_and_checks_the_reject_rate(run, db, board, monkeypatch):
    board.write([posting(i) for i in range(1, 11)] + [posting(11, title="")])   # one without a title
    assert run(raw_postings).success
    result = run(normalized_postings)
    assert result.success
    outcome = read_outcome(result, "normalized_postings", NormalizeOutcome)
    assert outcome is not None and (outcome.passed, outcome.rejected) == (10, 1)
    assert count(db, "SELECT count(*) FROM normalized_postings WHERE source = %s", SOURCE) == 10
    assert count(db, "SELECT count(*) FROM quarantine WHERE source = %s", SOURCE) == 1
    evaluation = check(result, "reject_rate_below_threshold")
    assert not evaluation.passed and evaluation.severity == AssetCheckSeverity.ERROR   # 1 of 11 > 5%

    # The threshold is a resource setting (shown in the UI), set through its environment variable.
    monkeypatch.setenv("JOBPIPE_REJECT_RATE_THRESHOLD", "0.2")
    assert check(run(normalized_postings), "reject_rate_below_threshold").passed


def test_normalized_postings_without_a_snapshot_fails_with_the_reason(run):
    result = run(normalized_postings)
    assert not result.success
    assert failure_text(result, ["normalized_postings"]) == f"no raw snapshot of source {SOURCE!r} for {utc_today()}"


def test_curated_jobs_upserts_and_closes_what_vanished(run, db, board):
    assert run(raw_postings, normalized_postings).success
    result = run(curated_jobs)
    assert result.success
    outcome = read_outcome(result, "curated_jobs", CurateOutcome)
    assert outcome is not None and (outcome.inserted, outcome.updated, outcome.closed) == (10, 0, 0)
    assert outcome.terms_computed == 10
    assert count(db, "SELECT count(*) FROM jobs WHERE source = %s AND closed_at IS NULL", SOURCE) == 10
    assert check(result, "close_guard").passed and check(result, "listing_confirmed").passed

    # Tomorrow's listing (here: a re-run today) lacks two postings and changes one.
    board.write([posting(i) for i in range(1, 9) if i != 3] + [posting(3, title="Staff Data Engineer 3")])
    assert run(raw_postings, normalized_postings).success
    again = read_outcome(run(curated_jobs), "curated_jobs", CurateOutcome)
    assert again is not None
    assert (again.inserted, again.updated, again.unchanged, again.closed) == (0, 1, 7, 2)
    assert count(db, "SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL") == 2


def test_curated_jobs_refuses_a_mass_close_and_fails_its_check(run, db, board):
    assert run(raw_postings, normalized_postings, curated_jobs).success
    board.write([posting(1), posting(2)])   # 8 of 10 gone at once: more like a broken site than filled jobs
    assert run(raw_postings, normalized_postings).success
    result = run(curated_jobs)
    assert result.success   # the asset materializes; its check fails, visibly
    evaluation = check(result, "close_guard")
    assert not evaluation.passed and evaluation.severity == AssetCheckSeverity.ERROR
    assert "refused" in evaluation.description
    outcome = read_outcome(result, "curated_jobs", CurateOutcome)
    assert outcome is not None and outcome.close_refused and outcome.closed == 0 and outcome.would_close == 8
    assert count(db, "SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL") == 0
