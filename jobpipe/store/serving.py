"""The serving snapshot: what the query service can currently reach.

The service reads the ``serving_jobs`` view live; a snapshot row per pipeline run records its
coverage (open jobs, how many have a vector of the active model) so that gaps are visible in
Dagster and in the service's ``/health``.
"""

from __future__ import annotations

from typing import Any

import psycopg

_SNAPSHOT_SQL = """
WITH open_jobs AS (SELECT count(*) AS n FROM jobs WHERE closed_at IS NULL),
     vec AS (SELECT count(*) AS n FROM serving_jobs WHERE closed_at IS NULL AND embedding IS NOT NULL),
     closed AS (SELECT count(*) AS n FROM jobs WHERE closed_at IS NOT NULL),
     dup AS (SELECT count(*) AS n FROM (
         SELECT dedupe_key FROM jobs WHERE closed_at IS NULL AND dedupe_key IS NOT NULL
         GROUP BY dedupe_key HAVING count(*) > 1) d),
     active AS (SELECT model FROM embedding_models WHERE state = 'active')
INSERT INTO serving_snapshots (model, open_jobs, with_vector, closed_jobs, duplicate_groups)
SELECT (SELECT model FROM active), open_jobs.n, vec.n, closed.n, dup.n FROM open_jobs, vec, closed, dup
RETURNING model, open_jobs, with_vector, closed_jobs, duplicate_groups, published_at
"""


def publish_serving_snapshot(conn: psycopg.Connection) -> dict[str, Any]:
    row = conn.execute(_SNAPSHOT_SQL).fetchone()
    conn.commit()
    assert row is not None
    keys = ("model", "open_jobs", "with_vector", "closed_jobs", "duplicate_groups", "published_at")
    return dict(zip(keys, row, strict=True))


def latest_serving_snapshot(conn: psycopg.Connection) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT model, open_jobs, with_vector, closed_jobs, duplicate_groups, published_at "
        "FROM serving_snapshots ORDER BY snapshot_id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    keys = ("model", "open_jobs", "with_vector", "closed_jobs", "duplicate_groups", "published_at")
    return dict(zip(keys, row, strict=True))
