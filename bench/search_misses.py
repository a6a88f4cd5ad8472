"""Every miss of the hybrid search on our labels, with where each leg ranked the target.

    python bench/search_misses.py [--kind cross|filtered|all] [--split development|held-out|all] [--at 1]

Reads the database `bench_search_quality.py` loaded (run that first); prints, per cross-lingual
known-item query whose target is not within ``--at``: the query, the target's title, the rank
each leg gave it, the hybrid's first title and the keyword concepts; per filtered query, every
relevant posting outside the top 50, whether it passes the filter and its leg ranks. It is for
reading misses as classes (which leg, which words, which translation), never for tuning one query.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search_quality import DB_NAME, OWN_QUERIES, filters_of, held_out  # noqa: E402
from search_eval_loader import get_embedder  # noqa: E402

from jobpipe.db import connect, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.search import search  # noqa: E402
from jobpipe.search.filters import build_filter_sql  # noqa: E402


def leg_ranks(conn, q, embedder, top_k: int = 100) -> dict[str, dict[int, int]]:
    out = {}
    for mode in ("vector", "keyword", "hybrid"):
        response = search(conn, q["query"], filters_of(q), top_k=top_k, embedder=embedder, mode=mode,
                          collapse_duplicates=False)
        out[mode] = {r.job_id: i for i, r in enumerate(response.results, start=1)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", default="all", choices=("cross", "filtered", "all"))
    parser.add_argument("--split", default="all", choices=("development", "held-out", "all"))
    parser.add_argument("--at", type=int, default=1, help="a known item ranked below this is a miss")
    args = parser.parse_args()
    url = with_database(database_url(), DB_NAME)
    embedder = get_embedder()
    queries = [json.loads(line) for line in OWN_QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [q for q in queries if args.split == "all" or held_out(q["qid"]) == (args.split == "held-out")]
    with connect(url, autocommit=True) as conn:
        by_ext = {e: (i, t, lang) for i, e, t, lang in conn.execute(
            "SELECT job_id, external_id, title, coalesce(language, '') FROM jobs")}
        for q in queries:
            cross = q["kind"] == "known_item" and q["lang"] == "cross"
            if not ((cross and args.kind in ("cross", "all")) or (q["kind"] == "filtered"
                                                                     and args.kind in ("filtered", "all"))):
                continue
            ranks = leg_ranks(conn, q, embedder)
            relevant = [by_ext[e] for e in q["relevant"] if e in by_ext]
            if cross:
                best = min((ranks["hybrid"].get(r[0], 999) for r in relevant), default=999)
                if best <= args.at:
                    continue
                target = relevant[0]
                top = next(iter(ranks["hybrid"]), None)
                top_title = next((t for i, t, _ in by_ext.values() if i == top), "-")
                concepts = search(conn, q["query"], filters_of(q), embedder=None, mode="keyword",
                                  debug=True).debug.get("keyword_concepts", [])
                print(f"\n{q['qid']} [{q['lang']}] {q['query']}")
                print(f"  target ({target[2]}) {target[1]!r}: hybrid {best}, vector "
                      f"{min(ranks['vector'].get(r[0], 999) for r in relevant)}, keyword "
                      f"{min(ranks['keyword'].get(r[0], 999) for r in relevant)}")
                print(f"  first: {top_title!r}")
                print("  concepts: " + "; ".join(
                    f"{c['label']}=" + ",".join(f"{a['body']}({a['idf']})" for a in c["alternatives"][:5])
                    for c in concepts))
            else:
                fsql = build_filter_sql(filters_of(q))
                passing = {row[0] for row in conn.execute(
                    f"SELECT j.job_id FROM jobs j WHERE {fsql.where}", fsql.params)}
                top50 = set(list(ranks["hybrid"])[:50])
                missed = [r for r in relevant if r[0] not in top50]
                print(f"\n{q['qid']} {q['query']} {q['filters']}: {len(missed)}/{len(relevant)} outside top 50")
                for r in missed:
                    print(f"  {'pass' if r[0] in passing else 'FAIL'} v{ranks['vector'].get(r[0], '-')} "
                          f"k{ranks['keyword'].get(r[0], '-')} h{ranks['hybrid'].get(r[0], '-')} ({r[2]}) {r[1]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
