"""What a run leaves in jobpipe's tables, keyed by natural keys, for comparing two databases.

Surrogate ids (job_id, raw_id, fetch_id, ...) and timestamps differ between two databases that
ran the same work in another order; everything else must be equal. Rows referring to a job by
id are keyed by the job's (source, external_id) instead; vectors are compared within float
rounding (the same model on the same text, maybe in another process).

A relative posting date ("3天前") names a day only together with its payload's fetch time, so two
databases that fetched the same page on either side of midnight (Beijing's is 16:00 UTC) rightly
hold dates a day apart. Such a value is compared as what it was read from -- the relative text --
after checking that it is exactly that text resolved at its own payload's fetch time; the record
hash that covers it likewise, and the listing fingerprint of its source (a digest of record hashes)
by its count of postings. Every other value is compared as stored.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np
import psycopg

from jobpipe.normalize.dates import anchored_on_fetch, parse_date, parse_deadline

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


#: Tables whose rows carry a posting's dates: the position of the row's JSON object (which holds the
#: dates, the content hash and maybe the record hash) and of its source and external id (None: in it).
_DATED = {"normalized_postings": (0, None), "jobs": (0, None), "job_terms": (2, 0)}
_NOT_RESOLVED = "not resolved at its fetch time"
_ANCHORED_HASH = "(covers a fetch-anchored date)"


def _fetch_anchored(conn: psycopg.Connection) -> dict[tuple[str, str, str], dict[str, tuple[str, datetime | None]]]:
    """(source, external_id, content_hash) of each normalized row with a relative date -> its
    fetch-anchored fields: the text and that text resolved at its payload's fetch time (the content
    hash covers no date: it is the same on both sides)."""
    from jobpipe.sources.extract import extract

    out: dict[tuple[str, str, str], dict[str, tuple[str, datetime | None]]] = {}
    for source, external_id, content_hash, format_, payload, fetched in conn.execute(
            "SELECT n.source, n.external_id, n.content_hash, r.format, r.payload, r.first_fetched_at "
            "FROM normalized_postings n JOIN raw_postings r USING (raw_id)"):
        fields = extract(format_, payload)
        anchored = {name: (str(text), parse(text, fetched_at=fetched))
                    for name, text, parse in (("posted_at", fields.posted_at, parse_date),
                                              ("valid_through", fields.valid_through, parse_deadline))
                    if anchored_on_fetch(text)}
        if anchored:
            out[(source, external_id, content_hash)] = anchored
    return out


def _reanchored(rows: list[tuple], anchored: dict[tuple[str, str, str], dict[str, tuple[str, datetime | None]]],
                at: int, ident: int | None) -> list[tuple]:
    """Each fetch-anchored date as its text, once checked to be that text resolved at its fetch time."""
    out = []
    for row in rows:
        values = dict(row[at])
        source, external_id = (values["source"], values["external_id"]) if ident is None else row[ident:ident + 2]
        dates = anchored.get((source, external_id, values["content_hash"]))
        if dates:
            for name, (text, expected) in dates.items():
                stored = datetime.fromisoformat(values[name]) if values.get(name) else None
                values[name] = (f"{text!r} at its fetch time" if stored == expected
                                else f"{text!r} {_NOT_RESOLVED}: {stored}")
            if "record_hash" in values:
                values["record_hash"] = _ANCHORED_HASH
            row = (*row[:at], values, *row[at + 1:])
        out.append(row)
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True, default=str, ensure_ascii=False))


def _fingerprints(rows: list[tuple], anchored: dict[tuple[str, str, str], dict[str, Any]]) -> list[tuple]:
    """A listing's fingerprint digests its postings' record hashes: for a source with a relative date,
    only its count of postings is comparable."""
    sources = {source for source, _, _ in anchored}
    return [(r[0], _ANCHORED_HASH, r[2], None, None) if r[0] in sources else r for r in rows]


def snapshot(url: str) -> dict[str, Any]:
    from jobpipe.db import connect

    out: dict[str, Any] = {}
    with connect(url) as conn:
        for name, query in QUERIES.items():
            out[name] = [tuple(row) for row in conn.execute(query)]
        anchored = _fetch_anchored(conn)
        for name, (at, ident) in _DATED.items():
            out[name] = _reanchored(out[name], anchored, at, ident)
        out["listing_fingerprints"] = _fingerprints(out["listing_fingerprints"], anchored)
        for name, query in VECTOR_QUERIES.items():
            out[name] = {key: np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
                         for key, vec in conn.execute(query)}
    return out


def differences(a: dict[str, Any], b: dict[str, Any], atol: float = 1e-4) -> list[str]:
    """Human-readable differences between two snapshots (empty when they are the same)."""
    problems = []
    for side, snap in (("left", a), ("right", b)):
        wrong = [r for name in _DATED for r in snap[name] if _NOT_RESOLVED in json.dumps(r, default=str)]
        if wrong:
            problems.append(f"{side}: {len(wrong)} relative dates not resolved at their fetch time, e.g. {wrong[:1]}")
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
