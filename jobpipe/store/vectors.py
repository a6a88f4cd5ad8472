"""Embed exactly what changed, batch by batch, without ever leaving search without vectors.

A row needs a vector for a model when it has none for that model or when the content hash
its vector was computed from differs from the row's current content hash. Nothing else
triggers embedding: a new URL or a re-stamped date changes ``record_hash`` only.

Each batch is embedded, upserted and committed on its own, so a crash (or a provider outage)
loses at most one batch, and the next run resumes where this one stopped. Vectors are
replaced in place (``ON CONFLICT ... DO UPDATE``): until its new vector is committed a row
keeps serving with the old one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from jobpipe.db.rows import one
from jobpipe.embedding.base import Embedder
from jobpipe.hashing import embedding_text
from jobpipe.models import NormalizedPosting
from jobpipe.store.models import activate_model, register_model

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class EmbedCounts:
    embedded: int = 0    # vectors computed and stored by this call
    skipped: int = 0     # rows whose vector for this model was already current
    model: str = ""
    activated: bool = False  # this call made ``model`` the active one (a completed switch)

    def as_metadata(self) -> dict[str, object]:
        return {"embedded": self.embedded, "skipped": self.skipped, "model": self.model, "activated": self.activated}


@dataclass(frozen=True)
class _Target:
    """Where the rows, their texts and their vectors live (jobs or candidates)."""

    rows: str
    key: str
    vectors: str
    text_columns: tuple[str, ...]
    open_only: bool
    to_text: Callable[[tuple], str]


def _job_text(row: tuple) -> str:
    title, company, cities, skills, description = row
    return embedding_text(NormalizedPosting(source="", external_id="", title=title, company=company,
                                            cities=list(cities or []), skills=list(skills or []),
                                            description_text=description or ""))


def _candidate_text(row: tuple) -> str:
    """A candidate's stored embedding text: built from the redacted profile by
    ``jobpipe.candidates.vector_text.embedding_text`` and printed by ``jobpipe candidates show``."""
    return row[0] or ""


JOBS = _Target("jobs", "job_id", "job_embeddings", ("title", "company", "cities", "skills", "description_text"),
               True, _job_text)
CANDIDATES = _Target("candidates", "candidate_id", "candidate_embeddings", ("embedding_text",), False, _candidate_text)


def _pending_where(target: _Target) -> sql.Composable:
    open_filter = "r.closed_at IS NULL AND " if target.open_only else ""
    return sql.SQL(
        "FROM {rows} r LEFT JOIN {vectors} e ON e.{key} = r.{key} AND e.model = %(model)s "
        "WHERE " + open_filter + "(e.{key} IS NULL OR e.content_hash <> r.content_hash)"
    ).format(rows=sql.Identifier(target.rows), vectors=sql.Identifier(target.vectors), key=sql.Identifier(target.key))


def _count_pending(conn: psycopg.Connection, target: _Target, model: str) -> int:
    query = sql.SQL("SELECT count(*) ") + _pending_where(target)
    return one(conn.execute(query, {"model": model}))[0]


def _count_rows(conn: psycopg.Connection, target: _Target) -> int:
    where = " WHERE closed_at IS NULL" if target.open_only else ""
    return one(conn.execute(sql.SQL("SELECT count(*) FROM {}" + where).format(sql.Identifier(target.rows))))[0]


def pending_jobs(conn: psycopg.Connection, model: str) -> int:
    """Open jobs that have no vector for ``model`` or a vector computed from other content."""
    return _count_pending(conn, JOBS, model)


def pending_candidates(conn: psycopg.Connection, model: str) -> int:
    return _count_pending(conn, CANDIDATES, model)


def _pending_keys(conn: psycopg.Connection, target: _Target, model: str) -> list:
    """The keys of every row needing a vector, in key order: one pass over both tables.

    Read once up front rather than page by page: a page query that joins the whole vector
    table again for each page of 64 made a first load quadratic (a hash join over every
    vector already stored, per page). The covering indexes of sql/0016 let this pass read
    the two indexes only.
    """
    query = (sql.SQL("SELECT r.{key} ").format(key=sql.Identifier(target.key)) + _pending_where(target)
             + sql.SQL(" ORDER BY r.{key}").format(key=sql.Identifier(target.key)))
    return [key for (key,) in conn.execute(query, {"model": model})]


def as_vectors(given: object, n: int, embedder: Embedder) -> np.ndarray:
    """An embedder's answer for ``n`` texts as an (n, dims) float32 array: a list of lists, a list
    of arrays or an array all do; a wrong shape or a non-finite number is a clear error."""
    try:
        vectors = np.asarray(given, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{embedder.model}: embed_documents must return {n} vectors of {embedder.dims} numbers "
                         f"(a list of lists or an array): {exc}") from None
    if vectors.shape != (n, embedder.dims):
        raise ValueError(f"{embedder.model}: expected {(n, embedder.dims)} vectors, got shape {vectors.shape}")
    if not np.isfinite(vectors).all():
        raise ValueError(f"{embedder.model}: returned a vector with NaN or infinite values")
    return vectors


def _sync(conn: psycopg.Connection, target: _Target, embedder: Embedder, batch_size: int,
          progress: Progress | None) -> EmbedCounts:
    register_vector(conn)
    info = register_model(conn, embedder.model, embedder.dims)
    keys = _pending_keys(conn, target, embedder.model)
    total = len(keys)
    skipped = _count_rows(conn, target) - total
    if not conn.autocommit:
        conn.commit()
    # A page re-checks that its rows still need a vector (another sync may have done them),
    # probing both primary keys row by row: a page costs the same whatever the table size.
    select = (
        sql.SQL("SELECT r.{key}, r.content_hash, ").format(key=sql.Identifier(target.key))
        + sql.SQL(", ").join(sql.SQL("r.{}").format(sql.Identifier(c)) for c in target.text_columns)
        + sql.SQL(" ")
        + _pending_where(target)
        + sql.SQL(" AND r.{key} = ANY(%(keys)s) ORDER BY r.{key}").format(key=sql.Identifier(target.key))
    )
    write = sql.SQL(
        "INSERT INTO {vectors} ({key}, model, dims, content_hash, embedding) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT ({key}, model) DO UPDATE SET dims = EXCLUDED.dims, content_hash = EXCLUDED.content_hash, "
        "embedding = EXCLUDED.embedding, embedded_at = now()"
    ).format(vectors=sql.Identifier(target.vectors), key=sql.Identifier(target.key))
    embedded = 0
    if progress:
        progress(0, total)
    for start in range(0, total, batch_size):
        rows = conn.execute(select, {"model": embedder.model, "keys": keys[start:start + batch_size]}).fetchall()
        if not conn.autocommit:
            conn.commit()  # no transaction (and no snapshot) held while the model works
        if not rows:
            continue
        vectors = as_vectors(embedder.embed_documents([target.to_text(tuple(r[2:])) for r in rows]),
                             len(rows), embedder)
        with conn.transaction():
            with conn.cursor() as cur:
                cur.executemany(write, [(r[0], embedder.model, embedder.dims, r[1], v) for r, v in zip(rows, vectors)])
        if not conn.autocommit:
            conn.commit()
        embedded += len(rows)
        if progress:
            progress(embedded, total)
    activated = False
    if target is JOBS and info.state == "building" and _count_pending(conn, JOBS, embedder.model) == 0:
        activate_model(conn, embedder.model)
        activated = True
    if not conn.autocommit:
        conn.commit()
    return EmbedCounts(embedded, skipped, embedder.model, activated)


def sync_job_embeddings(conn: psycopg.Connection, embedder: Embedder, *, batch_size: int = 64,
                        progress: Progress | None = None) -> EmbedCounts:
    """Bring the vectors of ``embedder.model`` up to date with every open job.

    Registers the model (the first model ever is active at once; any other one is
    ``building``) and activates a building model -- retiring the old one -- only when it
    covers every open job. Build the model's HNSW index (``ensure_vector_index``) before or
    right after a switch; search stays correct without it, only slower.
    """
    return _sync(conn, JOBS, embedder, batch_size, progress)


def sync_candidate_embeddings(conn: psycopg.Connection, embedder: Embedder, *, batch_size: int = 64,
                              progress: Progress | None = None) -> EmbedCounts:
    """Same for candidates (their stored ``embedding_text``). Never activates a model: the active
    model is decided by job coverage, candidates follow it."""
    return _sync(conn, CANDIDATES, embedder, batch_size, progress)


def database_now(conn: psycopg.Connection) -> datetime:
    """The database server's clock (vectors are stamped with it), outside any transaction."""
    now = one(conn.execute("SELECT clock_timestamp()"))[0]
    if not conn.autocommit:
        conn.commit()
    return now


def embedded_by_source(conn: psycopg.Connection, model: str, *, since: datetime) -> dict[str, int]:
    """Job vectors of ``model`` computed since ``since``, per source."""
    return dict(conn.execute(
        "SELECT j.source, count(*) FROM job_embeddings e JOIN jobs j USING (job_id) "
        "WHERE e.model = %s AND e.embedded_at >= %s GROUP BY j.source ORDER BY j.source", (model, since)
    ).fetchall())
