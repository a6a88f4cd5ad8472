"""The keyword leg's posting lists (sql/0029): built, merged and read here.

``term_lists`` holds, per lexeme of ``job_terms``, the open postings that contain it as one
value of fixed-width records sorted by job id, so the keyword leg reads a handful of rows per
query instead of one ``job_terms`` row per matching posting (docs/search.md, "Keyword leg").

Two tiers keep a night's merge in proportion to what changed: tier 0 lists every open posting
as of its build; the postings changed since (``term_lists_dead``) are void there and listed as
they are now in tier 1, which each merge rebuilds from those postings alone. Every change to a
posting's terms or open state is queued by triggers in the writer's own transaction;
``merge_term_lists`` applies the queue. Readers use the lists only in a snapshot whose queue is
empty (``read_term_lists`` returns None otherwise), so a list is never read stale: between a
write and its merge, search answers from the GIN indexes as before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import psycopg

from jobpipe.db.rows import one

#: Description lexeme records: job id and the posting's ``search_length`` (BM25's length).
BODY = np.dtype([("id", ">i8"), ("len", ">i4")])
#: Title lexeme records: job id and one position (a phrase lookup needs them), per occurrence.
TITLE = np.dtype([("id", ">i8"), ("pos", ">i2")])
#: Filter value records (field 'f'): the job id alone.
FILTER = np.dtype([("id", ">i8")])


# The filter values listed (field 'f'), one list per value: the open postings of a city, a job
# type, a skill, or stated to be fully remote, so the keyword leg checks such a filter by
# intersecting sorted ids instead of probing a row per candidate. Each key means exactly the
# condition jobpipe.search.filters writes for it (tests compare the two).
def city_key(city: str) -> str:
    """``j.cities @> ARRAY[city]``."""
    return "city:" + city


def job_type_key(job_type: str) -> str:
    """``j.job_type = job_type``."""
    return "job_type:" + job_type


def skill_key(skill: str) -> str:
    """``j.skills @> ARRAY[skill]``."""
    return "skill:" + skill


#: ``j.remote = 'remote' AND j.field_origins->>'remote' IS DISTINCT FROM 'inferred'``.
REMOTE_KEY = "remote:stated"
#: A posting's filter keys, all of the above that hold for it (sql/0031 declares the function).
#: ``alias``: the table alias with its dot ("j."), or "".
FILTER_KEYS = ("jobpipe_filter_keys({alias}cities, {alias}skills, {alias}job_type, {alias}remote, "
               "{alias}field_origins)")
#: The dimensions whose keys combine (sql/0033), in the order a combined key names them.
COMBINED_PREFIXES = ("city:", "job_type:", "remote:")
#: A posting's single keys and its combinations of city, job type and stated remote: the
#: expression ``job_filter_vectors_keys`` indexes (sql/0033).
INDEXED_KEYS = (FILTER_KEYS + " || jobpipe_filter_combinations({alias}cities, {alias}job_type, {alias}remote, "
                "{alias}field_origins)")


def combined_key(keys: list[str]) -> str:
    """Two or three keys of different combined dimensions as the one key sql/0033 lists them under
    ("city:Berlin&job_type:intern&remote:stated")."""
    ordered = sorted(keys, key=lambda k: next(i for i, p in enumerate(COMBINED_PREFIXES) if k.startswith(p)))
    return "&".join(ordered)

#: Tier 0 is built again (and tier 1 emptied) once the postings changed since its build pass
#: this share of the open postings. Below it a merge rebuilds tier 1 only, at a cost in
#: proportion to those postings: measured at 100k postings, a full build 12.5 s; rewriting the
#: lists of 1,000 changed postings in place 9.4 s (they touch most long lists).
COMPACT_SHARE = 0.2


def _build(tier: int) -> list[str]:
    """The statements that list open postings in ``tier``: all of them (0), or the void ones (1).

    The records must come sorted by job id. Sorting (lexeme, job id) pairs was most of a build
    (27 s at 100k postings): instead the postings are read in job id order and a hash aggregate
    appends to each lexeme's value in that order (serial: no parallel workers). ``_in_order``
    checks every list read, so a plan that did not keep the order costs speed, never an answer.
    """
    void = "AND job_id IN (SELECT job_id FROM term_lists_dead)" if tier else ""
    return [
        "SET LOCAL work_mem = '512MB'",   # the hash aggregate holds every list while it builds them
        "SET LOCAL max_parallel_workers_per_gather = 0",
        "SET LOCAL enable_sort = off",
        f"""INSERT INTO term_lists (field, lexeme, tier, postings)
            SELECT 'b', lexeme, {tier}, string_agg(rec, ''::bytea) FROM (
                SELECT u.lexeme, int8send(t.job_id) || int4send(t.search_length) AS rec
                FROM (SELECT job_id, search_length, search_tsv FROM job_terms
                      WHERE closed_at IS NULL {void} ORDER BY job_id) t,
                     unnest(t.search_tsv) u) s
            GROUP BY lexeme""",
        # A lexeme stored without positions (array_to_tsvector) is listed at position 0.
        f"""INSERT INTO term_lists (field, lexeme, tier, postings)
            SELECT 't', lexeme, {tier}, string_agg(rec, ''::bytea) FROM (
                SELECT u.lexeme, int8send(t.job_id) || int2send(p) AS rec
                FROM (SELECT job_id, title_tsv FROM job_terms
                      WHERE closed_at IS NULL {void} ORDER BY job_id) t,
                     unnest(t.title_tsv) u, unnest(coalesce(nullif(u.positions, '{{}}'), '{{0}}')) p) s
            GROUP BY lexeme""",
        # The filter values: the keys of city_key, job_type_key, skill_key and REMOTE_KEY, as
        # jobpipe_filter_keys (sql/0031) declares them for the exact vector scan's index too.
        f"""INSERT INTO term_lists (field, lexeme, tier, postings)
            SELECT 'f', key, {tier}, string_agg(int8send(job_id), ''::bytea) FROM (
                SELECT t.job_id, k.key
                FROM (SELECT job_id, {FILTER_KEYS.format(alias='')} AS keys FROM job_terms
                      WHERE closed_at IS NULL {void} ORDER BY job_id) t,
                     unnest(t.keys) k(key)) s
            GROUP BY key""",
    ]


#: The merge's transaction id: never the same twice in a cluster, even after the state row is
#: deleted and made again, so a reader's cached void postings can never match another state.
_NEW_VERSION = "pg_current_xact_id()::text::bigint"


@dataclass(frozen=True)
class ListMerge:
    mode: str           # "current" (nothing queued) | "incremental" (tier 1 rebuilt) | "full"
    postings: int       # queued postings applied (full: postings listed)
    lists: int          # lists written
    seconds: float


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
        conn.execute("INSERT INTO term_lists_state DEFAULT VALUES ON CONFLICT (only_row) DO NOTHING")
        built = one(conn.execute("SELECT built_at IS NOT NULL FROM term_lists_state"))[0]
        queued = one(conn.execute("SELECT count(*) FROM term_lists_queue"))[0]
        if built and queued == 0 and not full:
            return ListMerge("current", 0, 0, time.perf_counter() - started)
        listed = one(conn.execute("SELECT count(*) FROM job_terms WHERE closed_at IS NULL"))[0]
        void = one(conn.execute(
            "SELECT count(*) FROM (SELECT job_id FROM term_lists_dead UNION SELECT job_id FROM term_lists_queue) v"))[0]
        if full or not built or void > COMPACT_SHARE * max(listed, 1):
            for statement in ("DELETE FROM term_lists", "DELETE FROM term_lists_dead", "DELETE FROM term_lists_queue",
                              *_build(0)):
                conn.execute(statement)
            conn.execute(f"UPDATE term_lists_state SET built_at = now(), merged_at = now(), version = {_NEW_VERSION}")
            mode, postings = "full", listed
        else:
            for statement in ("INSERT INTO term_lists_dead SELECT job_id FROM term_lists_queue ON CONFLICT DO NOTHING",
                              "DELETE FROM term_lists_queue", "DELETE FROM term_lists WHERE tier = 1", *_build(1)):
                conn.execute(statement)
            conn.execute(f"UPDATE term_lists_state SET merged_at = now(), version = {_NEW_VERSION}")
            mode, postings = "incremental", queued
        lists = one(conn.execute("SELECT count(*) FROM term_lists WHERE tier = %s", (0 if mode == "full" else 1,)))[0]
    if not conn.autocommit:
        conn.commit()
    return ListMerge(mode, postings, lists, time.perf_counter() - started)


def lists_state(conn: psycopg.Connection) -> dict[str, object]:
    """What an operator asks of the lists: built and merged when, postings waiting for the next
    merge (search answers from the GIN indexes meanwhile), postings void in tier 0."""
    row = conn.execute(
        "SELECT (SELECT built_at FROM term_lists_state), (SELECT merged_at FROM term_lists_state), "
        "(SELECT count(*) FROM term_lists_queue), (SELECT count(*) FROM term_lists_dead)").fetchone()
    assert row is not None
    built_at, merged_at, queued, void = row
    return {"current": built_at is not None and queued == 0, "built_at": built_at, "merged_at": merged_at,
            "queued": int(queued), "void": int(void)}


# --- reading ---------------------------------------------------------------------------------

_READ = """
SELECT 's', '', 0::int2, NULL::bytea, version FROM term_lists_state
WHERE built_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM term_lists_queue)
UNION ALL
SELECT 'd', '', 0::int2, (SELECT string_agg(int8send(job_id), ''::bytea ORDER BY job_id) FROM term_lists_dead), NULL
WHERE (SELECT version FROM term_lists_state) IS DISTINCT FROM %(known)s::bigint
UNION ALL
SELECT field::text, lexeme, tier, postings, NULL FROM term_lists WHERE field = 'b' AND lexeme = ANY(%(b)s)
UNION ALL
SELECT field::text, lexeme, tier, postings, NULL FROM term_lists WHERE field = 't' AND lexeme = ANY(%(t)s)
UNION ALL
SELECT field::text, lexeme, tier, CASE WHEN octet_length(postings) <= %(f_max)s THEN postings END, NULL
FROM term_lists WHERE field = 'f' AND lexeme = ANY(%(f)s)
"""
#: A filter value's list is read only up to this size (256k postings: ~3 ms to read and mask);
#: a longer one costs more than checking its condition on the rows of the few hundred
#: candidates a broad filter needs checked (at 1M postings a probe costs ~5-15 µs, and Beijing's
#: 80k-posting list read beat probing its candidates 27.7 ms to ~2 ms).
FILTER_LIST_MAX_BYTES = 256_000 * FILTER.itemsize

#: Void postings per database and state version: read again only after a merge.
_void_cache: dict[str, tuple[int, _Void]] = {}
_void_lock = threading.Lock()
#: A table of flags by job id up to this size; past it (job ids in the hundreds of millions) a
#: binary search in the sorted ids instead.
_FLAGS_MAX = 64_000_000


class _Void:
    """The postings whose tier-0 records are void, for fast membership tests."""

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        self.flags: np.ndarray | None = None
        if len(ids) and int(ids[-1]) < _FLAGS_MAX:
            self.flags = np.zeros(int(ids[-1]) + 1, dtype=bool)
            self.flags[ids] = True

    def mask(self, ids: np.ndarray) -> np.ndarray:
        """True where ``ids`` (sorted or not) are void."""
        if not len(self.ids) or not len(ids):
            return np.zeros(len(ids), dtype=bool)
        if self.flags is not None:
            inside = ids < len(self.flags)
            out = np.zeros(len(ids), dtype=bool)
            out[inside] = self.flags[ids[inside]]
            return out
        at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return self.ids[at] == ids


@dataclass
class TermLists:
    """The lists a query asked for, as one consistent snapshot: lexeme -> records (sorted)."""

    body: dict[str, np.ndarray]
    title: dict[str, np.ndarray]
    filters: dict[str, np.ndarray] = field(default_factory=dict)   # filter key -> sorted job ids


def _db_key(conn: psycopg.Connection) -> str:
    return f"{conn.info.host}:{conn.info.port}/{conn.info.dbname}"


def read_term_lists(conn: psycopg.Connection, body: Sequence[str], title: Sequence[str],
                    filters: Sequence[str] = ()) -> TermLists | None:
    """The lists of these lexemes and filter keys, or None when they may not be read (not built,
    or changes queued). A filter key no open posting has comes back as an empty list; one whose
    list is longer than ``FILTER_LIST_MAX_BYTES`` does not come back.

    One statement, so the lists, the void postings and the queue's emptiness come from one
    snapshot: an empty queue means every list reflects ``job_terms`` as that snapshot sees it.
    """
    key = _db_key(conn)
    with _void_lock:
        cached = _void_cache.get(key)
    state: int | None = None
    void_bytes: bytes | None = None
    void_read = False
    tiers: dict[tuple[str, str], list[tuple[int, bytes | None]]] = {}
    with conn.cursor(binary=True) as cur:
        cur.execute(_READ, {"known": cached[0] if cached else None, "b": list(body), "t": list(title),
                            "f": list(filters), "f_max": FILTER_LIST_MAX_BYTES}, prepare=True)
        for kind, lexeme, tier, postings, version in cur:
            if kind == "s":
                state = int(version)
            elif kind == "d":
                void_read, void_bytes = True, bytes(postings) if postings is not None else None
            else:
                tiers.setdefault((kind, lexeme), []).append((tier, bytes(postings) if postings is not None else None))
    if state is None:
        return None
    if void_read or cached is None:
        ids = np.frombuffer(void_bytes, ">i8").astype(np.int64) if void_bytes else np.empty(0, dtype=np.int64)
        cached = (state, _Void(ids))
        with _void_lock:
            _void_cache[key] = cached
    void = cached[1]
    out = TermLists({}, {}, {key: np.empty(0, dtype=np.int64) for key in filters})
    for (kind, lexeme), parts in tiers.items():
        if kind == "f":
            if any(postings is None for _, postings in parts):
                del out.filters[lexeme]   # too long to read: the caller checks the condition on rows
                continue
            runs = []
            for tier, postings in parts:
                ids = np.frombuffer(postings or b"", FILTER)["id"].astype(np.int64)
                if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):
                    ids.sort()   # see _in_order
                runs.append(_live(ids, void) if tier == 0 else ids)
            ids = runs[0] if len(runs) == 1 else np.concatenate(runs)
            if len(runs) > 1:
                ids.sort(kind="stable")   # two sorted runs, disjoint (tier 1 holds only void postings)
            out.filters[lexeme] = ids
            continue
        dtype, second, into = (BODY, "len", out.body) if kind == "b" else (TITLE, "pos", out.title)
        pieces = []
        for tier, postings in parts:
            assert postings is not None   # only filter lists are ever left out
            records = _in_order(np.frombuffer(postings, dtype), second)
            if tier == 0:
                records = records[~void.mask(records["id"].astype(np.int64))]
            pieces.append(records)
        if len(pieces) == 1:
            into[lexeme] = pieces[0]
        else:   # tier 0 holds no void posting and tier 1 only void ones: disjoint
            both = np.concatenate(pieces)
            into[lexeme] = both[np.lexsort((both[second], both["id"]))]
    return out


def _live(ids: np.ndarray, void: _Void) -> np.ndarray:
    return ids[~void.mask(ids)]


def _in_order(records: np.ndarray, second: str) -> np.ndarray:
    """The records sorted by job id (then position): the build's plan keeps that order (see
    ``_build``) and this check costs a comparison per record; a list out of order is sorted
    here rather than answered wrong."""
    ids = records["id"]
    if len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return records
    if second == "pos" and bool(np.all(ids[1:] >= ids[:-1])):
        same = ids[1:] == ids[:-1]
        if bool(np.all(records["pos"][1:][same] > records["pos"][:-1][same])):
            return records
    return records[np.lexsort((records[second], ids))]
