from datetime import date

import pytest

from jobpipe.pipeline.ingest import record_day
from jobpipe.store import CloseResult, close_missing, close_vanished, upsert_jobs
from jobpipe.store.operations import accept_close, pending_acceptance
from jobpipe_tests.store.helpers import make_postings


def _open(db, source="board"):
    return {r[0] for r in db.execute("SELECT external_id FROM jobs WHERE source = %s AND closed_at IS NULL", (source,))}


def test_complete_listing_closes_only_the_missing_postings_of_that_source(db):
    upsert_jobs(db, make_postings(10) + make_postings(4, source="site"))
    seen = [f"board-{i}" for i in range(10) if i not in (2, 7)]
    result = close_missing(db, "board", seen, complete=True)
    assert (result.closed, result.would_close, result.refused, result.open_before) == (2, 2, False, 10)
    assert _open(db) == set(seen)
    assert len(_open(db, "site")) == 4  # another source is never touched
    again = close_missing(db, "board", seen, complete=True)
    assert (again.closed, again.would_close) == (0, 0)


def test_incomplete_listing_closes_nothing(db):
    upsert_jobs(db, make_postings(10))
    result = close_missing(db, "board", ["board-1"], complete=False)
    assert result.closed == 0 and not result.refused and result.would_close == 9
    assert len(_open(db)) == 10


def test_guard_refuses_to_close_more_than_the_share(db):
    upsert_jobs(db, make_postings(10))
    result = close_missing(db, "board", [f"board-{i}" for i in range(6)], complete=True)  # 40% missing
    assert result.refused and result.closed == 0 and result.would_close == 4
    assert "4 of 10" in result.reason
    assert len(_open(db)) == 10
    allowed = close_missing(db, "board", [f"board-{i}" for i in range(6)], complete=True, max_share=0.5)
    assert not allowed.refused and allowed.closed == 4


def test_empty_complete_listing_is_refused(db):
    upsert_jobs(db, make_postings(5))
    result = close_missing(db, "board", [], complete=True)
    assert result.refused and result.closed == 0 and len(_open(db)) == 5


DAY1, DAY2 = date(2026, 10, 1), date(2026, 10, 2)


def _by_ids(db, ids: list[str]) -> CloseResult:
    return close_missing(db, "board", ids, complete=True)


def _by_listing(db, ids: list[str]) -> CloseResult:
    record_day(db, "board", DAY2, [{"external_id": i, "title": f"Role {i}"} for i in ids])
    return close_vanished(db, "board", DAY2)


@pytest.mark.parametrize("close", [_by_ids, _by_listing], ids=["close_missing", "close_vanished"])
def test_both_closes_share_the_guard_and_honour_an_accepted_close_once(db, close) -> None:
    """A list of ids and a fetch run's listing are two ways of saying what a source still lists:
    the mass-close guard and `jobpipe sources accept-close` treat them alike."""
    record_day(db, "board", DAY1, [{"external_id": f"board-{i}", "title": f"Role {i}"} for i in range(10)])
    upsert_jobs(db, make_postings(10))
    kept = ["board-0", "board-1"]

    refused = close(db, kept)                      # 80% missing: the guard refuses, nothing closes
    assert (refused.refused, refused.closed, refused.would_close, refused.accepted) == (True, 0, 8, False)
    assert len(_open(db)) == 10

    accept_close(db, "board")
    if close is _by_ids:                           # an unconfirmed listing neither closes nor uses it up
        doubtful = close_missing(db, "board", kept, complete=False)
        assert (doubtful.closed, doubtful.confirmed, doubtful.accepted) == (0, False, False)
        assert pending_acceptance(db, "board") is not None
    accepted = close(db, kept)
    assert (accepted.refused, accepted.closed, accepted.accepted) == (False, 8, True)
    assert "accepted by `jobpipe sources accept-close`" in accepted.reason
    assert _open(db) == set(kept) and pending_acceptance(db, "board") is None

    upsert_jobs(db, make_postings(10, start=10))   # ten more open, then a mass close again: refused again
    again = close(db, kept)
    assert again.refused and again.closed == 0 and len(_open(db)) == 12
