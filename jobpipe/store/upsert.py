"""Idempotent bulk upsert of normalized postings into ``jobs``.

Per batch: binary COPY into a temporary staging table, then one ``INSERT ... ON CONFLICT``
whose ``DO UPDATE`` only fires when the record hash differs (or the row was closed). An
unchanged posting is therefore not touched at all: no new row version, no index churn, no
WAL -- which is what makes a nightly re-run of an unchanged source nearly free. Counts come
from the database (``xmax = 0`` marks an inserted row), not from Python bookkeeping.

Keyword-search terms are not computed here: ``jobpipe.store.terms.sync_job_terms`` derives
them afterwards, only for postings whose search text changed (as embeddings are), so the
upsert stays a pure record write.
"""

from __future__ import annotations

import contextlib
import operator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import psycopg

from jobpipe.db.rows import one
from jobpipe.hashing import content_hash, listing_digest, record_digest
from jobpipe.models import NormalizedPosting
from jobpipe.rows import DERIVED_JOB_COLUMNS, JOB_LIFECYCLE_COLUMNS, POSTING_COLUMNS, Column, RowBuilder
from jobpipe.store.bulk import BULK_LOAD_ROWS, defer_secondary_indexes, restore_deferred_indexes
from jobpipe.store.dedupe import dedupe_key

#: What is staged and written, in COPY order: the posting's columns, the two the store derives,
#: and when the source showed this content (the rule that keeps replays from rolling rows back).
_OBSERVED = next(c for c in JOB_LIFECYCLE_COLUMNS if c.name == "observed_at")
_STAGED: tuple[Column, ...] = (*POSTING_COLUMNS, *DERIVED_JOB_COLUMNS, _OBSERVED)
#: (column, PostgreSQL type) of what is staged, in COPY order.
STAGED_COLUMNS: tuple[tuple[str, str], ...] = tuple((c.name, c.pg_type) for c in _STAGED)
_NAMES = [name for name, _ in STAGED_COLUMNS]
_UPDATED = [name for name in _NAMES if name not in ("source", "external_id")]
_POSTING_ROW = RowBuilder(POSTING_COLUMNS)
_CONTENT_AT = _POSTING_ROW.names.index("content_hash")

#: ANALYZE after a run that changed more rows than this, or more than ANALYZE_SHARE of the table.
ANALYZE_ROWS = 1000
ANALYZE_SHARE = 0.10


@dataclass(frozen=True)
class UpsertCounts:
    inserted: int = 0
    updated: int = 0     # rewritten because a stored field changed (reopened rows included)
    unchanged: int = 0   # not touched at all (older observations included)
    reopened: int = 0    # were closed, came back (also counted in ``updated``)
    older: int = 0       # not touched: the store holds content observed later (also in ``unchanged``)

    @property
    def total(self) -> int:
        return self.inserted + self.updated + self.unchanged

    def __add__(self, other: UpsertCounts) -> UpsertCounts:
        return UpsertCounts(self.inserted + other.inserted, self.updated + other.updated,
                            self.unchanged + other.unchanged, self.reopened + other.reopened,
                            self.older + other.older)

    def as_metadata(self) -> dict[str, int]:
        return {"inserted": self.inserted, "updated": self.updated, "unchanged": self.unchanged,
                "reopened": self.reopened, "older": self.older}


def fast_record_hash(posting: NormalizedPosting) -> str:
    """:func:`jobpipe.hashing.record_hash` from the posting's own ``content_hash``.

    The normalizer sets ``content_hash``; the store trusts it (it is what the ``content_hash``
    column stores too) instead of re-hashing the description for every posting of a re-run.
    """
    return record_digest(posting, posting.content_hash or content_hash(posting))


def staged_row(posting: NormalizedPosting, record: str | None = None, observed_at: datetime | None = None) -> list[Any]:
    """One posting as a staging row (hashes and dedupe key computed here)."""
    row = _POSTING_ROW(posting)
    if not row[_CONTENT_AT]:
        row[_CONTENT_AT] = content_hash(posting)
    row.append(record or fast_record_hash(posting))
    row.append(dedupe_key(posting))
    row.append(observed_at or datetime.now(timezone.utc))
    return row


_CREATE_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS jobs_stage ("
    + ", ".join(f"{name} {kind}" for name, kind in STAGED_COLUMNS)
    + ") ON COMMIT DELETE ROWS"
)
# The observation rule, one place: a staged row (s / EXCLUDED) never overwrites content observed
# later than its own, and reopens a closed row only when it was observed after the closing and
# has not expired. ``{new}`` is the staged row's alias, ``{old}`` the stored row's.
_NOT_OLDER = "({old}.observed_at IS NULL OR {new}.observed_at >= {old}.observed_at)"
_REOPENS = ("({old}.closed_at IS NOT NULL AND {new}.observed_at > {old}.closed_at "
            "AND ({new}.valid_through IS NULL OR {new}.valid_through > now()))")
# Per staged row, a primary-key probe (LATERAL): the cost of a batch does not grow with the table.
_COUNT_STAGED = f"""
SELECT count(*) FILTER (WHERE {_NOT_OLDER.format(old="j", new="s")} AND {_REOPENS.format(old="j", new="s")}),
       count(*) FILTER (WHERE NOT {_NOT_OLDER.format(old="j", new="s")})
FROM jobs_stage s
CROSS JOIN LATERAL (SELECT observed_at, closed_at FROM jobs
                    WHERE jobs.source = s.source AND jobs.external_id = s.external_id) j
"""
_MERGE = (
    f"INSERT INTO jobs AS j ({', '.join(_NAMES)}) SELECT {', '.join(_NAMES)} FROM jobs_stage "
    "ON CONFLICT (source, external_id) DO UPDATE SET "
    + ", ".join(f"{name} = EXCLUDED.{name}" for name in _UPDATED)
    + ", updated_at = now(), closed_at = CASE WHEN " + _REOPENS.format(old="j", new="EXCLUDED")
    + " THEN NULL ELSE j.closed_at END "
    "WHERE " + _NOT_OLDER.format(old="j", new="EXCLUDED")
    + " AND (j.record_hash IS DISTINCT FROM EXCLUDED.record_hash OR " + _REOPENS.format(old="j", new="EXCLUDED") + ") "
    "RETURNING (xmax = 0) AS inserted"
)


def _latest_per_key(postings: list[NormalizedPosting]) -> list[NormalizedPosting]:
    # ON CONFLICT cannot touch one row twice in a statement: keep the last copy of a key.
    by_key = dict(zip(map(_posting_key, postings), postings))
    return postings if len(by_key) == len(postings) else list(by_key.values())


_posting_key = operator.attrgetter("source", "external_id")
_posting_source = operator.attrgetter("source")


# The keys of a call and their record hashes go into a temporary table by binary COPY (the
# cheapest way in for 100k keys); the planner sees its size, so a large call hash-joins one
# scan of ``jobs`` while a small one probes the unique index key by key. (Probing the index
# for every key of a large call, chunk by chunk beside the hashing, was 3x slower: a random
# heap visit per key.)
_CREATE_KEYS = ("CREATE TEMP TABLE IF NOT EXISTS jobs_keys (i int4, source text, external_id text, record_hash text) "
                "ON COMMIT DELETE ROWS")
_CHANGED = """
SELECT k.i FROM jobs_keys k
LEFT JOIN jobs j ON j.source = k.source AND j.external_id = k.external_id
WHERE j.job_id IS NULL OR j.record_hash <> k.record_hash OR j.closed_at IS NOT NULL
"""


# A source whose listing did not change at all (the common nightly case) is recognized by one
# aggregate over its open rows: the count and two independent 60-bit sums of record-hash
# prefixes (120 bits: no accidental or crafted collision is practical), no per-key lookups.
_SOURCE_FINGERPRINTS = """
SELECT source, count(*), sum(('x' || substr(record_hash, 1, 15))::bit(60)::bigint),
       sum(('x' || substr(record_hash, 16, 15))::bit(60)::bigint)
FROM jobs WHERE source = ANY(%s) AND closed_at IS NULL GROUP BY source
"""
_REMEMBERED = """
SELECT source, listing_digest, postings, sum_high, sum_low FROM listing_fingerprints WHERE source = ANY(%s)
"""
_REMEMBER = """
INSERT INTO listing_fingerprints AS f (source, listing_digest, postings, sum_high, sum_low)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (source) DO UPDATE SET listing_digest = EXCLUDED.listing_digest, postings = EXCLUDED.postings,
    sum_high = EXCLUDED.sum_high, sum_low = EXCLUDED.sum_low, recorded_at = now()
WHERE f.listing_digest IS DISTINCT FROM EXCLUDED.listing_digest
"""

Fingerprint = tuple[int, int, int]
_LOW_60 = (1 << 60) - 1


@dataclass
class _Stored:
    """What the database holds for the sources of a call: open-row fingerprints and remembered listings."""

    fingerprints: dict[str, Fingerprint]
    remembered: dict[str, tuple[bytes, Fingerprint]]


def _read_stored(conn: psycopg.Connection, sources: list[str]) -> _Stored:
    fingerprints = {src: (n, int(a), int(b)) for src, n, a, b in conn.execute(_SOURCE_FINGERPRINTS, (sources,))}
    remembered = {src: (bytes(digest), (n, int(a), int(b)))
                  for src, digest, n, a, b in conn.execute(_REMEMBERED, (sources,))}
    return _Stored(fingerprints, remembered)


def _by_source(postings: list[NormalizedPosting], records: list[str],
               ) -> dict[str, tuple[list[NormalizedPosting], list[str]]]:
    sources = list(map(_posting_source, postings))
    if sources and sources.count(sources[0]) == len(sources):   # the usual call: one source's listing
        return {sources[0]: (postings, records)}
    groups: dict[str, tuple[list[NormalizedPosting], list[str]]] = {}
    for source, posting, record in zip(sources, postings, records):
        group = groups.get(source)
        if group is None:
            group = groups[source] = ([], [])
        group[0].append(posting)
        group[1].append(record)
    return groups


def _fingerprint(records: list[str]) -> Fingerprint:
    """Count and the two 60-bit prefix sums of record hashes, as ``_SOURCE_FINGERPRINTS`` computes them."""
    values = [int(record[:30], 16) for record in records]   # hex digits 1-15 and 16-30: two 60-bit parts
    return len(values), sum(v >> 60 for v in values), sum(v & _LOW_60 for v in values)


def _remember(conn: psycopg.Connection, listings: list[tuple[str, bytes, int, int, int]]) -> None:
    """Store (source, listing digest, fingerprint) rows: pure facts about a listing, true whenever written."""
    if listings:
        with conn.transaction():
            conn.cursor().executemany(_REMEMBER, listings)


def _hash_by_source(postings: list[NormalizedPosting],
                    ) -> dict[str, tuple[list[NormalizedPosting], list[str], Fingerprint]]:
    """Record hashes and their fingerprint, source by source."""
    # hashed in call order: walking postings in memory order is markedly faster than source by source
    groups = _by_source(postings, [fast_record_hash(p) for p in postings])
    return {source: (group, records, _fingerprint(records)) for source, (group, records) in groups.items()}


def _listings(hashed: dict[str, tuple[list[NormalizedPosting], list[str], Fingerprint]],
              digest: bytes | None) -> list[tuple[str, bytes, int, int, int]]:
    """The (source, call digest, fingerprint) facts to remember."""
    return [] if digest is None else [(source, digest, *fingerprint) for source, (_, _, fingerprint) in hashed.items()]


def _all_new(conn: psycopg.Connection, postings: list[NormalizedPosting],
             ) -> tuple[list[tuple[NormalizedPosting, str | None]], int]:
    """Every posting of a load into an empty table, hashed, with its listing remembered for the next run."""
    digest = listing_digest(postings)   # of the call as given: what the next identical call digests
    postings = _latest_per_key(postings)
    hashed = _hash_by_source(postings)
    _remember(conn, _listings(hashed, digest))
    return [pair for group, records, _ in hashed.values() for pair in zip(group, records)], len(postings)


def _needs_writing(conn: psycopg.Connection, postings: list[NormalizedPosting],
                   ) -> tuple[list[tuple[NormalizedPosting, str | None]], int]:
    """The postings whose row is missing, differs, or is closed -- with their record hash -- and
    how many distinct postings the call holds.

    Unchanged postings are dropped here, before the expensive part (staging, COPY, merge). A
    source counts as unchanged as a whole when the fingerprint of its open rows equals its
    postings' one. When the call's postings digest exactly as a remembered call did, the
    remembered fingerprints stand in for the postings' (no per-posting hashing: the common
    nightly re-run); otherwise they are computed from record hashes and remembered for next
    time. For sources still in doubt one join compares hashes in the database and returns only
    what differs. The merge's own ``WHERE`` still guards correctness if a row changes in between.
    """
    sources = list(dict.fromkeys(map(_posting_source, postings)))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="jobpipe-fingerprint") as side:
        # the database aggregates on its own core while Python digests; the connection is the thread's meanwhile
        reading = side.submit(_read_stored, conn, sources)
        digest = listing_digest(postings)
        stored = reading.result()
    if digest is not None and all(stored.remembered.get(s) == (digest, stored.fingerprints.get(s)) for s in sources):
        return [], sum(stored.remembered[s][1][0] for s in sources)
    postings = _latest_per_key(postings)
    hashed = _hash_by_source(postings)
    _remember(conn, _listings(hashed, digest))
    pairs = [pair for source, (group, records, fingerprint) in hashed.items()
             if fingerprint != stored.fingerprints.get(source) for pair in zip(group, records)]
    if not pairs:
        return [], len(postings)
    with conn.transaction():
        with conn.cursor() as cur:
            cur.execute(_CREATE_KEYS)
            with cur.copy("COPY jobs_keys FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int4", "text", "text", "text"])
                for i, (posting, record) in enumerate(pairs):
                    copy.write_row((i, posting.source, posting.external_id, record))
            changed = sorted(i for (i,) in cur.execute(_CHANGED))
    return [pairs[i] for i in changed], len(postings)


def _copy_batch(conn: psycopg.Connection, rows: list[list[Any]], batch_len: int) -> UpsertCounts:
    """First load into an empty table: COPY straight into ``jobs`` (every row is new).

    No staging and no conflict checks: PostgreSQL inserts COPY rows in multi-row batches.
    Should another writer have inserted one of these keys meanwhile, the unique key refuses
    the COPY and the batch goes through the merge instead.
    """
    try:
        with conn.transaction():
            with conn.cursor() as cur:
                cur.execute("SET LOCAL synchronous_commit = off")
                with cur.copy(f"COPY jobs ({', '.join(_NAMES)}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types([kind for _, kind in STAGED_COLUMNS])
                    for row in rows:
                        copy.write_row(row)
                inserted = cur.rowcount
    except psycopg.errors.UniqueViolation:
        if not conn.autocommit:
            conn.rollback()
        return _write_batch(conn, rows, batch_len)
    if not conn.autocommit:
        conn.commit()
    return UpsertCounts(inserted=inserted, unchanged=batch_len - len(rows))


def _write_batch(conn: psycopg.Connection, rows: list[list[Any]], batch_len: int) -> UpsertCounts:
    """COPY prepared rows into staging and merge them, in one committed transaction."""
    if not rows:
        return UpsertCounts(unchanged=batch_len)
    with conn.transaction():
        with conn.cursor() as cur:
            # A crash of the server may lose the last few batches' commits (a fraction of a
            # second of work); the upsert is idempotent, so a re-run restores them. In exchange
            # no batch waits for its WAL flush.
            cur.execute("SET LOCAL synchronous_commit = off")
            cur.execute(_CREATE_STAGE)
            with cur.copy(f"COPY jobs_stage ({', '.join(_NAMES)}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types([kind for _, kind in STAGED_COLUMNS])
                for row in rows:
                    copy.write_row(row)
            reopened, older = one(cur.execute(_COUNT_STAGED))
            flags = [r[0] for r in cur.execute(_MERGE).fetchall()]
            cur.execute("TRUNCATE jobs_stage")
    if not conn.autocommit:
        conn.commit()
    inserted = sum(1 for f in flags if f)
    return UpsertCounts(inserted, len(flags) - inserted, batch_len - len(flags), reopened, older)


def upsert_jobs(conn: psycopg.Connection, postings: list[NormalizedPosting], *, batch_size: int = 5000,
                bulk_load_rows: int = BULK_LOAD_ROWS, observed_at: datetime | None = None) -> UpsertCounts:
    """Insert new postings, rewrite changed or reopened ones, leave unchanged ones untouched.

    ``observed_at`` is when the source showed these postings (the fetch run's start; default:
    now). A row holding content observed later is never overwritten by an older observation
    (a replay or backfill of a past day), and a closed row is reopened only by an observation
    made after it was closed, of a posting that has not expired (``valid_through``).

    Each batch is its own committed transaction (a transaction already open on ``conn`` is
    committed first), so a failure keeps every earlier batch. ``ANALYZE jobs`` runs after a
    large change so the planner sees the new data before search and the embedding sync query it.

    The first large load into an empty table (``bulk_load_rows`` rows to write or more) drops
    the table's secondary indexes for its duration and builds them again at the end: readers still
    get correct (index-less, slower) answers meanwhile, and the load costs markedly less
    database CPU per row than updating every index row by row.
    """
    if not conn.autocommit and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.commit()
    if not postings:
        return UpsertCounts()
    observed = observed_at or datetime.now(timezone.utc)
    # Which postings need writing is decided up front (reads only; the merge's WHERE still
    # guards against rows changing meanwhile). Then preparing batch k+1 (Python: hashes,
    # dedupe keys) overlaps with the database merging batch k in a writer thread: the two
    # use different cores, and the connection is only ever used by one thread at a time.
    restore_deferred_indexes(conn)  # left behind by a bulk load that died half-way
    empty = len(postings) >= bulk_load_rows and not one(conn.execute("SELECT EXISTS (SELECT 1 FROM jobs)"))[0]
    # Into an empty table everything is new: no hashes to compare.
    todo, distinct = _all_new(conn, postings) if empty else _needs_writing(conn, postings)
    if not conn.autocommit:
        conn.commit()
    todos = [todo[start:start + batch_size] for start in range(0, len(todo), batch_size)]
    unchanged = distinct - len(todo)
    # A first load into an empty table: secondary indexes built once at the end, rows COPYed straight in.
    deferred = len(todo) >= bulk_load_rows and defer_secondary_indexes(conn, "jobs")
    write = _copy_batch if deferred else _write_batch
    counts = UpsertCounts(unchanged=unchanged)
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="jobpipe-upsert") as writer:
            pending: Future[UpsertCounts] | None = None
            for part in todos:
                rows = [staged_row(p, record, observed) for p, record in part]
                if pending is not None:
                    counts += pending.result()
                pending = writer.submit(write, conn, rows, len(rows))
            if pending is not None:
                counts += pending.result()
    except BaseException:
        if deferred:  # best effort; if the connection is gone, the next upsert rebuilds them
            with contextlib.suppress(psycopg.Error):
                if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                    conn.rollback()
                restore_deferred_indexes(conn)
        raise
    if deferred:
        restore_deferred_indexes(conn)
    changed = counts.inserted + counts.updated
    if changed:
        table_rows = one(conn.execute("SELECT count(*) FROM jobs"))[0]
        if changed > ANALYZE_ROWS or changed > ANALYZE_SHARE * table_rows:
            conn.execute("ANALYZE jobs")
    if not conn.autocommit:
        conn.commit()
    return counts
