"""The first large load into an empty table builds its secondary indexes once, after the rows."""

import psycopg
import pytest

from jobpipe.store import upsert_jobs
from jobpipe.store.bulk import restore_deferred_indexes
from jobpipe_tests.store.helpers import make_posting, make_postings


def _indexes(db):
    """name -> (oid, definition) of every index on jobs."""
    rows = db.execute("SELECT c.relname, c.oid, pg_get_indexdef(c.oid) FROM pg_index i "
                      "JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'jobs'::regclass").fetchall()
    db.commit()
    return {name: (oid, definition) for name, oid, definition in rows}


def _secondary_names(db):
    return {r[0] for r in db.execute("SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                                     "WHERE i.indrelid = 'jobs'::regclass AND NOT i.indisunique")}


def _matches(db, where, *, index_only):
    db.execute("SET LOCAL enable_seqscan = " + ("off" if index_only else "on"))
    ids = {r[0] for r in db.execute(f"SELECT external_id FROM jobs WHERE {where}")}
    db.commit()
    return ids


def test_bulk_load_rebuilds_identical_secondary_indexes_that_find_every_row(db):
    before = _indexes(db)
    secondary = _secondary_names(db)
    assert {"jobs_cities", "jobs_skills", "jobs_dedupe_key", "jobs_open_posted_at"} <= secondary

    counts = upsert_jobs(db, make_postings(40), batch_size=10, bulk_load_rows=30)
    assert (counts.inserted, counts.updated, counts.unchanged) == (40, 0, 0)

    after = _indexes(db)
    assert {n: d for n, (_, d) in after.items()} == {n: d for n, (_, d) in before.items()}
    rebuilt = {n for n in after if after[n][0] != before[n][0]}
    assert rebuilt == secondary  # built afresh; the primary key and the unique (source, external_id) were kept
    assert db.execute("SELECT count(*) FROM jobs_deferred_indexes").fetchone()[0] == 0
    for where in ("skills @> '{pytorch}'", "cities @> '{Beijing}'", "dedupe_key LIKE 'company%'",
                  "closed_at IS NULL AND job_type = 'full_time'"):
        found = _matches(db, where, index_only=True)
        assert found and found == _matches(db, where, index_only=False)


def test_small_load_or_non_empty_table_keeps_its_indexes(db):
    before = _indexes(db)
    upsert_jobs(db, make_postings(5), bulk_load_rows=30)  # below the threshold
    assert _indexes(db) == before
    upsert_jobs(db, make_postings(40, start=5), batch_size=10, bulk_load_rows=30)  # table not empty
    assert _indexes(db) == before
    assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 45


def test_bulk_load_that_fails_half_way_restores_the_indexes(db):
    before = {n: d for n, (_, d) in _indexes(db).items()}
    good = make_postings(6)
    bad = make_posting(99, title=None)  # the second batch fails
    with pytest.raises(psycopg.errors.NotNullViolation, match='"title"'):
        upsert_jobs(db, good + [bad], batch_size=6, bulk_load_rows=5)
    db.rollback()
    assert {n: d for n, (_, d) in _indexes(db).items()} == before
    assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 6  # the first batch stays
    assert db.execute("SELECT count(*) FROM jobs_deferred_indexes").fetchone()[0] == 0


def test_index_left_dropped_by_a_dead_load_is_rebuilt_by_the_next_upsert(db):
    definition = _indexes(db)["jobs_skills"][1]
    db.execute("INSERT INTO jobs_deferred_indexes (index_name, definition) VALUES ('jobs_skills', %s)", (definition,))
    db.execute("DROP INDEX jobs_skills")
    db.commit()
    assert "jobs_skills" not in _indexes(db)

    upsert_jobs(db, make_postings(3))
    assert _indexes(db)["jobs_skills"][1] == definition
    assert db.execute("SELECT count(*) FROM jobs_deferred_indexes").fetchone()[0] == 0
    assert restore_deferred_indexes(db) == []  # nothing left to do


def test_first_load_copy_falls_back_to_the_merge_when_another_writer_got_there_first(db):
    from jobpipe.store.upsert import _copy_batch, fast_record_hash, staged_row

    upsert_jobs(db, make_postings(2))   # rows a concurrent writer inserted after the emptiness check
    postings = make_postings(5)
    postings[1] = make_posting(1, title="Changed 1")
    rows = [staged_row(p, fast_record_hash(p)) for p in postings]
    counts = _copy_batch(db, rows, len(rows))
    assert (counts.inserted, counts.updated, counts.unchanged) == (3, 1, 1)
    assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 5
    assert db.execute("SELECT title FROM jobs WHERE external_id = 'board-1'").fetchone()[0] == "Changed 1"


def test_bulk_load_counts_come_from_the_database_and_numbers_survive_exactly(db):
    from jobpipe.models import Salary

    postings = make_postings(30)
    postings[0] = make_posting(0, salary=Salary(min=12000.5, max=0.1 + 0.2, months_per_year=14), experience_min=2.5)
    counts = upsert_jobs(db, postings, batch_size=7, bulk_load_rows=10)
    assert (counts.inserted, counts.updated, counts.unchanged) == (30, 0, 0)
    row = db.execute("SELECT salary_min::text, salary_max::text, salary_months, experience_min::text "
                     "FROM jobs WHERE external_id = 'board-0'").fetchone()
    assert row == ("12000.5", "0.3", 14, "2.5")
    again = upsert_jobs(db, postings, batch_size=7, bulk_load_rows=10)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 30)
