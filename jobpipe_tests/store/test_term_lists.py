"""The keyword leg's posting lists always equal what job_terms says, or are not read at all."""

import threading
from dataclasses import replace

import numpy as np
import pytest

from jobpipe.db import connect
from jobpipe.store import close_missing, sync_job_terms, term_lists, upsert_jobs
from jobpipe.store.term_lists import (
    BODY,
    REMOTE_KEY,
    TITLE,
    city_key,
    job_type_key,
    lists_state,
    merge_term_lists,
    read_term_lists,
    skill_key,
)
from jobpipe_tests.store.helpers import make_postings


def _stored(db) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Every list as search reads it (tier 0 without its void postings, plus tier 1), decoded."""
    body = [r[0] for r in db.execute("SELECT DISTINCT lexeme FROM term_lists WHERE field = 'b'")]
    title = [r[0] for r in db.execute("SELECT DISTINCT lexeme FROM term_lists WHERE field = 't'")]
    keys = [r[0] for r in db.execute("SELECT DISTINCT lexeme FROM term_lists WHERE field = 'f'")]
    lists = read_term_lists(db, body, title, keys)
    db.commit()
    assert lists is not None
    out = {}
    for field, found in (("b", lists.body), ("t", lists.title)):
        for lexeme, records in found.items():
            if len(records):
                out[(field, lexeme)] = [(int(r[0]), int(r[1])) for r in records]
    for key, ids in lists.filters.items():
        if len(ids):
            out[("f", key)] = [(int(i), 0) for i in ids]
    return out


def _expected(db) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """The same lists computed from job_terms: open postings only, sorted by job id (and position);
    a filter key per value that search.filters would test (city, skill, job type, stated remote)."""
    out: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for lexeme, job_id, length in db.execute(
            "SELECT u.lexeme, t.job_id, t.search_length FROM job_terms t, unnest(t.search_tsv) u "
            "WHERE t.closed_at IS NULL ORDER BY 1, 2"):
        out.setdefault(("b", lexeme), []).append((job_id, length))
    for lexeme, job_id, position in db.execute(
            "SELECT u.lexeme, t.job_id, p FROM job_terms t, unnest(t.title_tsv) u, unnest(u.positions) p "
            "WHERE t.closed_at IS NULL ORDER BY 1, 2, 3"):
        out.setdefault(("t", lexeme), []).append((job_id, position))
    for job_id, cities, skills, job_type, remote, origin in db.execute(
            "SELECT job_id, cities, skills, job_type, remote, field_origins->>'remote' FROM job_terms "
            "WHERE closed_at IS NULL ORDER BY job_id"):
        keys = {city_key(c) for c in cities} | {skill_key(s) for s in skills}
        keys |= {job_type_key(job_type)} if job_type else set()
        keys |= {REMOTE_KEY} if remote == "remote" and origin != "inferred" else set()
        for key in keys:
            out.setdefault(("f", key), []).append((job_id, 0))
    db.commit()
    return out


def _queued(db) -> set[int]:
    rows = {r[0] for r in db.execute("SELECT job_id FROM term_lists_queue")}
    db.commit()
    return rows


def _load(db, postings) -> None:
    upsert_jobs(db, postings)
    sync_job_terms(db, workers=0)


def test_a_first_merge_builds_every_list_from_the_open_postings(db):
    _load(db, make_postings(30))
    assert read_term_lists(db, ["python"], []) is None      # not built yet: search uses the GIN indexes
    db.commit()
    merged = merge_term_lists(db)
    assert merged.mode == "full" and merged.postings == 30
    stored = _stored(db)
    assert stored == _expected(db) and len(stored) > 50
    assert not _queued(db)
    lists = read_term_lists(db, ["python", "no-such-word"], ["工程"])
    assert lists is not None and set(lists.body) == {"python"} and set(lists.title) == {"工程"}
    assert merge_term_lists(db).mode == "current"             # nothing queued: nothing rewritten


def test_edits_closings_reopenings_and_deletions_are_merged_exactly(db, monkeypatch):
    monkeypatch.setattr(term_lists, "COMPACT_SHARE", 0.5)    # merge these few changes into tier 1
    postings = make_postings(40)
    _load(db, postings)
    merge_term_lists(db)

    edited = list(postings)
    edited[3] = replace(postings[3], title="Rust 工程师 3", description_text="Now about Rust and WebAssembly.")
    edited[7] = replace(postings[7], description_text="")
    _load(db, edited)
    close_missing(db, "board", {p.external_id for p in edited[:35]}, complete=True)   # 35..39 closed
    db.commit()
    queued = _queued(db)
    assert len(queued) == 7                                   # 2 edits + 5 closings
    assert read_term_lists(db, ["rust"], []) is None          # changes queued: the lists are not read
    assert lists_state(db)["current"] is False and lists_state(db)["queued"] == 7
    db.commit()
    merged = merge_term_lists(db)
    assert merged.mode == "incremental" and merged.postings == 7
    assert _stored(db) == _expected(db)
    assert ("b", "webassembly") in _stored(db)
    # tier 0 still holds the closed postings' old records; they are void, not read
    closed = {r[0] for r in db.execute("SELECT job_id FROM jobs WHERE closed_at IS NOT NULL")}
    assert closed <= {r[0] for r in db.execute("SELECT job_id FROM term_lists_dead")}
    db.commit()

    _load(db, [replace(edited[36], title="Reopened Engineer 36")])   # reopened and re-worded
    db.execute("DELETE FROM jobs WHERE external_id = 'board-5'")      # cascades to job_terms
    db.commit()
    assert merge_term_lists(db).mode == "incremental"
    assert _stored(db) == _expected(db)


def test_tier_0_is_built_again_once_the_void_postings_pass_their_share(db, monkeypatch):
    monkeypatch.setattr(term_lists, "COMPACT_SHARE", 0.2)
    postings = make_postings(20)
    _load(db, postings)
    merge_term_lists(db)
    for night, (start, mode) in enumerate([(0, "incremental"), (2, "incremental"), (4, "full")]):
        changed = [replace(p, description_text=f"Night {night}: now Kotlin {i}") for i, p in
                   enumerate(postings[start:start + 2], start)]
        _load(db, changed)
        assert merge_term_lists(db).mode == mode          # 2, 4, then 6 of 20 void: 30% > 20%
        assert _stored(db) == _expected(db)
    assert db.execute("SELECT count(*) FROM term_lists_dead").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM term_lists WHERE tier = 1").fetchone()[0] == 0
    db.commit()


def test_a_new_city_or_job_type_moves_the_posting_between_filter_lists(db, monkeypatch):
    monkeypatch.setattr(term_lists, "COMPACT_SHARE", 0.5)
    postings = make_postings(6)
    _load(db, postings)
    merge_term_lists(db)
    _load(db, [replace(postings[0], cities=["Chengdu"], job_type="intern")])
    assert merge_term_lists(db).mode == "incremental"
    stored = _stored(db)
    assert stored == _expected(db)
    assert len(stored[("f", city_key("Chengdu"))]) == 1 and ("f", job_type_key("intern")) in stored


def test_a_change_outside_the_lists_queues_nothing(db):
    postings = make_postings(5)
    _load(db, postings)
    merge_term_lists(db)
    # The salary is copied into job_terms (a filter column), but the lists do not hold it.
    _load(db, [replace(postings[1], salary_annual_min=999999.0)])
    db.commit()
    assert db.execute("SELECT t.salary_annual_min FROM job_terms t JOIN jobs j USING (job_id) "
                      "WHERE j.external_id = 'board-1'").fetchone()[0] == 999999
    db.commit()
    assert _queued(db) == set()


def test_a_large_change_rebuilds_every_list(db):
    postings = make_postings(20)
    _load(db, postings)
    merge_term_lists(db)
    _load(db, [replace(p, description_text=f"Rewritten {i} with Kotlin") for i, p in enumerate(postings)])
    merged = merge_term_lists(db)
    assert merged.mode == "full"
    assert _stored(db) == _expected(db)


def test_truncating_the_terms_invalidates_the_lists(db):
    _load(db, make_postings(5))
    merge_term_lists(db)
    db.execute("TRUNCATE job_terms")
    db.commit()
    assert db.execute("SELECT count(*) FROM term_lists").fetchone()[0] == 0
    assert read_term_lists(db, ["python"], []) is None
    db.commit()


def test_a_write_during_a_merge_is_queued_again_after_it(db, database):
    """The merge holds the queue (EXCLUSIVE): a concurrent writer's enqueue waits for it, then lands."""
    postings = make_postings(5)
    _load(db, postings)
    merge_term_lists(db)
    job_id = db.execute("SELECT job_id FROM jobs WHERE external_id = 'board-2'").fetchone()[0]
    db.commit()
    with connect(database) as merger:
        merger.execute("LOCK TABLE term_lists_queue IN EXCLUSIVE MODE")   # as merge_term_lists does
        done = threading.Event()

        def write() -> None:
            with connect(database) as writer:
                writer.execute("UPDATE job_terms SET search_tsv = to_tsvector('simple', 'rewritten') WHERE job_id = %s",
                               (job_id,))
                writer.commit()
            done.set()

        thread = threading.Thread(target=write)
        thread.start()
        assert not done.wait(0.5)          # the writer's enqueue waits for the merge
        merger.commit()
    thread.join(10)
    assert done.is_set() and _queued(db) == {job_id}
    merge_term_lists(db)
    assert _stored(db) == _expected(db)


@pytest.mark.parametrize("field", ["b", "t"])
def test_a_list_stored_out_of_order_is_read_in_order(db, field):
    dtype = BODY if field == "b" else TITLE
    records = np.array([(9, 1), (3, 5), (7, 4)] if field == "b" else [(9, 1), (3, 5), (3, 2), (7, 4)], dtype=dtype)
    db.execute("INSERT INTO term_lists (field, lexeme, tier, postings) VALUES (%s, 'w', 0, %s)", (field, records.tobytes()))
    db.execute("INSERT INTO term_lists_state (only_row, built_at) VALUES (true, now()) "
               "ON CONFLICT (only_row) DO UPDATE SET built_at = now()")
    db.commit()
    lists = read_term_lists(db, ["w"] if field == "b" else [], ["w"] if field == "t" else [])
    assert lists is not None
    got = (lists.body if field == "b" else lists.title)["w"]
    assert [(int(a), int(b)) for a, b in got] == ([(3, 5), (7, 4), (9, 1)] if field == "b" else [(3, 2), (3, 5), (7, 4), (9, 1)])
    db.commit()
