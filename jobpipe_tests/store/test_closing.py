from jobpipe.store import close_missing, upsert_jobs
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
