"""The keyword leg's posting lists (sql/0029): built, merged and read here.

``term_lists`` holds, per lexeme of ``job_terms``, the open postings that contain it as one
value of fixed-width records sorted by job id, so the keyword leg reads a handful of rows per
query instead of one ``job_terms`` row per matching posting (docs/search.md, "Keyword leg").

Every change to a posting's terms or open state is queued by triggers in the writer's own
transaction; ``merge_term_lists`` applies the queue. Readers use the lists only in a snapshot
whose queue is empty (``read_term_lists`` returns None otherwise), so a list is never read
stale: between a write and its merge, search answers from the GIN indexes as before.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import psycopg

from jobpipe.db.rows import one

#: Description lexeme records: job id and the posting's ``search_length`` (BM25's length).
BODY = np.dtype([("id", ">i8"), ("len", ">i4")])
#: Title lexeme records: job id and one position (a phrase lookup needs them), per occurrence.
TITLE = np.dtype([("id", ">i8"), ("pos", ">i2")])
FIELDS = {"b": BODY, "t": TITLE}

#: A merge rebuilds every list at once when more than this share of the listed postings is
#: queued. Every posting touches a few hundred lists, common words' long lists among them, so
#: an incremental merge rewrites most of the bytes soon: measured at 100k postings, a full
#: build 12.5 s, merging 1,000 changed postings 9.4 s, 3,000 already 20.7 s.
FULL_BUILD_SHARE = 0.01
#: Lists read and rewritten per statement by an incremental merge.
_MERGE_CHUNK = 2_000

_FULL_BUILD = [
    "DELETE FROM term_lists",
    # The hash aggregate holds every list while it builds them.
    "SET LOCAL work_mem = '512MB'",
    # The records must come sorted by job id. Sorting (lexeme, job id) pairs was most of the
    # build (27 s at 100k postings): instead the postings are read in job id order and a hash
    # aggregate appends to each lexeme's value in that order (serial: no parallel workers).
    # read_term_lists checks the order of every list it returns, so a plan that did not keep
    # it could cost speed, never a wrong answer.
    "SET LOCAL max_parallel_workers_per_gather = 0",
    "SET LOCAL enable_sort = off",
    """INSERT INTO term_lists (field, lexeme, postings)
       SELECT 'b', lexeme, string_agg(rec, ''::bytea) FROM (
           SELECT u.lexeme, int8send(t.job_id) || int4send(t.search_length) AS rec
           FROM (SELECT job_id, search_length, search_tsv FROM job_terms WHERE closed_at IS NULL ORDER BY job_id) t,
                unnest(t.search_tsv) u) s
       GROUP BY lexeme""",
    # A lexeme stored without positions (array_to_tsvector) is listed at position 0.
    """INSERT INTO term_lists (field, lexeme, postings)
       SELECT 't', lexeme, string_agg(rec, ''::bytea) FROM (
           SELECT u.lexeme, int8send(t.job_id) || int2send(p) AS rec
           FROM (SELECT job_id, title_tsv FROM job_terms WHERE closed_at IS NULL ORDER BY job_id) t,
                unnest(t.title_tsv) u, unnest(coalesce(nullif(u.positions, '{}'), '{0}')) p) s
       GROUP BY lexeme""",
    "DELETE FROM term_lists_queue",
]
_STATE_BUILT = """
INSERT INTO term_lists_state (only_row, built_at, merged_at) VALUES (true, now(), now())
ON CONFLICT (only_row) DO UPDATE SET built_at = now(), merged_at = now()
"""
_NEW_BODY = """
SELECT u.lexeme, t.job_id, t.search_length FROM job_terms t, unnest(t.search_tsv) u
WHERE t.job_id = ANY(%s) AND t.closed_at IS NULL
"""
_NEW_TITLE = """
SELECT u.lexeme, t.job_id, p FROM job_terms t, unnest(t.title_tsv) u, unnest(coalesce(nullif(u.positions, '{}'), '{0}')) p
WHERE t.job_id = ANY(%s) AND t.closed_at IS NULL
"""
_READ = """
SELECT field::text, lexeme, postings FROM term_lists WHERE field = 'b' AND lexeme = ANY(%(b)s)
UNION ALL
SELECT field::text, lexeme, postings FROM term_lists WHERE field = 't' AND lexeme = ANY(%(t)s)
UNION ALL
SELECT 'q', '', NULL WHERE EXISTS (SELECT 1 FROM term_lists_queue)
                        OR NOT EXISTS (SELECT 1 FROM term_lists_state WHERE built_at IS NOT NULL)
"""


@dataclass(frozen=True)
class ListMerge:
    mode: str           # "current" (nothing queued) | "incremental" | "full"
    postings: int       # queued postings applied (full: postings listed)
    lists: int          # lists written
    seconds: float

    def as_metadata(self) -> dict[str, object]:
        return {"term_lists": self.mode, "term_lists_postings": self.postings, "term_lists_written": self.lists}


def merge_term_lists(conn: psycopg.Connection, *, full: bool = False) -> ListMerge:
    """Apply the queued changes to the lists (or build them all); commits.

    The queue is locked for the merge (EXCLUSIVE: readers go on, a writer's enqueue waits), so a
    posting changed while the merge runs is queued again after it and never lost. Searches
    meanwhile see the queue still full and answer from the GIN indexes.
    """
    started = time.perf_counter()
    if not conn.autocommit and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.commit()
    with conn.transaction():
        conn.execute("LOCK TABLE term_lists_queue IN EXCLUSIVE MODE")
        built = conn.execute("SELECT built_at IS NOT NULL FROM term_lists_state").fetchone()
        queued = one(conn.execute("SELECT count(*) FROM term_lists_queue"))[0]
        if built and built[0] and queued == 0 and not full:
            return ListMerge("current", 0, 0, time.perf_counter() - started)
        listed = one(conn.execute("SELECT count(*) FROM job_terms WHERE closed_at IS NULL"))[0]
        if full or not (built and built[0]) or queued > FULL_BUILD_SHARE * max(listed, 1):
            for statement in _FULL_BUILD:
                conn.execute(statement)
            conn.execute(_STATE_BUILT)
            lists = one(conn.execute("SELECT count(*) FROM term_lists"))[0]
            result = ListMerge("full", listed, lists, 0.0)
        else:
            written = _merge_queue(conn)
            conn.execute("UPDATE term_lists_state SET merged_at = now()")
            result = ListMerge("incremental", queued, written, 0.0)
    if not conn.autocommit:
        conn.commit()
    return ListMerge(result.mode, result.postings, result.lists, time.perf_counter() - started)


def _merge_queue(conn: psycopg.Connection) -> int:
    """Take the queued postings out of the lists that held them, add their current entries."""
    queued = conn.execute("DELETE FROM term_lists_queue RETURNING job_id, old_body, old_title").fetchall()
    changed = np.array(sorted(r[0] for r in queued), dtype=np.int64)
    ids = changed.tolist()
    fresh: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for lexeme, job_id, length in conn.execute(_NEW_BODY, (ids,)):
        fresh[("b", lexeme)].append((job_id, length))
    for lexeme, job_id, position in conn.execute(_NEW_TITLE, (ids,)):
        fresh[("t", lexeme)].append((job_id, position))
    affected = set(fresh)
    for _, old_body, old_title in queued:
        affected.update(("b", lexeme) for lexeme in old_body or ())
        affected.update(("t", lexeme) for lexeme in old_title or ())
    keys = sorted(affected)
    written = 0
    for start in range(0, len(keys), _MERGE_CHUNK):
        chunk = keys[start:start + _MERGE_CHUNK]
        current = _read_lists(conn, chunk)
        rows = []
        for key in chunk:
            merged = _merged(key[0], current.get(key), changed, fresh.get(key, ()))
            rows.append((key[0], key[1], merged))
        written += _write_lists(conn, rows)
    return written


def _merged(field: str, stored: bytes | None, changed: np.ndarray,
            fresh: Sequence[tuple[int, int]]) -> bytes | None:
    """One list without the changed postings' old records, with their new ones; None if empty."""
    dtype = FIELDS[field]
    records = np.frombuffer(stored, dtype) if stored else np.empty(0, dtype)
    if len(records):
        at = np.searchsorted(changed, records["id"])
        gone = (at < len(changed)) & (changed[np.minimum(at, len(changed) - 1)] == records["id"])
        records = records[~gone]
    if fresh:
        added = np.array(list(fresh), dtype=dtype)
        records = np.concatenate([records, added])
        records = records[np.lexsort((records["len" if field == "b" else "pos"], records["id"]))]
    # (concatenate returns native byte order: back to the stored big-endian records)
    return records.astype(dtype, copy=False).tobytes() if len(records) else None


def _read_lists(conn: psycopg.Connection, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
    body = [lexeme for field, lexeme in keys if field == "b"]
    title = [lexeme for field, lexeme in keys if field == "t"]
    with conn.cursor(binary=True) as cur:
        cur.execute(_READ, {"b": body, "t": title})
        return {(field, lexeme): bytes(postings) for field, lexeme, postings in cur if field != "q"}


def _write_lists(conn: psycopg.Connection, rows: Iterable[tuple[str, str, bytes | None]]) -> int:
    rows = list(rows)
    emptied = [(field, lexeme) for field, lexeme, postings in rows if postings is None]
    if emptied:
        conn.execute("DELETE FROM term_lists t USING unnest(%s::text[], %s::text[]) AS e(field, lexeme) "
                     "WHERE t.field = e.field::\"char\" AND t.lexeme = e.lexeme",
                     ([f for f, _ in emptied], [lex for _, lex in emptied]))
    kept = [r for r in rows if r[2] is not None]
    if kept:
        with conn.cursor() as cur:
            cur.execute("CREATE TEMP TABLE IF NOT EXISTS term_lists_stage (field text, lexeme text, postings bytea)"
                        " ON COMMIT DROP")
            with cur.copy("COPY term_lists_stage FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", "bytea"])
                for row in kept:
                    copy.write_row(row)
            cur.execute("INSERT INTO term_lists (field, lexeme, postings) SELECT field::\"char\", lexeme, postings "
                        "FROM term_lists_stage ON CONFLICT (field, lexeme) DO UPDATE SET postings = EXCLUDED.postings")
            cur.execute("TRUNCATE term_lists_stage")
    return len(rows)


@dataclass
class TermLists:
    """The lists a query asked for, as one consistent snapshot: lexeme -> records."""

    body: dict[str, np.ndarray]
    title: dict[str, np.ndarray]


def read_term_lists(conn: psycopg.Connection, body: Sequence[str], title: Sequence[str]) -> TermLists | None:
    """The lists of these lexemes, or None when they may not be read (not built, or changes queued).

    One statement, so the lists and the queue's emptiness come from one snapshot: an empty queue
    means every list reflects ``job_terms`` as that snapshot sees it.
    """
    out = TermLists({}, {})
    with conn.cursor(binary=True) as cur:
        cur.execute(_READ, {"b": list(body), "t": list(title)}, prepare=True)
        for field, lexeme, postings in cur:
            if field == "q":
                return None
            if field == "b":
                out.body[lexeme] = _in_order(np.frombuffer(postings, BODY), "len")
            else:
                out.title[lexeme] = _in_order(np.frombuffer(postings, TITLE), "pos")
    return out


def _in_order(records: np.ndarray, second: str) -> np.ndarray:
    """The records sorted by job id (then position): the full build's plan keeps that order
    (see ``_FULL_BUILD``) and this check costs a comparison per record; a list out of order is
    sorted here rather than answered wrong."""
    ids = records["id"]
    if len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return records
    if second == "pos" and bool(np.all(ids[1:] >= ids[:-1])):
        same = ids[1:] == ids[:-1]
        if bool(np.all(records["pos"][1:][same] > records["pos"][:-1][same])):
            return records
    return records[np.lexsort((records[second], ids))]
