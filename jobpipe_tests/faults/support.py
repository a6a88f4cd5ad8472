"""What the fault suite runs against: a paginated job board and an OpenAI-compatible embedding
server on 127.0.0.1 whose answers a test scripts per request, a run in a child process, a fresh
database per case, and the tables' fingerprint a rerun must converge to.

The board speaks SmartRecruiters' posting API (offset/limit pages with ``totalFound``), so a
fault can land in the middle of pagination.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import psycopg

from jobpipe.db import migrate, with_database
from jobpipe.embedding import TokenHashEmbedder

ROOT = Path(__file__).resolve().parents[2]
PAGE_SIZE = 20
ROLES = ["Data Engineer", "后端开发工程师", "Machine Learning Engineer", "产品经理", "Site Reliability Engineer",
         "算法工程师", "Frontend Developer", "数据分析师"]
CITIES = [("Berlin", "de"), ("北京", "cn"), ("Singapore", "sg"), ("上海", "cn"), ("London", "gb")]


@dataclass
class Answer:
    """One scripted answer: a status and body, after ``delay`` seconds; ``cut`` sends only the
    first half of the body (a connection that drops mid-JSON)."""

    status: int = 200
    body: bytes | None = None           # None: the real page
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    cut: bool = False


#: A hook sees (path, how many times this path was asked before) and may answer instead of the board.
Hook = Callable[[str, int], "Answer | None"]


def posting(company: str, i: int) -> dict[str, Any]:
    city, country = CITIES[i % len(CITIES)]
    return {"id": f"{company}-{i:04d}", "name": f"{ROLES[i % len(ROLES)]} {i}",
            "company": {"identifier": company, "name": company.title()},
            "releasedDate": "2026-11-01T08:00:00.000Z",
            "location": {"city": city, "country": country, "fullLocation": f"{city}, {country}"},
            "typeOfEmployment": {"id": "permanent", "label": "Full-time"},
            "experienceLevel": {"id": "mid_senior_level", "label": "Mid-Senior Level"}}


class Board:
    """``companies``: name -> number of postings listed. ``hook`` scripts faults per request."""

    def __init__(self, companies: dict[str, int]) -> None:
        self.companies = dict(companies)
        self.hook: Hook | None = None
        self.asked: dict[str, int] = {}
        self.log: list[str] = []
        self._lock = threading.Lock()
        board = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                board._serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def page(self, company: str, offset: int, limit: int) -> bytes:
        total = self.companies[company]
        items = [posting(company, i) for i in range(offset, min(offset + limit, total))]
        return json.dumps({"offset": offset, "limit": limit, "totalFound": total, "content": items},
                          ensure_ascii=False).encode()

    def sources_file(self, folder: Path, **extra: str) -> Path:
        path = folder / "sources.yaml"
        lines = ["sources:"]
        for company in self.companies:
            options = "".join(f", {k}: {v}" for k, v in extra.items())
            lines.append(f"  - {{name: {company}, kind: smartrecruiters, company: {company}, base_url: '{self.base}', "
                         f"page_size: {PAGE_SIZE}, details: false, rate_limit: 1000{options}}}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _serve(self, request: BaseHTTPRequestHandler) -> None:
        import time

        path = request.path
        with self._lock:
            count = self.asked.get(path, 0)
            self.asked[path] = count + 1
            self.log.append(path)
        answer = (self.hook(path, count) if self.hook else None) or Answer()
        if answer.delay:
            time.sleep(answer.delay)
        body = answer.body
        if body is None:
            body, status = self._real(path)
            status = answer.status if answer.status != 200 else status
        else:
            status = answer.status
        if answer.cut:
            body = body[: len(body) // 2]
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json" if not path.endswith(".txt") else "text/plain")
            for k, v in answer.headers.items():
                request.send_header(k, v)
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)
        except OSError:
            pass

    def _real(self, path: str) -> tuple[bytes, int]:
        parts = urlsplit(path)
        if parts.path == "/robots.txt":
            return b"User-agent: *\nAllow: /\n", 200
        segments = parts.path.strip("/").split("/")     # v1/companies/<company>/postings
        if len(segments) == 4 and segments[3] == "postings" and segments[2] in self.companies:
            query = parse_qs(parts.query)
            return self.page(segments[2], int(query["offset"][0]), int(query["limit"][0])), 200
        return b'{"message": "not found"}', 404


def listing_page(company: str, page: int) -> str:
    """The path of ``company``'s listing page ``page`` (0-based)."""
    return f"/v1/companies/{company}/postings?offset={page * PAGE_SIZE}&limit={PAGE_SIZE}"


class EmbeddingServer:
    """``/v1/embeddings`` answering with token-hash vectors; ``hook(n)`` (n: the request's number,
    from 0) may answer instead (a 500, a delay past the client's timeout) or act (kill the client)."""

    def __init__(self, dims: int = 32) -> None:
        self.embedder = TokenHashEmbedder(dims, model="fault-hash-32")
        self.hook: Callable[[int], Answer | None] | None = None
        self.requests = 0
        self.answered = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server._serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _serve(self, request: BaseHTTPRequestHandler) -> None:
        import time

        body = json.loads(request.rfile.read(int(request.headers.get("Content-Length", 0))) or b"{}")
        with self._lock:
            n = self.requests
            self.requests += 1
        answer = self.hook(n) if self.hook else None
        if answer is not None and answer.delay:
            time.sleep(answer.delay)
        if answer is not None and answer.status != 200:
            data = json.dumps({"error": {"message": f"simulated {answer.status}"}}).encode()
            status = answer.status
        else:
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = self.embedder.embed_documents(texts)
            data = json.dumps({"object": "list", "model": body.get("model"), "usage": {"prompt_tokens": 1,
                               "total_tokens": 1}, "data": [{"object": "embedding", "index": i,
                                                             "embedding": v.tolist()} for i, v in enumerate(vectors)]
                               }).encode()
            status = 200
            with self._lock:
                self.answered += 1
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except OSError:
            pass


# ----------------------------------------------------------------------------- databases
@contextmanager
def fresh_database(server_url: str, template: str | None = None, *, drop: bool = True) -> Iterator[str]:
    """A database of its own on ``server_url``'s server (copied from ``template`` when given, else
    migrated), dropped afterwards (``drop=False``: a throwaway server goes with its data)."""
    name = f"jobpipe_fault_{uuid.uuid4().hex[:10]}"
    admin = with_database(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    url = with_database(server_url, name)
    try:
        if template is None:
            migrate(url)
        yield url
    finally:
        if drop:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Run:
    code: int
    summary: dict[str, Any] | None
    stderr: str

    @property
    def killed(self) -> bool:
        return self.code == -9


def start_run(sources: Path, database_url: str, home: Path, *, embedding_url: str = "", kill: str = "",
              env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("JOBPIPE_", "DAGSTER_"))}
    child_env.update(JOBPIPE_HOME=str(home), JOBPIPE_DATABASE_URL=database_url, FAULT_KILL=kill,
                     JOBPIPE_FETCH_DEADLINE="3", **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "jobpipe_tests.faults.child", str(sources), database_url,
                             embedding_url], cwd=ROOT, env=child_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> Run:
    out, err = proc.communicate(timeout=timeout)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    return Run(proc.returncode, json.loads(last) if last.startswith("{") else None, err)


def run(sources: Path, database_url: str, home: Path, **kw: Any) -> Run:
    return finish(start_run(sources, database_url, home, **kw))


# ----------------------------------------------------------------------------- the tables
def fingerprint(database_url: str) -> dict[str, Any]:
    """What a clean run leaves, without ids and times: the rows and their content hashes."""
    with psycopg.connect(database_url) as conn:
        def rows(sql: str) -> list[tuple[Any, ...]]:
            return sorted(tuple(r) for r in conn.execute(sql).fetchall())

        return {
            "jobs": rows("SELECT source, external_id, content_hash, record_hash, closed_at IS NULL FROM jobs"),
            "raw_postings": rows("SELECT source, external_id, payload_hash FROM raw_postings"),
            "job_terms": rows("SELECT j.source, j.external_id, t.content_hash FROM job_terms t JOIN jobs j USING (job_id)"),
            "vectors": rows("SELECT j.source, j.external_id, e.model, e.content_hash FROM job_embeddings e "
                            "JOIN jobs j USING (job_id) WHERE j.closed_at IS NULL"),
            "normalized": rows("SELECT source, external_id FROM normalized_postings") if _has(conn, "normalized_postings")
            else [],
        }


def _has(conn: psycopg.Connection, table: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"public.{table}",)).fetchone()[0]


def problems(database_url: str) -> list[str]:
    """What must never be left behind: duplicates, stale or missing vectors and terms, stuck locks,
    unfinished fetches, invalid indexes."""
    found = []
    with psycopg.connect(database_url) as conn:
        def count(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        checks = {
            "duplicate jobs": "SELECT count(*) - count(DISTINCT (source, external_id)) FROM jobs",
            "duplicate payloads": "SELECT count(*) - count(DISTINCT (source, external_id, payload_hash)) FROM raw_postings",
            "open jobs without a current vector": "SELECT count(*) FROM jobs j WHERE j.closed_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM job_embeddings e WHERE e.job_id = j.job_id AND e.content_hash = j.content_hash)",
            "jobs without current terms": "SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM job_terms t "
            "WHERE t.job_id = j.job_id AND t.content_hash = j.content_hash)",
            "locks held by a live session": "SELECT count(*) FROM run_locks l JOIN pg_stat_activity a "
            "ON a.pid = l.backend_pid",
            "invalid indexes": "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT i.indisvalid",
            "deferred indexes not rebuilt": "SELECT count(*) FROM jobs_deferred_indexes",
            "latest fetch of a day unfinished or failed": "SELECT count(*) FROM (SELECT DISTINCT ON (source, "
            "partition_date) finished_at, error FROM fetch_runs ORDER BY source, partition_date, fetch_id DESC) f "
            "WHERE f.finished_at IS NULL OR f.error IS NOT NULL",
        }
        for what, sql in checks.items():
            n = count(sql)
            if n:
                found.append(f"{what}: {n}")
    return found
