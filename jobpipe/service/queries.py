"""The service's own reads: one posting in full, and what /health reports."""

from __future__ import annotations

from typing import Any

import psycopg

from jobpipe.db.rows import one
from jobpipe.store.index import index_state as store_index_state
from jobpipe.store.jobs import load_job_by_id
from jobpipe.store.term_lists import lists_state


def get_job(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    """The full normalized posting as stored in ``jobs``, or None (the same reader as the CLI's)."""
    return load_job_by_id(conn, job_id)


def health_index(conn: psycopg.Connection) -> dict[str, Any]:
    """The health page's view of the embedding models, their vector counts and HNSW indexes (read
    from the store's one ``index_state``), and of the keyword leg's posting lists (``current``:
    false while changes wait for the night's merge and keyword search runs on the GIN indexes)."""
    indexes = {(ix.model, ix.dims): ix for ix in store_index_state(conn)}
    models = []
    for model, dims, state, activated_at in conn.execute(
            "SELECT model, dims, state, activated_at FROM embedding_models ORDER BY created_at"):
        ix = indexes.get((model, dims))
        vectors = ix.rows if ix is not None else one(conn.execute(
            "SELECT count(*) FROM job_embeddings WHERE model = %s", (model,)))[0]
        models.append({"model": model, "dims": dims, "state": state, "activated_at": activated_at,
                       "vectors": int(vectors), "hnsw_index": ix.name if ix is not None and ix.valid else None})
    active = next((m for m in models if m["state"] == "active"), None)
    return {"active_model": active["model"] if active else None,
            "active_dims": active["dims"] if active else None,
            "active_indexed": bool(active and active["hnsw_index"]),
            "models": models,
            "hnsw_indexes": [{"name": ix.name, "model": ix.model, "dims": ix.dims, "valid": ix.valid}
                             for ix in indexes.values() if ix.exists],
            "keyword_lists": lists_state(conn)}


def source_freshness(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Per source: the latest finished fetch run (when, complete?) and its open/total jobs."""
    rows = conn.execute("""
        WITH latest AS (
            SELECT DISTINCT ON (source) source, finished_at, complete, error, partition_date
            FROM fetch_runs WHERE finished_at IS NOT NULL
            ORDER BY source, finished_at DESC
        ), counts AS (
            SELECT source, count(*) FILTER (WHERE closed_at IS NULL) AS open_jobs, count(*) AS total_jobs
            FROM jobs GROUP BY source
        )
        SELECT coalesce(l.source, c.source), l.finished_at, l.complete, l.error, l.partition_date,
               coalesce(c.open_jobs, 0), coalesce(c.total_jobs, 0)
        FROM latest l FULL JOIN counts c ON c.source = l.source
        ORDER BY 1
    """).fetchall()
    return [{"source": r[0], "last_fetch_finished_at": r[1], "last_fetch_complete": r[2],
             "last_fetch_error": r[3], "last_partition_date": r[4], "open_jobs": int(r[5]), "total_jobs": int(r[6])}
            for r in rows]


def database_state(conn: psycopg.Connection) -> dict[str, Any]:
    row = conn.execute(
        "SELECT current_user, current_setting('statement_timeout'), "
        "current_setting('default_transaction_read_only'), "
        "(SELECT max(version) FROM schema_migrations)"
    ).fetchone()
    assert row is not None
    return {"ok": True, "role": row[0], "statement_timeout": row[1], "read_only": row[2] == "on",
            "schema_version": row[3]}
