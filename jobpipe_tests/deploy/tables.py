"""What a run leaves in jobpipe's tables, keyed by natural keys, for comparing two databases.

Surrogate ids (job_id, raw_id, fetch_id, ...) and timestamps differ between two databases that
ran the same work in another order; everything else must be equal. Rows referring to a job by
id are keyed by the job's (source, external_id) instead; vectors are compared within float
rounding (the same model on the same text, maybe in another process).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

#: table -> query returning comparable rows (already ordered).
QUERIES: dict[str, str] = {
    "fetch_runs": (
        "SELECT source, partition_date, kind, complete, error, postings_seen "
        "FROM fetch_runs ORDER BY source, partition_date"),
    "raw_postings": (
        "SELECT to_jsonb(r) - 'raw_id' - 'first_fetched_at' - 'last_fetched_at' FROM raw_postings r "
        "ORDER BY source, external_id, payload_hash"),
    "listing_spans": (   # what each run listed (ids differ between databases: compare days and payloads)
        "SELECT s.source, f.partition_date, s.external_id, s.payload_hash, s.until_fetch IS NULL AS still_listed "
        "FROM listing_spans s JOIN fetch_runs f ON f.fetch_id = s.from_fetch ORDER BY 1, 2, 3, 4"),
    "normalized_postings": (
        "SELECT to_jsonb(n) - 'raw_id' - 'fetch_id' - 'normalized_at' - 'observed_at' FROM normalized_postings n "
        "ORDER BY source, external_id, record_hash"),
    "quarantine": (
        "SELECT source, partition_date, external_id, failed_checks FROM quarantine "
        "ORDER BY source, partition_date, external_id, failed_checks::text"),
    "jobs": (
        "SELECT to_jsonb(j) - 'job_id' - 'first_seen_at' - 'updated_at' - 'closed_at' - 'observed_at', closed_at IS NULL "
        "FROM jobs j ORDER BY source, external_id"),
    "job_terms": (
        "SELECT j.source, j.external_id, to_jsonb(t) - 'job_id' - 'closed_at', t.closed_at IS NULL "
        "FROM job_terms t JOIN jobs j USING (job_id) ORDER BY 1, 2"),
    "embedding_models": "SELECT model, dims, state FROM embedding_models ORDER BY model",
    "candidates": "SELECT to_jsonb(c) - 'updated_at' - 'created_at' FROM candidates c ORDER BY candidate_id",
    "candidate_matches": (
        "SELECT m.candidate_id, j.source, j.external_id, round(m.score::numeric, 3), "
        "m.matched_skills, m.missing_skills, m.model FROM candidate_matches m JOIN jobs j USING (job_id) "
        "ORDER BY 1, 2, 3"),
    "listing_fingerprints": (
        "SELECT source, listing_digest, postings, sum_high, sum_low FROM listing_fingerprints "
        "ORDER BY source, recorded_at"),
    "serving_snapshots (latest)": (
        "SELECT model, open_jobs, with_vector, closed_jobs, duplicate_groups FROM serving_snapshots "
        "ORDER BY snapshot_id DESC LIMIT 1"),
}

VECTOR_QUERIES: dict[str, str] = {
    "job_embeddings": (
        "SELECT j.source || '/' || j.external_id || '/' || e.model || '/' || e.content_hash, e.embedding "
        "FROM job_embeddings e JOIN jobs j USING (job_id) ORDER BY 1"),
    "candidate_embeddings": (
        "SELECT candidate_id || '/' || model || '/' || content_hash, embedding FROM candidate_embeddings ORDER BY 1"),
}


def snapshot(url: str) -> dict[str, Any]:
    from jobpipe.db import connect

    out: dict[str, Any] = {}
    with connect(url) as conn:
        for name, query in QUERIES.items():
            out[name] = [tuple(row) for row in conn.execute(query)]
        for name, query in VECTOR_QUERIES.items():
            out[name] = {key: np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
                         for key, vec in conn.execute(query)}
    return out


def differences(a: dict[str, Any], b: dict[str, Any], atol: float = 1e-4) -> list[str]:
    """Human-readable differences between two snapshots (empty when they are the same)."""
    problems = []
    for name in QUERIES:
        if a[name] != b[name]:
            only_a = [r for r in a[name] if r not in b[name]][:2]
            only_b = [r for r in b[name] if r not in a[name]][:2]
            problems.append(f"{name}: {len(a[name])} vs {len(b[name])} rows; only left {only_a}; only right {only_b}")
    for name in VECTOR_QUERIES:
        if a[name].keys() != b[name].keys():
            problems.append(f"{name}: keys differ ({sorted(a[name].keys() ^ b[name].keys())[:3]})")
            continue
        far = [k for k in a[name] if not np.allclose(a[name][k], b[name][k], atol=atol)]
        if far:
            problems.append(f"{name}: {len(far)} vectors differ, e.g. {far[:2]}")
    return problems


def counts(snap: dict[str, Any]) -> dict[str, int]:
    return {name: len(rows) for name, rows in snap.items()}


def empty_tables(conn: psycopg.Connection) -> None:
    tables = [r[0] for r in conn.execute(
        "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'")]
    if tables:
        conn.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
    conn.commit()
