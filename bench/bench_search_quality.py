"""Search quality on ../shared/data/eval: vector-only, keyword-only and hybrid, scored by eval/score.py.

    python bench/bench_search_quality.py [--reuse] [--queries PATH[,PATH]] [--no-collapse] [--modes ...]

Two query sets by default: the shared dev set (39 queries) and ours, ``bench/labels/search_queries.jsonl``
(188 queries written for issue 15: 128 cross-lingual known-item queries in both directions, 40
same-language ones and 20 filtered ones, 4 per filter type: city, job type, remote, salary and
posted-within; ids and our own paraphrases only, see its ``note`` fields). Every third of ours
(qid number divisible by 3) is held out from development and scored on its own (``held_out``). A filtered query's
``posted_within_days`` counts back from its ``as_of`` date (the corpus is historical): it is
asked as the window ``posted_from`` .. ``posted_until`` (``filters_of``). Filtered queries are also scored per filter type, with P@10
both as the scorer computes it and against its ceiling (min(10, |relevant|)).

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
import os
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_eval_loader import build_vector_index, get_embedder, load_eval_corpus  # noqa: E402

from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.search import SearchFilters, search  # noqa: E402
from jobpipe.store import sync_job_terms  # noqa: E402
from jobpipe.store.term_lists import merge_term_lists  # noqa: E402

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "eval"
OWN_QUERIES = Path(__file__).resolve().parent / "labels" / "search_queries.jsonl"
FILTER_TYPES = ("city", "job_type", "remote", "salary", "posted_within")
DB_NAME = "jobpipe_bench_search_quality"
#: Results files of this run (one folder per run: two benches at once must not write each other's).
OUT_DIR = Path(tempfile.gettempdir()) / "jobpipe_search_bench" / f"run-{os.getpid()}"
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
            # A migration or a tokenizer change may have left terms stale: bring them current,
            # so a before/after comparison on one database (one HNSW graph) differs only in them.
            terms = sync_job_terms(conn)
            lists = merge_term_lists(conn)   # as the night's index stage does
            conn.commit()
            print(f"reusing {DB_NAME}: {len(ids)} postings, keyword terms computed again for {terms.computed}, "
                  f"keyword posting lists: {lists.mode}")
            return url, ids, embedder
        start = time.perf_counter()
        ids, loader = load_eval_corpus(conn, EVAL / "postings.jsonl", embedder)
        print(f"loaded {len(ids)} postings ({loader}) in {time.perf_counter() - start:.1f} s "
              f"(model {embedder.model})")
        build_vector_index(conn, embedder.model, embedder.dims)
        merge_term_lists(conn)   # the keyword leg's posting lists, as the night's index stage builds them
    return url, ids, embedder


RERANKER = None   # set in main() from JOBPIPE_RERANK_URL (jobpipe.search.rerank)


def filters_of(query: dict) -> SearchFilters:
    """A query's filters; an ``as_of`` date makes its ``posted_within_days`` the window before that day.

    The corpus spans 2021-2026 and a label such as "产品经理 posted in the 30 days before
    2021-02-28" judged the postings of that window only: it is asked as ``posted_from`` /
    ``posted_until``, the search's own date-window filter.
    """
    f = dict(query.get("filters") or {})
    as_of = f.pop("as_of", None)
    if as_of and f.get("posted_within_days"):
        end = date.fromisoformat(as_of)
        f["posted_from"] = (end - timedelta(days=f.pop("posted_within_days"))).isoformat()
        f["posted_until"] = end.isoformat()
    return SearchFilters.parse(f)


def run_mode(conn, queries, ids, embedder, mode: str, collapse: bool, out: Path) -> list[float]:
    latencies = []
    with out.open("w", encoding="utf-8") as fh:
        for q in queries:
            start = time.perf_counter()
            leg_mode, _, option = mode.partition("+")
            # Options only when used: the plain modes also run on a checkout from before them (before/after).
            extra = {"auto_filters": True} if option == "auto" else (
                {"rerank": True, "reranker": RERANKER} if option == "rerank" else {})
            response = search(conn, q["query"], filters_of(q), top_k=50, embedder=embedder,
                              mode=leg_mode, collapse_duplicates=collapse, **extra)
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


def per_filter_type(queries: list[dict], results: Path) -> dict[str, dict[str, float]]:
    """P@10 (as the scorer computes it, and against its ceiling) and R@50 per filter type."""
    ranked = {}
    for line in results.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            ranked[row["qid"]] = list(dict.fromkeys(row["ids"]))
    out: dict[str, dict[str, float]] = {}
    for kind in FILTER_TYPES:
        qs = [q for q in queries if q["kind"] == "filtered" and q.get("filter_type") == kind]
        if not qs:
            continue
        p10, p10c, r50 = [], [], []
        for q in qs:
            rel, ids = set(q["relevant"]), ranked.get(q["qid"], [])
            hits = len(rel.intersection(ids[:10]))
            p10.append(hits / 10)
            p10c.append(hits / min(10, len(rel)))
            r50.append(len(rel.intersection(ids[:50])) / len(rel))
        out[kind] = {"n": len(qs), "p@10": sum(p10) / len(qs), "p@10/ceiling": sum(p10c) / len(qs),
                     "r@50": sum(r50) / len(qs)}
    return out


def held_out(qid: str) -> bool:
    """Our labels held out from development: every third query of each kind (s15-xzh-003, -006, ...).

    Changes to the search are read on the others ("development"); the held-out third says
    whether a change generalizes. The shared dev set is never developed on at all.
    """
    number = qid.rsplit("-", 1)[-1]
    return qid.startswith("s15-") and number.isdigit() and int(number) % 3 == 0


def run_set(conn, path: Path, ids, embedder, modes: list[str], collapse: bool) -> None:
    queries = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    print(f"\n=== {path.name}: {len(queries)} queries")
    summaries, by_type, splits = {}, {}, {}
    subsets = {}
    if any(held_out(q["qid"]) for q in queries):
        for name, keep in (("development", False), ("held-out", True)):
            subset = OUT_DIR / f"queries_{path.stem}_{name}.jsonl"
            subset.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries
                                      if held_out(q["qid"]) == keep), encoding="utf-8")
            subsets[name] = subset
    for mode in modes:
        out = OUT_DIR / f"results_{path.stem}_{mode.replace('+', '_')}.jsonl"
        latencies = run_mode(conn, queries, ids, embedder, mode, collapse, out)
        summaries[mode] = score(path, out)
        by_type[mode] = per_filter_type(queries, out)
        splits[mode] = {name: score(subset, out) for name, subset in subsets.items()}
        latencies.sort()
        print(f"{mode:12s} results -> {out}  (per query incl. embedding: p50 {latencies[len(latencies) // 2]:.1f} ms)")
    groups = ["all", "lang=zh", "lang=en", "lang=cross", "kind=known_item", "known_item/cross", "known_item/zh",
              "known_item/en", "kind=filtered"]
    print(f"\n{'group':<18}{'mode':<13}" + "".join(f"{m:>9}" for m in METRICS))
    for group in groups:
        for mode, summary in summaries.items():
            row = summary.get(group)
            if not row:
                continue
            cells = "".join(f"{'-':>9}" if row.get(m) is None else f"{row[m]:>9.3f}" for m in METRICS)
            print(f"{group:<18}{mode:<13}{cells}")
    if subsets:
        print(f"\n{'split':<30}{'mode':<13}" + "".join(f"{m:>9}" for m in METRICS))
        for group in ("known_item/cross", "known_item/zh", "known_item/en", "kind=filtered"):
            for name in subsets:
                for mode in modes:
                    row = splits[mode][name].get(group)
                    if row:
                        cells = "".join(f"{'-':>9}" if row.get(m) is None else f"{row[m]:>9.3f}" for m in METRICS)
                        label = f"{name} {group}"
                        print(f"{label:<30}{mode:<13}{cells}")
    if any(by_type.values()):
        print(f"\n{'filter type':<18}{'mode':<13}{'n':>4}{'P@10':>9}{'P@10/ceil':>11}{'R@50':>9}")
        for kind in FILTER_TYPES:
            for mode, rows in by_type.items():
                if kind in rows:
                    r = rows[kind]
                    print(f"{kind:<18}{mode:<13}{r['n']:>4}{r['p@10']:>9.3f}{r['p@10/ceiling']:>11.3f}{r['r@50']:>9.3f}")
    if "hybrid" in summaries:
        hybrid = summaries["hybrid"]["all"]
        worse = [f"{m} vs {mode}" for mode in summaries if mode in ("vector", "keyword") for m in METRICS
                 if hybrid.get(m) is not None and summaries[mode]["all"].get(m) is not None
                 and hybrid[m] + 1e-9 < summaries[mode]["all"][m]]
        cross = summaries["hybrid"].get("known_item/cross") or {}
        print("\nhybrid >= single modes on every metric:", "yes" if not worse else f"NO ({', '.join(worse)})")
        print(f"cross-lingual known-item hybrid: hit@1 {cross.get('hit@1') or 0:.3f} (>= 0.80), "
              f"hit@5 {cross.get('hit@5') or 0:.3f} (>= 0.95); filtered P@10 {hybrid.get('p@10') or 0:.3f} (>= 0.70), "
              f"R@50 {hybrid.get('r@50') or 0:.3f} (>= 0.95)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reuse", action="store_true", help="keep an already loaded benchmark database")
    parser.add_argument("--queries", default=f"{EVAL / 'dev_queries.jsonl'},{OWN_QUERIES}",
                        help="comma-separated query files (default: the dev set and ours)")
    parser.add_argument("--no-collapse", action="store_true")
    parser.add_argument("--modes", default="vector,keyword,hybrid,hybrid+auto",
                        help="legs to compare; '+auto' applies what each query states as filters (auto_filters)")
    args = parser.parse_args()
    if not (EVAL / "postings.jsonl").exists():
        print(f"needs {EVAL}/postings.jsonl (../shared/data is absent)")
        return 1
    url, ids, embedder = prepare_database(args.reuse)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    global RERANKER
    try:
        from jobpipe.search.rerank import reranker_from_env
    except ImportError:   # a checkout from before the reranker
        def reranker_from_env():
            return None

    RERANKER = reranker_from_env()
    modes = args.modes.split(",")
    if RERANKER is not None and "hybrid+rerank" not in modes:
        modes.append("hybrid+rerank")
    print(f"reranker: {RERANKER.model} (depth {RERANKER.depth})" if RERANKER is not None else
          "reranker: none configured (set JOBPIPE_RERANK_URL, JOBPIPE_RERANK_KIND=rerank|chat, JOBPIPE_RERANK_MODEL "
          "to measure hybrid+rerank)")
    with connect(url, autocommit=True) as conn:
        search(conn, "warm up", embedder=embedder)
        for path in args.queries.split(","):
            run_set(conn, Path(path), ids, embedder, modes, not args.no_collapse)
    return 0


if __name__ == "__main__":
    sys.exit(main())
