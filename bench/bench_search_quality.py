"""Search quality on ../shared/data/eval: vector-only, keyword-only and hybrid, scored by eval/score.py.

    python bench/bench_search_quality.py [--reuse] [--queries PATH] [--no-collapse]

Loads the eval corpus into a fresh database (``jobpipe_bench_search_quality`` on the same
server), embeds it (vectors cached under $TMPDIR, so re-runs are cheap), builds the HNSW
index, runs every query in the three modes and prints hit@1/5/10, MRR@10 (known-item) and
P@10, R@50 (filtered), overall and per language. ``--reuse`` keeps an already loaded database.

Duplicate groups are collapsed as users see them; the ids of a collapsed group follow its
representative in the results file (the scorer counts every true duplicate as relevant).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_eval_loader import build_vector_index, get_embedder, load_eval_corpus  # noqa: E402

from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.search import SearchFilters, search  # noqa: E402

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "eval"
DB_NAME = "jobpipe_bench_search_quality"
OUT_DIR = Path(tempfile.gettempdir()) / "jobpipe_search_bench"
METRICS = ["hit@1", "hit@5", "hit@10", "mrr@10", "p@10", "r@50"]


def prepare_database(reuse: bool) -> tuple[str, dict[int, str], object]:
    base = database_url()
    admin = with_database(base, "postgres")
    url = with_database(base, DB_NAME)
    embedder = get_embedder()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone()
        if exists and not reuse:
            conn.execute(f'DROP DATABASE "{DB_NAME}" WITH (FORCE)')
        if not exists or not reuse:
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
            exists = None
    migrate(url)
    with connect(url) as conn:
        if exists:
            ids = {i: e for i, e in conn.execute("SELECT job_id, external_id FROM jobs")}
            print(f"reusing {DB_NAME}: {len(ids)} postings")
            return url, ids, embedder
        start = time.perf_counter()
        ids, loader = load_eval_corpus(conn, EVAL / "postings.jsonl", embedder)
        print(f"loaded {len(ids)} postings ({loader}) in {time.perf_counter() - start:.1f} s "
              f"(model {embedder.model})")
        build_vector_index(conn, embedder.model, embedder.dims)
    return url, ids, embedder


def filters_of(query: dict) -> SearchFilters:
    f = query.get("filters") or {}
    return SearchFilters(city=f.get("city"), job_type=f.get("job_type"), remote=f.get("remote"))


def run_mode(conn, queries, ids, embedder, mode: str, collapse: bool, out: Path) -> list[float]:
    latencies = []
    with out.open("w", encoding="utf-8") as fh:
        for q in queries:
            start = time.perf_counter()
            leg_mode, _, option = mode.partition("+")
            response = search(conn, q["query"], filters_of(q), top_k=50, embedder=embedder, mode=leg_mode,
                              collapse_duplicates=collapse, auto_filters=option == "auto")
            latencies.append((time.perf_counter() - start) * 1000)
            ranked: list[str] = []
            for r in response.results:
                ranked.append(ids[r.job_id])
                ranked.extend(ids[d] for d in r.extra.get("duplicate_job_ids", []) if d in ids)
            fh.write(json.dumps({"qid": q["qid"], "ids": ranked}, ensure_ascii=False) + "\n")
    return latencies


def score(queries_path: Path, results: Path) -> dict:
    out = subprocess.run([sys.executable, str(EVAL / "score.py"), str(queries_path), str(results), "--json"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["summary"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reuse", action="store_true", help="keep an already loaded benchmark database")
    parser.add_argument("--queries", type=Path, default=EVAL / "dev_queries.jsonl")
    parser.add_argument("--no-collapse", action="store_true")
    parser.add_argument("--modes", default="vector,keyword,hybrid,hybrid+auto",
                        help="legs to compare; '+auto' applies what each query states as filters (auto_filters)")
    args = parser.parse_args()
    if not (EVAL / "postings.jsonl").exists():
        print(f"needs {EVAL}/postings.jsonl (../shared/data is absent)")
        return 1
    url, ids, embedder = prepare_database(args.reuse)
    queries = [json.loads(line) for line in args.queries.read_text(encoding="utf-8").split("\n") if line.strip()]
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    summaries = {}
    with connect(url, autocommit=True) as conn:
        search(conn, "warm up", embedder=embedder)
        for mode in args.modes.split(","):
            out = OUT_DIR / f"results_{mode.replace('+', '_')}.jsonl"
            latencies = run_mode(conn, queries, ids, embedder, mode, not args.no_collapse, out)
            summaries[mode] = score(args.queries, out)
            latencies.sort()
            print(f"{mode:8s} results -> {out}  (per query incl. embedding: p50 {latencies[len(latencies) // 2]:.1f} ms)")
    groups = ["all", "lang=zh", "lang=en", "lang=cross", "kind=known_item", "kind=filtered"]
    print(f"\n{'group':<16}{'mode':<9}" + "".join(f"{m:>9}" for m in METRICS))
    for group in groups:
        for mode, summary in summaries.items():
            row = summary.get(group)
            if not row:
                continue
            cells = "".join(f"{'-':>9}" if row.get(m) is None else f"{row[m]:>9.3f}" for m in METRICS)
            print(f"{group:<16}{mode:<9}{cells}")
    if "hybrid" in summaries:
        hybrid = summaries["hybrid"]["all"]
        worse = [f"{m} vs {mode}" for mode in summaries if mode in ("vector", "keyword") for m in METRICS
                 if hybrid.get(m) is not None and summaries[mode]["all"].get(m) is not None
                 and hybrid[m] + 1e-9 < summaries[mode]["all"][m]]
        cross = summaries["hybrid"].get("known_item/cross") or {}
        print("\ntargets: hybrid >= single modes on every metric:", "yes" if not worse else f"NO ({', '.join(worse)})")
        print(f"         known-item hit@5 overall {hybrid.get('hit@5') or 0:.3f} (>= 0.90), "
              f"cross-lingual {cross.get('hit@5') or 0:.3f} (>= 0.70), filtered R@50 {hybrid.get('r@50') or 0:.3f} (>= 0.80)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
