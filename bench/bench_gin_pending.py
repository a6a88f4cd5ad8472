"""Search speed with and without the GIN pending lists a write leaves (docs/search.md, "Speed").

    python bench/bench_gin_pending.py [--rows 100000] [--queries 200]

Builds ``bench_search_speed``'s synthetic database once, with autovacuum off on its tables and
without merging the pending lists, then measures each state on its own copy of it (``CREATE
DATABASE ... TEMPLATE``: the same pages, pending lists and queries; no autovacuum in a copy):
as built, after a VACUUM that skips the indexes (hint bits and visibility map only), after
``gin_clean_pending_list()``, after ``VACUUM job_terms``. Then a night: on a settled copy, 5% of
the postings get a new search text and ``sync_job_terms`` re-tokenizes them, once without the
store's merge and once with it. Per state: a warm-up pass, then keyword only and hybrid
without filters twice (p50 / p90 ms). Compare states as ratios within one run (2 cores shared).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_search_speed as speed  # noqa: E402

import jobpipe.store.terms as terms  # noqa: E402
from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.search import SearchFilters  # noqa: E402
from jobpipe.store.pending import merge_gin_pending  # noqa: E402

BASE = "jobpipe_bench_gin_pending"
TABLES = ("jobs", "job_terms", "job_embeddings")
GIN_TABLES = ["jobs", "job_terms"]
_PENDING = """SELECT c.relname, gin_clean_pending_list(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'gin' AND i.indrelid = ANY(%s::regclass[]) ORDER BY 1"""


def no_merge(conn: Any, tables: Any) -> int:
    return 0


def build(admin: psycopg.Connection, base: str, rows: int) -> None:
    admin.execute(f'DROP DATABASE IF EXISTS "{BASE}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{BASE}"')
    url = with_database(base, BASE)
    migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        for table in TABLES:
            conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
    speed.build(url, rows, merge_pending=False)   # the state the build left before the store merged


def copy(admin: psycopg.Connection, base: str, name: str) -> str:
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{BASE}"')
    return with_database(base, name)


def pending_pages(url: str) -> str:
    """The pages each GIN index's pending list held (read by merging them)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(_PENDING, (GIN_TABLES,)).fetchall()
    return ", ".join(f"{name} {pages}" for name, pages in rows)


def measure(url: str, queries: list[str], embedder: speed.PrecomputedEmbedder, label: str) -> None:
    speed.latency_run(url, queries, embedder, "hybrid", SearchFilters())   # warm-up pass, as the speed bench
    parts = []
    for _round in (1, 2):
        for mode in ("keyword", "hybrid"):
            server, _, _ = speed.latency_run(url, queries, embedder, mode, SearchFilters())
            parts.append(f"{mode} {speed.pct(server, 50):.1f} / {speed.pct(server, 90):.1f}")
    print(f"{label:<54}" + " | ".join(parts) + f"   load {speed.load_average()}", flush=True)


def night(url: str, merge: bool) -> str:
    """5% of the postings re-worded (new content_hash, their tokens as text), then the terms sync."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE jobs j SET description_text = array_to_string(tsvector_to_array(t.search_tsv), ' '), "
                     "content_hash = j.content_hash || 'n' FROM job_terms t "
                     "WHERE t.job_id = j.job_id AND j.job_id % 20 = 0")
    saved = terms.merge_gin_pending
    if not merge:
        terms.merge_gin_pending = no_merge
    try:
        with connect(url) as conn:
            start = time.perf_counter()
            counts = terms.sync_job_terms(conn)
            return f"{counts.computed} terms rows in {time.perf_counter() - start:.1f} s"
    finally:
        terms.merge_gin_pending = saved


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    base = database_url()
    with psycopg.connect(with_database(base, "postgres"), autocommit=True) as admin:
        build(admin, base, args.rows)
        queries, vectors = speed.make_queries(with_database(base, BASE), args.queries)
        embedder = speed.PrecomputedEmbedder(vectors)
        print(f"\n{len(queries)} queries; p50 / p90 ms, keyword only and hybrid without filters, twice per state")
        states = [
            ("as built", None),
            ("VACUUM (INDEX_CLEANUP OFF) (hint bits, VM)", "VACUUM (INDEX_CLEANUP OFF) jobs, job_terms, job_embeddings"),
            ("gin_clean_pending_list() on every GIN index", "merge"),
            ("VACUUM job_terms", "VACUUM job_terms"),
        ]
        for i, (label, treatment) in enumerate(states):
            url = copy(admin, base, f"{BASE}_{i}")
            start = time.perf_counter()
            with connect(url, autocommit=True) as conn:
                if treatment == "merge":
                    merge_gin_pending(conn, GIN_TABLES)
                elif treatment:
                    conn.execute(treatment)
            took = time.perf_counter() - start
            measure(url, queries, embedder, f"{label} ({took:.2f} s)")
            if i == 0:
                print(f"  pending pages as built: {pending_pages(url)}")
            admin.execute(f'DROP DATABASE "{BASE}_{i}" WITH (FORCE)')
        for merge in (False, True):
            url = copy(admin, base, f"{BASE}_night")
            with connect(url, autocommit=True) as conn:
                merge_gin_pending(conn, GIN_TABLES)   # settled before the night, as after autovacuum
            if not merge:
                measure(url, queries, embedder, "settled, before the night")
            synced = night(url, merge)
            measure(url, queries, embedder, f"right after the night, {'with' if merge else 'without'} the merge")
            print(f"  sync: {synced}; pending pages left: {pending_pages(url)}")
            admin.execute(f'DROP DATABASE "{BASE}_night" WITH (FORCE)')
        admin.execute(f'DROP DATABASE "{BASE}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    sys.exit(main())
