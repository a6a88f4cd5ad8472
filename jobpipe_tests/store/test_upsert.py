from dataclasses import replace
from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.hashing import content_hash
from jobpipe.store import close_missing, upsert_jobs
from jobpipe.store.dedupe import dedupe_key
from jobpipe_tests.store.helpers import make_posting, make_postings


def _xmins(db):
    return dict(db.execute("SELECT external_id, xmin::text FROM jobs").fetchall())


def test_first_load_inserts_and_rerun_touches_nothing(db):
    postings = make_postings(30)
    first = upsert_jobs(db, postings, batch_size=7)
    assert (first.inserted, first.updated, first.unchanged) == (30, 0, 0)
    assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 30
    before = _xmins(db)
    db.commit()

    again = upsert_jobs(db, make_postings(30), batch_size=7)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 30)
    assert _xmins(db) == before  # no new row version for any unchanged posting


def test_changed_posting_is_rewritten_and_others_are_not(db):
    upsert_jobs(db, make_postings(10))
    before = _xmins(db)
    db.commit()
    postings = make_postings(10)
    postings[3] = replace(postings[3], url="https://elsewhere.example.com/3")
    postings[5] = replace(postings[5], title="Staff Backend Engineer 5")
    postings.append(make_posting(10))

    counts = upsert_jobs(db, postings)
    assert (counts.inserted, counts.updated, counts.unchanged) == (1, 2, 8)
    after = _xmins(db)
    changed = {k for k in before if after[k] != before[k]}
    assert changed == {"board-3", "board-5"}
    url, title = db.execute("SELECT url FROM jobs WHERE external_id = 'board-3'").fetchone()[0], \
        db.execute("SELECT title FROM jobs WHERE external_id = 'board-5'").fetchone()[0]
    assert url == "https://elsewhere.example.com/3" and title == "Staff Backend Engineer 5"


def test_stored_columns_hashes_and_key(db):
    posting = make_posting(1, title="高级 Python 工程师", company="示例科技有限公司", cities=["Beijing"])
    upsert_jobs(db, [posting])
    row = db.execute(
        "SELECT content_hash, dedupe_key, salary_min, salary_months, cities, skills, closed_at "
        "FROM jobs WHERE external_id = 'board-1'"
    ).fetchone()
    assert row[0] == content_hash(posting)
    assert row[1] == dedupe_key(posting) and row[1].startswith("示例科技|高级python工程师|beijing|")
    assert float(row[2]) == posting.salary.min and row[3] == 13
    assert row[4] == ["Beijing"] and row[5] == posting.skills and row[6] is None
    # Keyword terms are the terms step's job (jobpipe.store.terms), not the upsert's.
    assert db.execute("SELECT count(*) FROM job_terms").fetchone()[0] == 0


def test_duplicate_keys_in_one_call_keep_the_last(db):
    a = make_posting(1)
    b = replace(a, title="Renamed 1")
    counts = upsert_jobs(db, [a, b])
    assert counts.inserted == 1 and counts.total == 1
    assert db.execute("SELECT title FROM jobs").fetchone()[0] == "Renamed 1"


def test_closed_posting_that_returns_is_reopened(db):
    upsert_jobs(db, make_postings(10))
    result = close_missing(db, "board", [f"board-{i}" for i in range(9)], complete=True)
    assert result.closed == 1
    counts = upsert_jobs(db, make_postings(10))  # unchanged content, but it was closed
    assert (counts.inserted, counts.updated, counts.unchanged, counts.reopened) == (0, 1, 9, 1)
    assert db.execute("SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL").fetchone()[0] == 0


def test_large_upsert_analyzes_jobs(db):
    # (no pg_stat_reset(): that needs superuser rights an external server's owner role lacks)
    started = db.execute("SELECT clock_timestamp()").fetchone()[0]
    db.commit()
    upsert_jobs(db, make_postings(1200), batch_size=500)
    analyzed = db.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'jobs'").fetchone()[0]
    assert analyzed is not None and analyzed >= started


def test_fast_record_hash_equals_the_contract():
    from datetime import timedelta

    from jobpipe.hashing import record_hash
    from jobpipe.models import Salary
    from jobpipe.store.upsert import fast_record_hash

    variants = [
        make_posting(1),
        make_posting(2, salary=Salary(), skills=[], cities=[], posted_at=None, company=None),
        make_posting(3, skills=["b", "a"], salary=Salary(1.5, 2.0, "USD", "hour", None, True),
                     valid_through=datetime(2027, 1, 1, tzinfo=timezone(timedelta(hours=8))), raw_id=9, fetch_id=3),
    ]
    for posting in variants:
        assert fast_record_hash(posting) == record_hash(posting)
    assert fast_record_hash(variants[0]) != fast_record_hash(replace(variants[0], url="https://other"))


@settings(max_examples=60, deadline=None)
@given(
    skills=st.lists(st.text(max_size=6), max_size=5),
    cities=st.lists(st.text(max_size=6), max_size=3),
    salary_min=st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 10**6)),
    title=st.text(min_size=1, max_size=20),
)
def test_fast_record_hash_equals_the_contract_on_arbitrary_values(skills, cities, salary_min, title):
    from jobpipe.hashing import record_hash
    from jobpipe.models import Salary
    from jobpipe.store.upsert import fast_record_hash

    posting = make_posting(1, skills=skills, cities=cities, title=title, salary=Salary(min=salary_min))
    assert fast_record_hash(posting) == record_hash(posting)


def test_int_and_float_numbers_are_both_stored(db):
    from jobpipe.models import Salary

    posting = make_posting(1, salary=Salary(min=12000.5, max=20000, months_per_year=14),
                           experience_min=3, salary_annual_min=168007)
    upsert_jobs(db, [posting])
    row = db.execute("SELECT salary_min, salary_max, salary_months, experience_min, salary_annual_min FROM jobs").fetchone()
    assert [float(v) for v in row] == [12000.5, 20000.0, 14.0, 3.0, 168007.0]


def test_each_batch_is_committed_even_when_a_later_batch_fails(db):
    db.execute("SELECT 1")  # the caller left a transaction open (e.g. after reading postings)
    good = make_postings(6)
    bad = make_posting(99, title=None)  # invalid (title is required): the second batch fails
    try:
        upsert_jobs(db, good + [bad], batch_size=6)
    except Exception:
        db.rollback()
    else:
        raise AssertionError("a posting without a title must be rejected")
    assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 6


def _hashed(postings):
    """As the normalizer hands them over: with their content hash set."""
    return [replace(p, content_hash=content_hash(p)) for p in postings]


def _counting_record_hashes(monkeypatch):
    import jobpipe.store.upsert as upsert_module

    calls = []
    real = upsert_module.fast_record_hash
    monkeypatch.setattr(upsert_module, "fast_record_hash", lambda p: calls.append(p.external_id) or real(p))
    return calls


def test_unchanged_listing_is_not_hashed_and_a_changed_one_is_diffed(db, monkeypatch):
    a, b = _hashed(make_postings(6, source="a")), _hashed(make_postings(6, source="b"))
    upsert_jobs(db, a + b)
    db.commit()
    before = _xmins(db)
    hashed = _counting_record_hashes(monkeypatch)
    assert upsert_jobs(db, a + b).unchanged == 12
    assert hashed == []   # the call digests as the remembered one and the open rows still match

    b2 = list(b)
    b2[2] = replace(b2[2], url="https://elsewhere.example.com/b2")
    counts = upsert_jobs(db, a + b2)
    assert (counts.inserted, counts.updated, counts.unchanged) == (0, 1, 11)
    after = _xmins(db)
    assert {k for k in before if after[k] != before[k]} == {"b-2"}
    assert len(hashed) == 12
    hashed.clear()
    assert upsert_jobs(db, a + b2).unchanged == 12
    assert hashed == []   # remembered by the run that wrote it

    # Same count, one posting swapped for another: not mistaken for unchanged.
    swapped = a[:5] + _hashed([make_posting(9, source="a")])
    assert (upsert_jobs(db, swapped).inserted, len(hashed)) == (1, 6)
    # A subset of the open rows is not "the same listing" either (though nothing in it changed).
    assert upsert_jobs(db, a[:5]).unchanged == 5


def test_remembered_listing_is_rechecked_against_the_rows(db):
    """A remembered listing only vouches for the postings: rows edited, closed or deleted since are repaired."""
    postings = _hashed(make_postings(8))
    upsert_jobs(db, postings)
    db.commit()
    # Since the listing was remembered, another writer rewrote one row, closed one and deleted one.
    db.execute("UPDATE jobs SET url = 'https://tampered.example.com', record_hash = md5('x') WHERE external_id = 'board-3'")
    db.execute("UPDATE jobs SET closed_at = now() WHERE external_id = 'board-5'")
    db.execute("DELETE FROM jobs WHERE external_id = 'board-6'")
    db.commit()
    counts = upsert_jobs(db, postings)
    assert (counts.inserted, counts.updated, counts.unchanged, counts.reopened) == (1, 2, 5, 1)
    assert db.execute("SELECT url FROM jobs WHERE external_id = 'board-3'").fetchone()[0] == postings[3].url
    assert db.execute("SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL").fetchone()[0] == 0


def test_a_changed_field_is_written_even_when_the_listing_was_remembered(db):
    from jobpipe.models import Salary

    postings = _hashed(make_postings(5))
    upsert_jobs(db, postings)
    db.commit()
    edits = {
        "posted_at": datetime(2026, 11, 2, tzinfo=timezone.utc),
        "valid_through": datetime(2027, 1, 1, tzinfo=timezone.utc),
        "salary": Salary(min=1, max=2, currency="USD", period="hour"),
        "experience_min": 2.0,
        "url": "https://jobs.example.com/moved",
    }
    for name, value in edits.items():
        changed = list(postings)
        changed[1] = replace(changed[1], **{name: value})
        counts = upsert_jobs(db, changed)
        assert (counts.updated, counts.unchanged) == (1, 4), name
        postings = changed


def test_remembered_listing_with_duplicate_keys_counts_each_posting_once(db, monkeypatch):
    a = _hashed([make_posting(1)])[0]
    b = _hashed([replace(a, title="Renamed 1", content_hash="")])[0]
    assert upsert_jobs(db, [a, b]).inserted == 1
    db.commit()
    hashed = _counting_record_hashes(monkeypatch)
    again = upsert_jobs(db, [a, b])
    assert (again.inserted, again.updated, again.unchanged, hashed) == (0, 0, 1, [])
    assert db.execute("SELECT title FROM jobs").fetchone()[0] == "Renamed 1"
