"""Search speed on 100,000 synthetic postings: latency per mode and filter, throughput, query embedding.

    python bench/bench_search_speed.py [--rows 100000] [--reuse] [--queries 200] [--explain]

Hybrid queries run their two legs side by side on two connections, as the service does when
its pool has a spare connection; one scenario runs them in turn for comparison.

Postings are synthetic but realistic where it matters for speed: their search tokens are
real token streams (the eval corpus's, reshuffled and mixed, when ../shared/data is present),
so lexeme frequencies and tsvector sizes look like production; vectors are clustered random
512-d unit vectors (no model needed) in an HNSW index of the store's exact form. Server-side
latency excludes query embedding (queries carry precomputed vectors); embedding time is
measured on its own, cold and from the cache. Prints figures; asserts nothing.

Latency is only comparable between runs on an equally loaded machine (2 cores shared), so the
load average and any autovacuum worker in this database are printed before and after; compare
variants as ratios within one run. The build merges the GIN pending lists after writing, as the
store's writers do (``jobpipe.store.pending``): a first run measures what a night leaves.
``--explain`` also prints ``EXPLAIN (ANALYZE, BUFFERS)`` of the keyword leg's statement (the
one search runs, from ``keyword_sql``) for typical Chinese and English queries: where that
leg's time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import psycopg

from jobpipe.db import connect, migrate, with_database
from jobpipe.db.connection import database_url
from jobpipe.search import SearchFilters, search
from jobpipe.search import keyword as keyword_module
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.keyword import keyword_sql, prepare_concepts
from jobpipe.search.query_terms import query_concepts
from jobpipe.search.vector import QueryVectorCache, embed_query
from jobpipe.store.index import _create_sql, index_name
from jobpipe.store.pending import merge_gin_pending
from jobpipe.store.term_lists import merge_term_lists
from jobpipe.store.terms import FILTER_COLUMNS
from jobpipe.text.tokenize import search_tokens

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "eval"
DB_NAME = "jobpipe_bench_search_speed"
MODEL, DIMS = "synthetic-512", 512
CITIES = [("Beijing", 20), ("Shanghai", 20), ("Shenzhen", 10), ("Hangzhou", 8), ("San Francisco", 8),
          ("New York", 6), ("Singapore", 6), ("London", 5), ("Chengdu", 5), ("Berlin", 4), ("Tokyo", 4),
          ("Zhengzhou", 1), ("Istanbul", 0.5)]
JOB_TYPES = [("full_time", 85), ("intern", 8), ("part_time", 3), ("campus", 2), ("contract", 2)]


class PrecomputedEmbedder:
    """Returns a prepared vector per query: search runs without any model cost."""

    model, dims = MODEL, DIMS

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors

    def embed_queries(self, texts):
        return np.stack([self.vectors[t] for t in texts])


def _token_streams(rng: random.Random) -> tuple[list[str], list[str]]:
    """(titles, token strings) to build postings from: the eval corpus's, or a generated vocabulary."""
    path = EVAL / "postings.jsonl"
    if path.exists():
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
        titles = [r["title"] or "" for r in records]
        streams = [search_tokens(f"{r['title']} {r.get('company') or ''} {(r.get('description') or '')[:3000]}")
                   for r in records]
        return titles, streams
    words = [f"w{i}" for i in range(20000)]
    weights = [1.0 / (i + 1) for i in range(len(words))]
    titles = [" ".join(rng.choices(words[:2000], weights[:2000], k=3)) for _ in range(2000)]
    streams = [" ".join(rng.choices(words, weights, k=250)) for _ in range(2000)]
    return titles, streams


def build(url: str, rows: int, *, merge_pending: bool = True, arrival_order: bool = True) -> None:
    """``arrival_order``: postings are stored in the order they were posted, as the nightly run
    writes them (each night's new postings after the last night's), so a posted-within filter's
    rows lie together at the table's end; without it their dates are shuffled against the storage
    order (a backfill of old postings, the worst case for that filter)."""
    rng = random.Random(42)
    dates = random.Random(43)
    ages = [dates.random() * 365 for _ in range(rows)]
    if arrival_order:
        ages.sort(reverse=True)
    nrng = np.random.default_rng(42)
    titles, streams = _token_streams(rng)
    print(f"building {rows} postings from {len(streams)} token streams ...", flush=True)
    cities, city_w = zip(*CITIES)
    types, type_w = zip(*JOB_TYPES)
    now = datetime.now(timezone.utc)
    centers = nrng.normal(size=(300, DIMS)).astype(np.float32)
    start = time.perf_counter()
    terms: list[tuple[str, str, str]] = []
    with connect(url) as conn:
        conn.execute("CREATE TEMP TABLE terms_stage (external_id text, tokens text, title text)")
        with conn.cursor() as cur, cur.copy(
            "COPY jobs (source, external_id, title, cities, job_type, remote, posted_at, salary_currency,"
            " salary_annual_min, salary_annual_max, content_hash, record_hash, dedupe_key) FROM STDIN"
        ) as copy:
            for i in range(rows):
                k = rng.randrange(len(streams))
                tokens = streams[k].split()
                # A different mix per row: a shuffled window of one stream plus words of another.
                cut = rng.randrange(max(1, len(tokens) // 2) + 1)
                other = streams[rng.randrange(len(streams))].split()
                mix = tokens[cut:cut + 200] + other[:40]
                rng.shuffle(mix)
                title = titles[k]
                low = rng.choice([8e4, 1.5e5, 3e5, 6e5])
                copy.write_row((
                    "synthetic", f"s{i}", title, [rng.choices(cities, city_w)[0]], rng.choices(types, type_w)[0],
                    "remote" if rng.random() < 0.1 else None, now - timedelta(days=ages[i]),
                    rng.choice(["CNY", "USD"]), low, low * 1.5, "h", "r",
                    f"d{i if rng.random() > 0.02 else i - 1}",
                ))
                terms.append((f"s{i}", search_tokens(title) + " " + " ".join(mix), title))
        # The keyword terms, in the store's exact form (jobpipe.store.terms), from these token streams.
        with conn.cursor() as cur, cur.copy("COPY terms_stage FROM STDIN") as copy:
            for row in terms:
                copy.write_row(row)
        filters = ", ".join(FILTER_COLUMNS)
        conn.execute(
            f"INSERT INTO job_terms (job_id, content_hash, search_length, search_tsv, title_tsv, {filters}) "
            "SELECT j.job_id, j.content_hash, cardinality(string_to_array(s.tokens, ' ')), "
            "to_tsvector('simple', s.tokens), to_tsvector('simple', jobpipe_title_terms(s.title)), "
            + ", ".join(f"j.{c}" for c in FILTER_COLUMNS)
            + " FROM terms_stage s JOIN jobs j ON j.source = 'synthetic' AND j.external_id = s.external_id"
        )
        conn.commit()
        print(f"  jobs copied in {time.perf_counter() - start:.1f} s", flush=True)
        # As the store's writers do (sync_job_terms, curate_fetch): without it every search scans
        # the GIN pending lists until autovacuum reaches the tables, mid-measurement or not.
        if merge_pending:
            start = time.perf_counter()
            pages = merge_gin_pending(conn, ["jobs", "job_terms"])
            print(f"  GIN pending lists merged ({pages} pages) in {time.perf_counter() - start:.1f} s", flush=True)
        # As the night's index stage does (jobpipe.pipeline.vectors.maintain_indexes).
        merged = merge_term_lists(conn)
        print(f"  keyword posting lists built ({merged.lists} lists) in {merged.seconds:.1f} s", flush=True)
        conn.execute("INSERT INTO embedding_models (model, dims, state, activated_at) VALUES (%s, %s, 'active', now())",
                     (MODEL, DIMS))
        ids = [r[0] for r in conn.execute("SELECT job_id FROM jobs ORDER BY job_id")]
        start = time.perf_counter()
        with conn.cursor() as cur, cur.copy(
            "COPY job_embeddings (job_id, model, dims, content_hash, embedding) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "text", "int4", "text", "vector"])
            for chunk in range(0, len(ids), 5000):
                part = ids[chunk:chunk + 5000]
                vecs = centers[nrng.integers(0, len(centers), len(part))] + nrng.normal(0, 0.6, (len(part), DIMS))
                vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
                for job_id, v in zip(part, vecs):
                    copy.write_row((job_id, MODEL, DIMS, "h", v))
        conn.commit()
        print(f"  vectors copied in {time.perf_counter() - start:.1f} s", flush=True)
        start = time.perf_counter()
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(_create_sql(index_name(MODEL, DIMS), MODEL, DIMS, 16, 64, concurrently=False))
        conn.commit()
        print(f"  HNSW built in {time.perf_counter() - start:.1f} s", flush=True)
        conn.execute("ANALYZE jobs")
        conn.execute("ANALYZE job_terms")
        conn.execute("ANALYZE job_embeddings")
        conn.commit()
    if merge_pending:
        # What autovacuum does a minute or so after a load this size: the visibility map that
        # index-only scans need (the remote filter's, sql/0034) and hint bits. Without it a fresh
        # build measures a state no settled store is in, and the worker competes for the CPU mid-run.
        # (Not for bench_gin_pending's build, which keeps its pending lists: VACUUM merges them.)
        start = time.perf_counter()
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("VACUUM (ANALYZE) jobs, job_terms, job_embeddings, job_filter_vectors")
        print(f"  vacuumed in {time.perf_counter() - start:.1f} s", flush=True)


def prepare_database(rows: int, reuse: bool, *, arrival_order: bool = True) -> str:
    base = database_url()
    name = DB_NAME if arrival_order else DB_NAME + "_shuffled"
    url = with_database(base, name)
    with psycopg.connect(with_database(base, "postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists and reuse:
            migrate(url)
            with connect(url) as conn:
                merged = merge_term_lists(conn)   # a database built before the lists existed gets them
            if merged.mode != "current":
                print(f"keyword posting lists: {merged.mode} merge in {merged.seconds:.1f} s", flush=True)
            return url
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(url)
    build(url, rows, arrival_order=arrival_order)
    return url


def make_queries(url: str, n: int) -> tuple[list[str], dict[str, np.ndarray]]:
    """Queries shaped like real ones: a title, or a few words of a posting, each with a near vector."""
    rng = random.Random(7)
    with connect(url) as conn:
        sample = conn.execute("SELECT j.title, array_to_string(tsvector_to_array(t.search_tsv), ' '), e.embedding "
                              "FROM jobs j TABLESAMPLE SYSTEM (2) JOIN job_terms t USING (job_id) "
                              "JOIN job_embeddings e USING (job_id) LIMIT %s", (n,)).fetchall()
    nrng = np.random.default_rng(7)
    queries, vectors = [], {}
    for i, (title, tokens, emb) in enumerate(sample):
        words = tokens.split()
        text = title if i % 2 == 0 else " ".join(rng.sample(words, min(len(words), rng.randint(2, 8))))
        text = " ".join(f"{text} #{i}".split())   # unique, so the embedding cache never answers
        v = np.asarray(emb.to_numpy() if hasattr(emb, "to_numpy") else emb, dtype=np.float32) + nrng.normal(0, 0.02, DIMS).astype(np.float32)
        queries.append(text)
        vectors[text] = v / np.linalg.norm(v)
    return queries, vectors


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def latency_run(url, queries, embedder, mode, filters, *, side_by_side: bool = True, prepared: bool = True,
                ) -> tuple[list[float], dict[str, float], dict[str, int]]:
    """Per-query server time; hybrid runs its legs side by side on two connections (as the
    service does when its pool has a spare) unless ``side_by_side`` is False. ``prepared=False``
    plans every statement afresh (no server-side prepared statements: each query's own plan).
    Returns the times, each stage's median and how many queries took each vector plan."""
    server, stages, plans = [], {}, {}
    with connect(url, autocommit=True) as conn, connect(url, autocommit=True) as second:
        if not prepared:
            conn.prepare_threshold = second.prepare_threshold = None
        spare = second if side_by_side else None
        for q in queries[:5]:
            search(conn, q, filters, embedder=embedder, mode=mode, keyword_conn=spare)   # warm caches and connection
        for q in queries:
            r = search(conn, q, filters, embedder=embedder, mode=mode, debug=True, keyword_conn=spare)
            server.append(r.timings_ms["total"] - r.timings_ms.get("embed", 0.0))
            for k, v in r.timings_ms.items():
                stages.setdefault(k, []).append(v)
            method = (r.debug.get("vector_plan") or {}).get("method", "-")
            plans[method] = plans.get(method, 0) + 1
            if "keyword_path" in r.debug:
                path = "keyword:" + r.debug["keyword_path"]
                plans[path] = plans.get(path, 0) + 1
    return server, {k: statistics.median(v) for k, v in stages.items()}, plans


def throughput(url, queries, embedder, clients: int, seconds: float) -> tuple[float, float]:
    done: list[float] = []
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(offset: int) -> None:
        with connect(url, autocommit=True) as conn, connect(url, autocommit=True) as second:
            i = offset
            while time.perf_counter() < stop:
                t = time.perf_counter()
                search(conn, queries[i % len(queries)], embedder=embedder, keyword_conn=second)
                with lock:
                    done.append((time.perf_counter() - t) * 1000)
                i += clients

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(done) / (time.perf_counter() - start), statistics.median(done) if done else 0.0


def embedding_times(n: int = 20) -> None:
    try:
        from search_eval_loader import get_embedder
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from search_eval_loader import get_embedder
    embedder = get_embedder()
    cache = QueryVectorCache()
    embed_query(embedder, "warm up the model")   # first call loads the model
    texts = [f"后端开发工程师 Go Kubernetes 北京 {i}" if i % 2 else f"senior data engineer spark remote {i}"
             for i in range(n)]
    cold = []
    for t in texts:
        s = time.perf_counter()
        embed_query(embedder, t, cache)
        cold.append((time.perf_counter() - s) * 1000)
    hot = []
    for t in texts:
        s = time.perf_counter()
        _, cached = embed_query(embedder, t, cache)
        hot.append((time.perf_counter() - s) * 1000)
        assert cached
    print(f"query embedding ({embedder.model}): uncached p50 {statistics.median(cold):.1f} ms "
          f"p99 {pct(cold, 99):.1f} ms; cache hit p50 {statistics.median(hot) * 1000:.1f} µs")


#: Typical queries for --explain: a Chinese title, Chinese skill words, an English title and skills.
EXPLAIN_QUERIES = ("后端开发工程师", "数据分析 实习 Python", "senior software engineer", "machine learning Spark")


def explain_keyword(url: str, queries=EXPLAIN_QUERIES) -> None:
    """The keyword leg's plan and buffers per query (literals inlined: a custom plan)."""
    filters = SearchFilters()
    fsql = build_filter_sql(filters)
    with connect(url, autocommit=True) as conn:
        for q in queries:
            built = keyword_sql(conn, prepare_concepts(conn, query_concepts(q, filters)), fsql, 100)
            if built is None:
                print(f"\n--- {q}: no lookups")
                continue
            cur = psycopg.ClientCursor(conn)
            cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + built[0], built[1])
            print(f"\n--- EXPLAIN keyword leg: {q}")
            print("\n".join(r[0] for r in cur.fetchall()))


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def autovacuum_activity(url: str) -> str:
    """What autovacuum is doing in this database now (it competes for the 2 cores)."""
    with connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT query FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' "
                            "AND datname = current_database()").fetchall()
    return "; ".join(r[0] for r in rows) or "none"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--skip-embedding", action="store_true")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN the keyword leg of typical queries")
    parser.add_argument("--shuffled-dates", action="store_true",
                        help="posted dates shuffled against the storage order (a backfill; its own database)")
    args = parser.parse_args()
    url = prepare_database(args.rows, args.reuse, arrival_order=not args.shuffled_dates)
    queries, vectors = make_queries(url, args.queries)
    embedder = PrecomputedEmbedder(vectors)
    with connect(url) as conn:
        count = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    # One untimed pass over every query first: the figures are for a warm server, not for the
    # pages another database (or a previous bench) pushed out of shared_buffers.
    latency_run(url, queries, embedder, "hybrid", SearchFilters())
    print(f"\n{count} postings, {len(queries)} queries (after one untimed warm-up pass); "
          f"server-side ms (excluding query embedding); load average {load_average()}; "
          f"autovacuum: {autovacuum_activity(url)}")
    print(f"{'scenario':<40}{'p50':>8}{'p90':>8}{'p99':>8}   median per stage / vector plans")
    scenarios = [
        ("hybrid, no filter", "hybrid", SearchFilters()),
        ("hybrid, no filter, legs in turn", "hybrid-in-turn", SearchFilters()),
        ("vector only, no filter", "vector", SearchFilters()),
        ("keyword only, no filter", "keyword", SearchFilters()),
        ("keyword only, no filter, GIN statement", "keyword-gin", SearchFilters()),
        ("hybrid, no filter, GIN statement", "hybrid-gin", SearchFilters()),
        ("hybrid, city=Beijing (~20%)", "hybrid", SearchFilters(city="北京")),
        ("hybrid, job_type=intern (~8%)", "hybrid", SearchFilters(job_type="intern")),
        ("hybrid, city=Zhengzhou (~1%)", "hybrid", SearchFilters(city="郑州")),
        ("hybrid, Shanghai+intern (~1.6%)", "hybrid", SearchFilters(city="Shanghai", job_type="intern")),
        ("hybrid, remote+salary>=100k USD", "hybrid", SearchFilters(remote=True, salary_min=100_000)),
        ("hybrid, posted_within_days=30", "hybrid", SearchFilters(posted_within_days=30)),
        # a past month (~8%): the window filter (posted_from / posted_until), away from the newest rows
        ("hybrid, posted 120..91 days ago", "hybrid",
         SearchFilters(posted_from=date.today() - timedelta(days=120), posted_until=date.today() - timedelta(days=91))),
    ]
    for name, mode, filters in scenarios:
        # "-gin": the keyword leg as the GIN statement, as before the posting lists (same queries)
        keyword_module.USE_LISTS = not mode.endswith("-gin")
        server, stages, plans = latency_run(url, queries, embedder, mode.split("-")[0], filters,
                                            side_by_side=not mode.endswith("in-turn"))
        keyword_module.USE_LISTS = True
        stage_text = " ".join(f"{k}={v:.1f}" for k, v in stages.items() if k not in ("total", "embed"))
        print(f"{name:<40}{pct(server, 50):>8.1f}{pct(server, 90):>8.1f}{pct(server, 99):>8.1f}   {stage_text} {plans}")
    for clients in (1, args.clients):
        qps, p50 = throughput(url, queries, embedder, clients, args.seconds)
        print(f"throughput, hybrid no filter, {clients} client(s): {qps:.1f} queries/s (p50 {p50:.1f} ms)")
    if not args.skip_embedding:
        embedding_times()
    print(f"load average after: {load_average()}; autovacuum: {autovacuum_activity(url)}")
    if args.explain:
        explain_keyword(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
