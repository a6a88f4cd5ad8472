"""Throughput and latency of the HTTP service at 1 and 8 concurrent clients.

Builds a throwaway database on the embedded server with synthetic postings (Chinese and
English, drawn from small vocabularies) and token-hash vectors, serves it with uvicorn in a
separate process on 127.0.0.1, and sends a bounded number of requests. Prints p50/p99 latency
and requests/s per endpoint, and the in-process ``search()`` latency for the service's overhead
as a ratio. The embedder is the cheap token-hash one on purpose: this measures the service and
database, not the model (query-embedding cost is reported by bench_search/bench_embedding).

    python bench/bench_service.py [--jobs 20000] [--requests 400]
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.db.roles import drop_service_login  # noqa: E402
from jobpipe.store import sync_job_terms  # noqa: E402
from jobpipe.store.index import _create_sql, index_name  # noqa: E402

DIMS = 128
EN_ROLES = ["Backend Engineer", "Frontend Engineer", "Data Scientist", "Machine Learning Engineer", "Product Manager",
            "DevOps Engineer", "Data Analyst", "QA Engineer", "Mobile Developer", "Security Engineer"]
ZH_ROLES = ["后端开发工程师", "前端开发工程师", "数据科学家", "算法工程师", "产品经理", "运维工程师", "数据分析师",
            "测试工程师", "移动端开发", "安全工程师", "大模型算法实习生"]
LEVELS = ["Senior", "Junior", "Staff", "Lead", ""]
SKILLS = ["Python", "Go", "Java", "Kubernetes", "PostgreSQL", "React", "TypeScript", "PyTorch", "SQL", "Spark",
          "Docker", "AWS", "Redis", "Kafka", "Tableau"]
CITIES = ["Beijing", "Shanghai", "Shenzhen", "Hangzhou", "San Francisco", "New York", "London", "Singapore", "Seattle"]
COMPANIES = [f"Company {i}" for i in range(300)]
QUERIES = ["python backend", "机器学习 算法", "大模型 实习", "frontend react typescript", "数据分析 SQL",
           "senior go engineer kubernetes", "产品经理", "security engineer", "devops aws docker", "后端 Java"]
FILTERS = [{}, {"city": "北京"}, {"job_type": "intern"}, {"skills": ["python"]}, {"city": "Shanghai", "remote": False},
           {"salary_min": 200000, "currency": "CNY"}]
RESUME = ("Machine learning engineer, 5 years of experience with Python, PyTorch, Kubernetes and SQL. "
          "熟悉大模型训练与推理部署。")


def _jobs(n: int, rng: random.Random) -> list[tuple]:
    rows = []
    for i in range(n):
        zh = rng.random() < 0.5
        title = rng.choice(ZH_ROLES) if zh else f"{rng.choice(LEVELS)} {rng.choice(EN_ROLES)}".strip()
        skills = rng.sample(SKILLS, 3)
        city = rng.choice(CITIES)
        low = rng.randrange(100, 600) * 1000
        desc = (f"{title}. 职位要求: 熟悉 {'、'.join(skills)}。" if zh else
                f"{title} working with {', '.join(skills)} in {city}.")
        text = "\n".join([title, city, ", ".join(skills), desc])
        rows.append((f"bench{i % 7}", f"j{i}", title, rng.choice(COMPANIES), [city], rng.choice(
            ["full_time", "full_time", "intern", "contract"]), rng.choice(["onsite", "remote", "hybrid"]), skills,
            low, low * 1.5, "CNY" if zh else "USD", "year", low, low * 1.5, "zh" if zh else "en", desc,
            f"https://jobs.example.com/{i}", f"h{i}", f"h{i}", text))
    return rows


def _build(url: str, n: int) -> None:
    from pgvector.psycopg import register_vector

    from jobpipe.embedding import TokenHashEmbedder

    rng = random.Random(7)
    rows = _jobs(n, rng)
    embedder = TokenHashEmbedder(DIMS)
    with connect(url) as conn:
        with conn.cursor().copy(
            "COPY jobs (source, external_id, title, company, cities, job_type, remote, skills, salary_min, salary_max, "
            "salary_currency, salary_period, salary_annual_min, salary_annual_max, language, description_text, url, "
            "content_hash, record_hash, posted_at) FROM STDIN"
        ) as copy:
            for r in rows:
                copy.write_row((*r[:-1], "2026-11-01"))
        conn.commit()
        sync_job_terms(conn)   # the store's keyword terms
        conn.execute("INSERT INTO embedding_models (model, dims, state, activated_at) VALUES (%s, %s, 'active', now())",
                     (embedder.model, DIMS))
        register_vector(conn)
        ids = [r[0] for r in conn.execute("SELECT job_id FROM jobs ORDER BY job_id")]
        vectors = embedder.embed_documents([r[-1] for r in rows])
        with conn.cursor().copy("COPY job_embeddings (job_id, model, dims, content_hash, embedding) FROM STDIN "
                                "WITH (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "text", "int4", "text", "vector"])
            for job_id, vec in zip(ids, vectors, strict=True):
                copy.write_row((job_id, embedder.model, DIMS, "h", vec))
        conn.commit()
        conn.execute(_create_sql(index_name(embedder.model, DIMS), embedder.model, DIMS, 16, 64, concurrently=False))
        conn.execute("ANALYZE")
        conn.commit()


_SERVER = """
import sys, uvicorn
from jobpipe.embedding import TokenHashEmbedder
from jobpipe.service.api import create_app
app = create_app(database_url=sys.argv[1], embedder=TokenHashEmbedder(int(sys.argv[3])))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _load(base: str, make_request, total: int, clients: int) -> tuple[float, list[float], int]:
    """(requests/s, latencies ms, errors) for ``total`` requests spread over ``clients`` threads."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = iter(range(total))

    def worker() -> None:
        nonlocal errors
        with httpx.Client(base_url=base, timeout=30.0) as http:
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                method, path, body = make_request(i)
                t0 = time.perf_counter()
                response = http.request(method, path, json=body)
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    latencies.append(ms)
                    errors += response.status_code != 200

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return total / (time.perf_counter() - started), latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()

    base_url = database_url()
    name = f"jobpipe_bench_service_{uuid.uuid4().hex[:8]}"
    admin = with_database(base_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base_url, name)
    proc = None
    try:
        migrate(url)
        t0 = time.perf_counter()
        _build(url, args.jobs)
        print(f"built {args.jobs} synthetic postings with {DIMS}-d token-hash vectors in {time.perf_counter() - t0:.1f} s")

        # In-process search latency (no HTTP), for the service's overhead as a ratio.
        from jobpipe.embedding import TokenHashEmbedder
        from jobpipe.search import search
        from jobpipe.search.types import SearchFilters
        from jobpipe.service.pool import connect_service
        from jobpipe.service.settings import ServiceSettings

        embedder = TokenHashEmbedder(DIMS)
        direct = []
        with connect_service(url, ServiceSettings()) as conn:
            for f in FILTERS:  # warm-up: city and skill tables load on first use
                search(conn, "warm up", SearchFilters(**{k: tuple(v) if k == "skills" else v for k, v in f.items()}),
                       embedder=embedder)
                conn.rollback()
            for i in range(min(args.requests, 200)):
                f = FILTERS[i % len(FILTERS)]
                filters = SearchFilters(**{k: tuple(v) if k == "skills" else v for k, v in f.items()})
                t = time.perf_counter()
                search(conn, QUERIES[i % len(QUERIES)], filters, top_k=10, embedder=embedder)
                direct.append((time.perf_counter() - t) * 1000)
                conn.rollback()
        print(f"in-process search(): p50 {statistics.median(direct):.1f} ms, p99 {_pct(direct, 0.99):.1f} ms "
              f"({len(direct)} queries, query embedding included, token-hash)")

        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-c", _SERVER, url, str(port), str(DIMS)], cwd=str(ROOT))
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/health", timeout=2.0).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        with connect(url) as conn:
            job_ids = [r[0] for r in conn.execute("SELECT job_id FROM jobs ORDER BY random() LIMIT 500")]

        def search_req(i: int):
            return "POST", "/search", {"query": QUERIES[i % len(QUERIES)], **FILTERS[(i // 3) % len(FILTERS)]}

        def job_req(i: int):
            return "GET", f"/jobs/{job_ids[i % len(job_ids)]}", None

        def match_req(i: int):
            return "POST", "/match", {"resume_text": RESUME + f" {i % 5}", **FILTERS[i % 3]}

        _load(base, search_req, 40, 4)  # warm the pool, plans and caches
        print(f"HTTP service (uvicorn, 1 process, {args.jobs} postings), {args.requests} requests per row:")
        one_client = None
        for label, make, total in [("POST /search", search_req, args.requests),
                                   ("GET /jobs/{id}", job_req, args.requests),
                                   ("POST /match", match_req, max(40, args.requests // 4))]:
            for clients in (1, 8):
                rps, lat, errors = _load(base, make, total, clients)
                if label == "POST /search" and clients == 1:
                    one_client = rps
                extra = f", x{rps / one_client:.2f} vs 1 client" if label == "POST /search" and clients == 8 else ""
                print(f"  {label:15s} {clients} client(s): {rps:7.1f} req/s, p50 {statistics.median(lat):6.1f} ms, "
                      f"p99 {_pct(lat, 0.99):6.1f} ms, non-200: {errors}{extra}")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        drop_service_login(admin, name)   # the login the service set up for it


if __name__ == "__main__":
    main()
