"""Exact scan against iterative HNSW for a filtered vector query, by how many postings pass the filter.

    python bench/bench_vector_plan.py URL [--queries 40]

URL is a database with postings and an active model's vectors in the store's HNSW index, e.g. the
one ``bench_search_speed.py`` leaves (100k postings) or a ``bench_scale.py --keep`` run (1M). For
filters of rising selectivity (one city, one job type), both plans of ``jobpipe.search.vector``
run on the same query vectors (stored vectors plus a little noise), interleaved query by query:
p50 / p99 of each, recall of the iterative plan's top 100 against the exact one's, and the plan
``choose_plan`` picks. The crossover, where the two cost the same, is what the exact-scan cap
should be at this table size. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search_speed import pct  # noqa: E402  (the bench scripts import each other as plain modules)

from jobpipe.db import connect  # noqa: E402
from jobpipe.db.rows import one  # noqa: E402
from jobpipe.search import SearchFilters  # noqa: E402
from jobpipe.search.filters import build_filter_sql  # noqa: E402
from jobpipe.search.vector import VectorPlan, _estimated_rows, choose_plan, vector_candidates  # noqa: E402
from jobpipe.store.models import active_model  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--max-rows", type=int, default=60_000,
                        help="skip filters matching more postings (their exact scan takes seconds per query)")
    args = parser.parse_args()
    with connect(args.url, autocommit=True) as conn:
        conn.prepare_threshold = None
        model = active_model(conn)
        if model is None:
            print("no active model in that database", file=sys.stderr)
            return 2
        total = one(conn.execute("SELECT count(*) FROM jobs WHERE closed_at IS NULL"))[0]
        rng = np.random.default_rng(5)
        stored = conn.execute(
            "SELECT embedding FROM job_embeddings TABLESAMPLE SYSTEM (1) WHERE model = %s LIMIT %s",
            (model.model, args.queries)).fetchall()
        queries = []
        for (vec,) in stored:
            v = np.asarray(vec.to_numpy(), dtype=np.float32) + rng.normal(0, 0.05, model.dims).astype(np.float32)
            queries.append(v / np.linalg.norm(v))
        cities = [r[0] for r in conn.execute(
            "SELECT c FROM jobs, unnest(cities) c WHERE closed_at IS NULL GROUP BY c ORDER BY count(*)")]
        types = [r[0] for r in conn.execute(
            "SELECT job_type FROM jobs WHERE closed_at IS NULL AND job_type IS NOT NULL GROUP BY 1 ORDER BY count(*)")]
        filters = ([SearchFilters(city=c) for c in cities] + [SearchFilters(job_type=t) for t in types]
                   + [SearchFilters(remote=True)])
        print(f"bench_vector_plan: {total:,} open postings, model {model.model}, {len(queries)} queries, "
              f"limit {args.limit}, load average {os.getloadavg()[0]:.1f}")
        print(f"{'filter':<28} {'rows':>8} {'share':>7}  {'exact p50/p99 ms':>17}  {'iterative p50/p99 ms':>21}  "
              f"{'recall':>6}  {'fallbacks':>9}  chosen")
        for f in filters:
            fsql = build_filter_sql(f)
            rows = _estimated_rows(conn, fsql)
            if rows > args.max_rows:
                continue
            exact_t: list[float] = []
            iter_t: list[float] = []
            recall: list[float] = []
            fallbacks = 0
            for qv in queries:
                start = time.perf_counter()
                truth = vector_candidates(conn, model, qv, fsql, args.limit, VectorPlan("exact", rows))
                exact_t.append((time.perf_counter() - start) * 1000)
                plan = VectorPlan("hnsw_iterative", rows)
                start = time.perf_counter()
                got = vector_candidates(conn, model, qv, fsql, args.limit, plan)
                iter_t.append((time.perf_counter() - start) * 1000)
                fallbacks += plan.fallback
                want = {h.job_id for h in truth}
                recall.append(len(want & {h.job_id for h in got}) / max(1, len(want)))
            label = next(f"{k}={v}" for k, v in (("city", f.city), ("job_type", f.job_type), ("remote", f.remote)) if v)
            print(f"{label:<28} {rows:>8,} {rows / total:>7.2%}  {pct(exact_t, 50):>7.1f} / {pct(exact_t, 99):>7.1f}  "
                  f"{pct(iter_t, 50):>9.1f} / {pct(iter_t, 99):>9.1f}  {statistics.mean(recall):>6.3f}  "
                  f"{fallbacks:>9}  {choose_plan(conn, fsql).method}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
