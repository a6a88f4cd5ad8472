"""The service's own reads: one posting in full, and what /health reports."""

from __future__ import annotations

import re
from typing import Any

import psycopg

from jobpipe.store.jobs import load_job_by_id

def get_job(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    """The full normalized posting as stored in ``jobs``, or None (the same reader as the CLI's)."""
    return load_job_by_id(conn, job_id)


_INDEX_MODEL = re.compile(r"WHERE\s*\(+\s*model\s*=\s*'((?:[^']|'')+)'", re.I)
_INDEX_DIMS = re.compile(r"vector\((\d+)\)")


def index_state(conn: psycopg.Connection) -> dict[str, Any]:
    """Embedding models, their vector counts and the HNSW indexes on ``job_embeddings``."""
    models = [
        {"model": r[0], "dims": r[1], "state": r[2], "activated_at": r[3]}
        for r in conn.execute("SELECT model, dims, state, activated_at FROM embedding_models ORDER BY created_at")
    ]
    counts = dict(conn.execute("SELECT model, count(*) FROM job_embeddings GROUP BY model").fetchall())
    indexes = []
    for name, definition, valid in conn.execute(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid), i.indisvalid "
        "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am am ON am.oid = c.relam "
        "WHERE i.indrelid = 'job_embeddings'::regclass AND am.amname = 'hnsw' ORDER BY c.relname"
    ):
        model = _INDEX_MODEL.search(definition)
        dims = _INDEX_DIMS.search(definition)
        indexes.append({"name": name, "model": model.group(1).replace("''", "'") if model else None,
                        "dims": int(dims.group(1)) if dims else None, "valid": bool(valid)})
    for m in models:
        m["vectors"] = int(counts.get(m["model"], 0))
        m["hnsw_index"] = next((ix["name"] for ix in indexes if ix["model"] == m["model"] and ix["valid"]), None)
    active = next((m for m in models if m["state"] == "active"), None)
    return {"active_model": active["model"] if active else None,
            "active_dims": active["dims"] if active else None,
            "active_indexed": bool(active and active["hnsw_index"]),
            "models": models, "hnsw_indexes": indexes}


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
