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
import hashlib
import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

import psycopg

from jobpipe.hashing import _NOT_RECORDED, _canonical, content_hash
from jobpipe.models import NormalizedPosting, Salary
from jobpipe.store.bulk import BULK_LOAD_ROWS, defer_gin_indexes, restore_deferred_indexes
from jobpipe.store.dedupe import dedupe_key

#: (column, PostgreSQL type) of what is staged, in COPY order.
STAGED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("source", "text"), ("external_id", "text"), ("title", "text"), ("company", "text"),
    ("location_raw", "text"), ("cities", "text[]"), ("country", "text"), ("remote", "text"),
    ("job_type", "text"), ("seniority", "text"), ("salary_min", "float8"), ("salary_max", "float8"),
    ("salary_currency", "text"), ("salary_period", "text"), ("salary_months", "int4"),
    ("salary_negotiable", "bool"), ("salary_annual_min", "float8"), ("salary_annual_max", "float8"),
    ("experience_min", "float8"), ("experience_max", "float8"), ("degree", "text"), ("skills", "text[]"),
    ("language", "text"), ("description_text", "text"), ("url", "text"), ("posted_at", "timestamptz"),
    ("valid_through", "timestamptz"), ("content_hash", "text"), ("record_hash", "text"),
    ("dedupe_key", "text"),
)
_NAMES = [name for name, _ in STAGED_COLUMNS]
_UPDATED = [name for name in _NAMES if name not in ("source", "external_id")]

#: ANALYZE after a run that changed more rows than this, or more than ANALYZE_SHARE of the table.
ANALYZE_ROWS = 1000
ANALYZE_SHARE = 0.10


@dataclass(frozen=True)
class UpsertCounts:
    inserted: int = 0
    updated: int = 0     # rewritten because a stored field changed (reopened rows included)
    unchanged: int = 0   # not touched at all
    reopened: int = 0    # were closed, came back (also counted in ``updated``)

    @property
    def total(self) -> int:
        return self.inserted + self.updated + self.unchanged

    def __add__(self, other: "UpsertCounts") -> "UpsertCounts":
        return UpsertCounts(self.inserted + other.inserted, self.updated + other.updated,
                            self.unchanged + other.unchanged, self.reopened + other.reopened)

    def as_metadata(self) -> dict[str, int]:
        return {"inserted": self.inserted, "updated": self.updated, "unchanged": self.unchanged,
                "reopened": self.reopened}


_RECORDED = [f.name for f in fields(NormalizedPosting) if f.name not in _NOT_RECORDED]
_SALARY = [f.name for f in fields(Salary)]


def _canonical_value(value: Any) -> Any:
    # The shapes a NormalizedPosting field takes, canonicalized exactly as hashing._canonical
    # does, without its per-element recursion; anything else goes through _canonical itself.
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list) and all(type(item) is str for item in value):
        return sorted(value, key=_json_string) if len(value) > 1 else list(value)
    return _canonical(value)


#: ``json.dumps(text, ensure_ascii=False)`` for a str, minus the per-call encoder set-up.
_json_string = json.encoder.encode_basestring
#: ``json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, built once.
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def fast_record_hash(posting: NormalizedPosting) -> str:
    """Exactly :func:`jobpipe.hashing.record_hash`, several times faster.

    A re-run hashes every posting to find the few that changed, so this is the hot path of
    an unchanged run; ``dataclasses.asdict``'s deep copy and the generic recursion were most
    of its cost. A test pins the equality.
    """
    # Most fields are str or None, which canonicalize to themselves: no call for those.
    data = {name: value if value is None or type(value) is str else _canonical_value(value)
            for name in _RECORDED for value in (getattr(posting, name),)}
    salary = posting.salary
    data["salary"] = {name: _canonical_value(getattr(salary, name)) for name in _SALARY}
    text = _CANONICAL_JSON(data)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _float(value: Any) -> float | None:
    # Binary COPY wants exactly a float for float8 (a Decimal or a numeric string would fail).
    return None if value is None else float(value)


def staged_row(posting: NormalizedPosting, record: str | None = None) -> tuple[Any, ...]:
    """One posting as a staging row (hashes and dedupe key computed here)."""
    s = posting.salary
    return (
        posting.source, posting.external_id, posting.title, posting.company, posting.location_raw,
        list(posting.cities), posting.country, posting.remote, posting.job_type, posting.seniority,
        _float(s.min), _float(s.max), s.currency, s.period,
        None if s.months_per_year is None else int(s.months_per_year), bool(s.negotiable),
        _float(posting.salary_annual_min), _float(posting.salary_annual_max),
        _float(posting.experience_min), _float(posting.experience_max),
        posting.degree, list(posting.skills), posting.language, posting.description_text or "", posting.url,
        posting.posted_at, posting.valid_through,
        posting.content_hash or content_hash(posting), record or fast_record_hash(posting),
        dedupe_key(posting),
    )


_CREATE_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS jobs_stage ("
    + ", ".join(f"{name} {kind}" for name, kind in STAGED_COLUMNS)
    + ") ON COMMIT DELETE ROWS"
)
_COUNT_REOPENING = """
SELECT count(*) FROM jobs j JOIN jobs_stage s USING (source, external_id)
WHERE j.closed_at IS NOT NULL
"""
_MERGE = (
    f"INSERT INTO jobs AS j ({', '.join(_NAMES)}) SELECT {', '.join(_NAMES)} FROM jobs_stage "
    "ON CONFLICT (source, external_id) DO UPDATE SET "
    + ", ".join(f"{name} = EXCLUDED.{name}" for name in _UPDATED)
    + ", updated_at = now(), closed_at = NULL "
    "WHERE j.record_hash IS DISTINCT FROM EXCLUDED.record_hash OR j.closed_at IS NOT NULL "
    "RETURNING (xmax = 0) AS inserted"
)


def _latest_per_key(postings: list[NormalizedPosting]) -> list[NormalizedPosting]:
    # ON CONFLICT cannot touch one row twice in a statement: keep the last copy of a key.
    by_key = {(p.source, p.external_id): p for p in postings}
    return list(by_key.values())


_STORED_STATE = """
SELECT j.source, j.external_id, j.record_hash, j.closed_at IS NOT NULL
FROM unnest(%s::text[], %s::text[]) AS k(source, external_id)
JOIN jobs j ON j.source = k.source AND j.external_id = k.external_id
"""


def _needs_writing(conn: psycopg.Connection, postings: list[NormalizedPosting]) -> list[tuple[NormalizedPosting, str]]:
    """The postings whose row is missing, differs, or is closed -- with their record hash.

    Unchanged postings are dropped here, before the expensive part (staging, COPY, merge):
    a re-run of an unchanged source costs one hash per posting and one lookup per batch.
    The merge's own ``WHERE`` still guards correctness if a row changes in between.
    """
    stored = {(src, ext): (rec, closed) for src, ext, rec, closed in conn.execute(
        _STORED_STATE, ([p.source for p in postings], [p.external_id for p in postings]))}
    out = []
    for posting in postings:
        record = fast_record_hash(posting)
        state = stored.get((posting.source, posting.external_id))
        if state is None or state[0] != record or state[1]:
            out.append((posting, record))
    return out


def _write_batch(conn: psycopg.Connection, rows: list[tuple[Any, ...]], batch_len: int) -> UpsertCounts:
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
            reopened = cur.execute(_COUNT_REOPENING).fetchone()[0]  # type: ignore[index]
            flags = [r[0] for r in cur.execute(_MERGE).fetchall()]
            cur.execute("TRUNCATE jobs_stage")
    if not conn.autocommit:
        conn.commit()
    inserted = sum(1 for f in flags if f)
    return UpsertCounts(inserted, len(flags) - inserted, batch_len - len(flags), reopened)


def upsert_jobs(conn: psycopg.Connection, postings: list[NormalizedPosting], *, batch_size: int = 5000,
                bulk_load_rows: int = BULK_LOAD_ROWS) -> UpsertCounts:
    """Insert new postings, rewrite changed or reopened ones, leave unchanged ones untouched.

    Each batch is its own committed transaction (a transaction already open on ``conn`` is
    committed first), so a failure keeps every earlier batch. ``ANALYZE jobs`` runs after a
    large change so the planner sees the new data before search and the embedding sync query it.

    The first large load into an empty table (``bulk_load_rows`` rows to write or more) drops
    the table's GIN indexes for its duration and builds them again at the end: readers still
    get correct (index-less, slower) answers meanwhile, and the load costs markedly less
    database CPU per row than updating the inverted indexes (cities, skills) row by row.
    """
    if not conn.autocommit and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.commit()
    postings = _latest_per_key(postings)
    batches = [postings[start:start + batch_size] for start in range(0, len(postings), batch_size)]
    # Which postings need writing is decided up front (reads only; the merge's WHERE still
    # guards against rows changing meanwhile). Then preparing batch k+1 (Python: hashes,
    # dedupe keys) overlaps with the database merging batch k in a writer thread: the two
    # use different cores, and the connection is only ever used by one thread at a time.
    restore_deferred_indexes(conn)  # left behind by a bulk load that died half-way
    todos = [_needs_writing(conn, batch) for batch in batches]
    if not conn.autocommit:
        conn.commit()
    deferred = sum(map(len, todos)) >= bulk_load_rows and defer_gin_indexes(conn, "jobs")
    counts = UpsertCounts()
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="jobpipe-upsert") as writer:
            pending: Future[UpsertCounts] | None = None
            for batch, todo in zip(batches, todos):
                rows = [staged_row(p, record) for p, record in todo]
                if pending is not None:
                    counts += pending.result()
                pending = writer.submit(_write_batch, conn, rows, len(batch))
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
        table_rows = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]  # type: ignore[index]
        if changed > ANALYZE_ROWS or changed > ANALYZE_SHARE * table_rows:
            conn.execute("ANALYZE jobs")
    if not conn.autocommit:
        conn.commit()
    return counts
