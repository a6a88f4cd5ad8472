"""Scale on one machine: 1,000,000 synthetic postings through the real store, index and search.

    python bench/bench_scale.py                       # 1M postings, 512-dim synthetic vectors (long: ~1-2 h here)
    python bench/bench_scale.py --n 100000            # the 100k point of the sizing table
    python bench/bench_scale.py --n 20000 --queries 50 --skip-quantized   # a quick smoke run
    python bench/bench_scale.py --reuse URL                # the search phase again, on a --keep run's database
    python bench/bench_scale.py --n 200000 --skip-quantized --stop-after-rerun --reruns 5   # the re-run figure only

Runs in a throw-away database on the configured server (created here, dropped at the end unless
``--keep``). Every step is jobpipe's own code path (``upsert_jobs``, ``sync_job_terms``,
``sync_job_embeddings``, the store's HNSW index form, ``index_recall``, ``search``); only the
postings (bench_store's synthetic generator) and the vectors are synthetic: clustered 512-dim
unit vectors, deterministic per embedding text, so a changed posting gets a new vector and an
unchanged one the same. Prints, per step: wall time and rate; table, index and database sizes;
HNSW build time, peak memory and size of the store's ``halfvec`` index, then of ``vector`` and binary-quantized
storage, each with its recall@10 against exact search; search p50/p99 with and without filters.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search_speed import latency_run, pct  # noqa: E402
from bench_store import (  # noqa: E402  (the bench scripts import each other as plain modules)
    cpu_timed,
    drop_database,
    edit_workload,
    fresh_database,
    synthetic_postings,
    timed,
)

from jobpipe.db import connect  # noqa: E402
from jobpipe.embedding.base import l2_normalize  # noqa: E402
from jobpipe.search import SearchFilters  # noqa: E402
from jobpipe.search import keyword as keyword_module  # noqa: E402
from jobpipe.search import vector as vector_module  # noqa: E402
from jobpipe.store import index_recall, sync_job_embeddings, sync_job_terms, upsert_jobs  # noqa: E402
from jobpipe.store.index import _create_sql, index_name, model_predicate, vector_expr  # noqa: E402
from jobpipe.store.term_lists import merge_term_lists  # noqa: E402

GB = 1024 ** 3


class ClusteredEmbedder:
    """Deterministic 'embeddings': a text's hash picks one of ``clusters`` centres, plus noise.

    Real embeddings are clustered (postings of one kind of job lie close together); pure random
    high-dimensional vectors are not, and would understate what an HNSW index achieves.
    """

    def __init__(self, dims: int = 512, clusters: int = 1000, noise: float = 0.7, seed: int = 11):
        self.dims, self.noise = dims, noise
        self.model = f"bench-clustered-{dims}"
        self.centres = np.random.default_rng(seed).standard_normal((clusters, dims)).astype(np.float32)
        self.count = 0

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        rng = np.random.default_rng(seed)
        return self.centres[seed % len(self.centres)] + rng.standard_normal(self.dims).astype(np.float32) * self.noise

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.count += len(texts)
        return l2_normalize(np.stack([self._vector(t) for t in texts]))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)


class PrecomputedEmbedder:
    """Query vectors prepared beforehand: search latency without model time."""

    def __init__(self, model: str, dims: int, vectors: dict[str, np.ndarray]):
        self.model, self.dims, self.vectors = model, dims, vectors

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


# ---------------------------------------------------------------- memory of a build
def _rss_kb(pid: int) -> int:
    """Private + shared resident memory of one process (kB): HNSW graphs of parallel builds live
    in shared memory, so RssShmem counts (it also counts shared_buffers pages the process touched)."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(("RssAnon:", "RssShmem:")):
                    total += int(line.split()[1])
    except OSError:
        pass
    return total


def _workers_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            if f"parallel worker for PID {pid}" in cmd:
                found.append(int(entry))
    return found


class PeakMemory:
    """Samples the resident memory of a backend and its parallel workers while a statement runs."""

    def __init__(self, pid: int, interval: float = 0.5):
        self.pid, self.interval = pid, interval
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total = _rss_kb(self.pid) + sum(_rss_kb(w) for w in _workers_of(self.pid))
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self.baseline_kb = _rss_kb(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def build_index(conn: psycopg.Connection, statement: sql.Composable, memory: str) -> tuple[float, float, list[str]]:
    """(seconds, peak GB of the building processes, notices) for one CREATE INDEX."""
    notices: list[str] = []
    conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
    conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(memory)))
    with PeakMemory(conn.info.backend_pid) as peak:
        start = time.perf_counter()
        conn.execute(statement)
        seconds = time.perf_counter() - start
    return seconds, peak.peak_kb * 1024 / GB, notices


def size(conn: psycopg.Connection, relation: str) -> float:
    return conn.execute("SELECT pg_total_relation_size(%s::regclass)", (relation,)).fetchone()[0] / GB


# ---------------------------------------------------------------- quantized variants
def quantized_recall(conn: psycopg.Connection, model: str, dims: int, queries: list[np.ndarray], kind: str,
                     k: int = 10, rerank: int = 100) -> tuple[float, float, float]:
    """(recall@k vs exact, p50 ms, p99 ms) of the float (``vector``, the store's index before
    sql/0032) or binary index on ``job_embeddings`` for ``queries``."""
    pred = model_predicate(model)
    exact = sql.SQL("SELECT job_id FROM job_embeddings WHERE {p} ORDER BY (embedding::vector({d})) <=> %s::vector({d}) "
                    "LIMIT {k}").format(p=pred, d=sql.Literal(dims), k=sql.Literal(k))
    if kind == "vector":
        ann = sql.SQL("SELECT job_id FROM job_embeddings WHERE {p} ORDER BY (embedding::vector({d})) <=> "
                      "%s::vector({d}) LIMIT {k}").format(p=pred, d=sql.Literal(dims), k=sql.Literal(k))
    else:  # binary quantization: Hamming distance on the index, then exact re-ranking of the candidates
        ann = sql.SQL(
            "SELECT job_id FROM (SELECT job_id, embedding FROM job_embeddings WHERE {p} "
            "ORDER BY (binary_quantize(embedding::vector({d}))::bit({d})) <~> binary_quantize(%s::vector({d})) "
            "LIMIT {r}) c ORDER BY (embedding::vector({d})) <=> %s::vector({d}) LIMIT {k}"
        ).format(p=pred, d=sql.Literal(dims), r=sql.Literal(rerank), k=sql.Literal(k))
    hits, times = [], []
    conn.execute("SET enable_seqscan = off")
    conn.execute("SET hnsw.ef_search = 200")
    for q in queries:
        conn.execute("SET enable_indexscan = off")
        truth = {r[0] for r in conn.execute(exact, (q,))}
        conn.execute("SET enable_indexscan = on")
        start = time.perf_counter()
        got = [r[0] for r in conn.execute(ann, (q,) if kind == "vector" else (q, q))]
        times.append((time.perf_counter() - start) * 1000)
        hits.append(len(truth & set(got)) / k)
    conn.execute("RESET enable_seqscan")
    conn.execute("RESET enable_indexscan")
    return statistics.mean(hits), pct(times, 50), pct(times, 99)


# ---------------------------------------------------------------- search
def search_phase(conn: psycopg.Connection, url: str, model: str, dims: int, n_queries: int,
                 ) -> tuple[list[str], dict[str, np.ndarray]]:
    """Search p50/p99 through ``jobpipe.search`` per filter scenario, with each stage's median.

    Query texts are sampled titles; their vectors lie near existing postings (the stored vector
    plus a little noise), so the vector leg does the work a real query gives it. The stage medians
    (``timings_ms`` of ``debug=True``) and the vector plans say which leg costs what. The sample
    is repeatable: every ``--reuse`` run of one database searches the same queries.
    """
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    sample = conn.execute(
        sql.SQL("SELECT j.title, e.embedding FROM jobs j TABLESAMPLE SYSTEM (1) REPEATABLE (7) JOIN job_embeddings e "
                "USING (job_id) WHERE {p} LIMIT %s").format(p=model_predicate(model, "e")),
        (n_queries,)).fetchall()
    vectors: dict[str, np.ndarray] = {}
    texts = []
    for i, (title, vec) in enumerate(sample):
        text = f"{title} #{i}"
        v = np.asarray(vec.to_numpy(), dtype=np.float32) + nrng.normal(0, 0.05, dims).astype(np.float32)
        vectors[text] = v / np.linalg.norm(v)
        texts.append(text)
    rng.shuffle(texts)
    precomputed = PrecomputedEmbedder(model, dims, vectors)
    scenarios = [
        ("hybrid, no filter", "hybrid", SearchFilters()),
        ("vector only, no filter", "vector", SearchFilters()),
        ("keyword only, no filter", "keyword", SearchFilters()),
        ("hybrid, no filter, GIN statement", "hybrid-gin", SearchFilters()),
        ("hybrid, city=Beijing (~8%)", "hybrid", SearchFilters(city="Beijing")),
        ("hybrid, job_type=intern (~33%)", "hybrid", SearchFilters(job_type="intern")),
        ("hybrid, Berlin+intern+remote (~0.7%)", "hybrid", SearchFilters(city="Berlin", job_type="intern", remote=True)),
        ("hybrid, Berlin+intern+remote, column indexes", "hybrid-columns",
         SearchFilters(city="Berlin", job_type="intern", remote=True)),
    ]
    keyed = vector_module.KEYED_MIN_VALUES
    print(f"\nsearch ({len(texts)} queries, server time without query embedding, warm, load average "
          f"{os.getloadavg()[0]:.1f}):", flush=True)
    for label, mode, filters in scenarios:
        # "-gin": the keyword leg as the GIN statement, as before the posting lists
        keyword_module.USE_LISTS = not mode.endswith("-gin")
        # "-columns": the exact vector scan through each column's own index, as before sql/0031
        vector_module.KEYED_MIN_VALUES = 1_000 if mode.endswith("-columns") else keyed
        times, stages, plans = latency_run(url, texts, precomputed, mode.split("-")[0], filters, prepared=False)
        keyword_module.USE_LISTS = True
        vector_module.KEYED_MIN_VALUES = keyed
        medians = ", ".join(f"{k} {v:.1f}" for k, v in stages.items() if k not in ("total", "embed"))
        print(f"  {label:<40} p50 {pct(times, 50):6.1f} ms  p99 {pct(times, 99):6.1f} ms  "
              f"(stage medians ms: {medians}; vector plans {plans})", flush=True)
    return texts, vectors


def recall_by_ef(conn: psycopg.Connection, model: str, dims: int, queries: list[np.ndarray],
                 efs: tuple[int, ...] = (40, 100, 200, 400), k: int = 10) -> None:
    """recall@k of the HNSW index against exact search, and the ANN query's p50, per ef_search.

    The exact answers are computed once per query and shared by every ef_search, so the
    figures differ only by the candidate list's size: what raising ``hnsw.ef_search`` buys.
    """
    pred = model_predicate(model)
    exact = sql.SQL("SELECT job_id FROM job_embeddings WHERE {p} ORDER BY cosine_distance(embedding::vector({d}), "
                    "%s::vector({d})) LIMIT {k}").format(p=pred, d=sql.Literal(dims), k=sql.Literal(k))
    ann = sql.SQL("SELECT job_id FROM job_embeddings WHERE {p} ORDER BY {e} <=> "
                  "l2_normalize(%s::vector({d}))::halfvec({d}) LIMIT {k}").format(p=pred, e=vector_expr(dims), d=sql.Literal(dims),
                                                                                   k=sql.Literal(k))
    truths = [{r[0] for r in conn.execute(exact, (q,))} for q in queries]
    print(f"\nrecall@{k} vs exact by ef_search ({len(queries)} search queries, unfiltered):", flush=True)
    for ef in efs:
        conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(ef)))
        hits, times = [], []
        for q, truth in zip(queries, truths):
            start = time.perf_counter()
            got = {r[0] for r in conn.execute(ann, (q,))}
            times.append((time.perf_counter() - start) * 1000)
            hits.append(len(truth & got) / k)
        print(f"  ef_search {ef:>4}: recall@{k} {statistics.mean(hits):.3f}, ANN query p50 {pct(times, 50):.1f} ms "
              f"p99 {pct(times, 99):.1f} ms", flush=True)
    conn.execute("RESET hnsw.ef_search")


def reuse(url: str, dims: int, n_queries: int, build_memory: str, recall: bool = True) -> int:
    """The search phase alone on a database a ``--keep`` run left (rebuilding its HNSW index if the
    quantized variants dropped it), so it can be re-measured on a quiet machine."""
    with connect(url, autocommit=True) as conn:
        conn.prepare_threshold = None
        model = f"bench-clustered-{dims}"
        name = index_name(model, dims)
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]
        if not exists:
            seconds, peak, _ = build_index(conn, _create_sql(name, model, dims, 16, 64), build_memory)
            print(f"HNSW halfvec({dims}) (the store's index) rebuilt: {seconds:.0f} s, peak {peak:.2f} GB", flush=True)
        total = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
        lists = merge_term_lists(conn)   # a database kept before the lists existed gets them
        if lists.mode != "current":
            print(f"keyword posting lists: {lists.mode} merge in {lists.seconds:.1f} s", flush=True)
        print(f"bench_scale --reuse: {total:,} postings, load average {os.getloadavg()[0]:.1f}", flush=True)
        texts, vectors = search_phase(conn, url, model, dims, n_queries)
        if recall:
            recall_by_ef(conn, model, dims, [vectors[t] for t in texts[:50]])
    return 0


# ---------------------------------------------------------------- driver
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dims", type=int, default=512)
    parser.add_argument("--build-memory", default="4GB", help="maintenance_work_mem for the HNSW builds")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--recall-sample", type=int, default=100)
    parser.add_argument("--skip-quantized", action="store_true", help="skip the float (vector) and binary index variants on job_embeddings")
    parser.add_argument("--keep", action="store_true", help="keep the database (its URL is printed)")
    parser.add_argument("--reuse", metavar="URL", help="only the search phase, on a database a --keep run left")
    parser.add_argument("--reruns", type=int, default=1,
                        help="time the unchanged re-run's upsert this many times (the median is reported)")
    parser.add_argument("--stop-after-rerun", action="store_true",
                        help="stop after the unchanged re-run (no changed day, HNSW or search phase)")
    parser.add_argument("--no-recall", action="store_true",
                        help="with --reuse: skip recall by ef_search (50 exact scans of the whole table)")
    args = parser.parse_args()
    if args.reuse:
        return reuse(args.reuse, args.dims, args.queries, args.build_memory, recall=not args.no_recall)
    n, dims = args.n, args.dims
    print(f"bench_scale: {n:,} synthetic postings, {dims}-dim synthetic vectors, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)

    start = time.perf_counter()
    postings = synthetic_postings(n)
    edited, inside, outside = edit_workload(postings)
    print(f"generated in {time.perf_counter() - start:.0f} s (mean description "
          f"{np.mean([len(p.description_text) for p in postings[:10000]]):.0f} chars)", flush=True)

    url, admin = fresh_database("scale")
    print(f"database: {url.split('?')[0].rsplit('/', 1)[-1]}", flush=True)
    try:
        with connect(url) as conn:
            conn.prepare_threshold = None
            counts, first, first_client, first_server = cpu_timed(conn, upsert_jobs, postings)
            print(f"\nfirst load: {first:.1f} s = {n / first:,.0f} postings/s (embedding excluded); CPU client "
                  f"{first_client:.0f} s + server {first_server:.0f} s; {counts}", flush=True)
            terms, terms_s = timed(sync_job_terms, conn)
            print(f"keyword terms: {terms.computed:,} in {terms_s:.1f} s = {terms.computed / terms_s:,.0f} postings/s "
                  f"({terms.workers or 1} tokenizer process(es))", flush=True)
            lists = merge_term_lists(conn)
            print(f"keyword posting lists: {lists.mode} build of {lists.lists:,} lists in {lists.seconds:.1f} s; "
                  f"{size(conn, 'term_lists'):.2f} GB", flush=True)
            embedder = ClusteredEmbedder(dims)
            emb, emb_s = timed(sync_job_embeddings, conn, embedder, batch_size=2000)
            print(f"vectors stored: {emb.embedded:,} in {emb_s:.1f} s = {emb.embedded / emb_s:,.0f}/s store-side "
                  "(synthetic vectors: model time excluded)", flush=True)

            conn.commit()
            timings = []
            for _ in range(max(1, args.reruns)):
                rerun, rerun_s, rerun_client, rerun_server = cpu_timed(conn, upsert_jobs, postings)
                timings.append(rerun_s)
                if args.reruns > 1:
                    print(f"  unchanged re-run upsert: {rerun_s:.2f} s (CPU client {rerun_client:.2f} s + server "
                          f"{rerun_server:.2f} s)", flush=True)
            rerun_s = statistics.median(timings)
            reterms, reterms_s = timed(sync_job_terms, conn)
            relists = merge_term_lists(conn)
            reterms_s += relists.seconds
            recount = ClusteredEmbedder(dims)
            _, reemb_s = timed(sync_job_embeddings, conn, recount, batch_size=2000)
            total_rerun = rerun_s + reterms_s + reemb_s
            print(f"\nunchanged re-run: upsert {rerun_s:.2f} s = {rerun_s / first:.1%} of the first load (target <= 3%); "
                  f"with terms + embedding sync {total_rerun:.2f} s = {total_rerun / (first + terms_s + emb_s):.1%} "
                  f"of the first day; {rerun}, "
                  f"terms {reterms.computed}, keyword lists {relists.mode}, embeddings {recount.count}", flush=True)
            if args.stop_after_rerun:
                return 0

            day, day_s, _, _ = cpu_timed(conn, upsert_jobs, edited)
            day_terms, day_terms_s = timed(sync_job_terms, conn)
            day_lists = merge_term_lists(conn)
            changer = ClusteredEmbedder(dims)
            _, day_emb_s = timed(sync_job_embeddings, conn, changer, batch_size=2000)
            day_total = day_s + day_terms_s + day_lists.seconds + day_emb_s
            print(f"5%-changed day (+5% changed outside the embedding text): upsert {day_s:.1f} s, terms "
                  f"{day_terms.computed:,} in {day_terms_s:.1f} s, keyword lists {day_lists.mode} merge of "
                  f"{day_lists.postings:,} postings in {day_lists.seconds:.1f} s, embeddings {changer.count:,} "
                  f"(expected {len(inside):,}) stored in {day_emb_s:.1f} s; total {day_total:.1f} s",
                  flush=True)

            for table in ("jobs", "job_terms", "job_embeddings"):
                conn.execute(f"ANALYZE {table}")
            conn.commit()
            print(f"\nsizes (GB): jobs {size(conn, 'jobs'):.2f}, job_terms {size(conn, 'job_terms'):.2f}, "
                  f"job_embeddings {size(conn, 'job_embeddings'):.2f} (tables with their indexes, before HNSW)",
                  flush=True)

            conn.commit()
            conn.autocommit = True
            model = embedder.model
            name = index_name(model, dims)
            seconds, peak, notices = build_index(conn, _create_sql(name, model, dims, 16, 64), args.build_memory)
            fits = not any("no longer fits" in m for m in notices)
            print(f"\nHNSW halfvec({dims}) (the store's index) m=16 ef_construction=64: {seconds:.0f} s, peak memory of the building "
                  f"processes {peak:.2f} GB (maintenance_work_mem {args.build_memory}; graph "
                  f"{'fit in memory' if fits else 'did NOT fit: ' + '; '.join(notices)}), index "
                  f"{size(conn, name):.2f} GB", flush=True)
            r_plain = index_recall(conn, model, sample=args.recall_sample)
            r_sel = index_recall(conn, model, sample=args.recall_sample, filter_sql="selective")
            print(f"  recall@10 vs exact ({args.recall_sample} queries, ef_search 200): unfiltered {r_plain:.3f}, "
                  f"selective filter {r_sel:.3f}", flush=True)

            texts, vectors = search_phase(conn, url, model, dims, args.queries)

            if not args.skip_quantized:
                queries = [vectors[t] for t in texts[: args.recall_sample]]
                for kind, statement in (
                    ("vector", sql.SQL("CREATE INDEX bench_hnsw_vector ON job_embeddings USING hnsw "
                                       "((embedding::vector({d})) vector_cosine_ops) WITH (m = 16, ef_construction = 64) "
                                       "WHERE {p}").format(d=sql.Literal(dims), p=model_predicate(model))),
                    ("binary", sql.SQL("CREATE INDEX bench_hnsw_binary ON job_embeddings USING hnsw "
                                       "((binary_quantize(embedding::vector({d}))::bit({d})) bit_hamming_ops) "
                                       "WITH (m = 16, ef_construction = 64) WHERE {p}").format(
                                           d=sql.Literal(dims), p=model_predicate(model))),
                ):
                    conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name)))  # build alone
                    seconds, peak, notices = build_index(conn, statement, args.build_memory)
                    index = f"bench_hnsw_{kind}"
                    recall, p50, p99 = quantized_recall(conn, model, dims, queries, kind)
                    fits = not any("no longer fits" in m for m in notices)
                    print(f"\nHNSW {kind} on job_embeddings ({'vector(' + str(dims) + ') cosine, the store before sql/0032' if kind == 'vector' else f'bit({dims}) hamming, top 100 re-ranked exactly'}): "
                          f"{seconds:.0f} s, peak {peak:.2f} GB (graph {'fit' if fits else 'did NOT fit'}), index "
                          f"{size(conn, index):.2f} GB; recall@10 vs exact {recall:.3f}; ANN query p50 {p50:.1f} ms "
                          f"p99 {p99:.1f} ms", flush=True)
                    conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(index)))
            db_size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / GB
            print(f"\ndatabase size now: {db_size:.2f} GB; shared_buffers "
                  f"{conn.execute('SHOW shared_buffers').fetchone()[0]}", flush=True)
    finally:
        if args.keep:
            print(f"kept: {url}")
        else:
            drop_database(url, admin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
