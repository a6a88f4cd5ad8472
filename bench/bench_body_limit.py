"""Service memory while 10 clients at once send 256 MB chunked request bodies.

Serves the HTTP API with uvicorn in its own process (a throwaway migrated database on the
embedded server, the token-hash embedder), warms it up with ordinary requests, then starts
``--clients`` threads that each POST a ``--mb`` MB body to /search with
``Transfer-Encoding: chunked`` (httpx streaming a generator: no Content-Length), while the
service's resident memory is sampled from /proc every 10 ms. Prints the RSS before and at
peak (target: growth <= 50 MB), how much of each body the service let through before
answering, and that ordinary requests still work afterwards.

    python bench/bench_body_limit.py [--clients 10] [--mb 256] [--compare]

``--compare`` first runs the same load against the service with the check it replaced
(Content-Length only, the rest left to the framework), for the figure side by side.
"""

from __future__ import annotations

import argparse
import socket
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

from jobpipe.db import migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.db.roles import drop_service_login  # noqa: E402
from jobpipe.service.limits import MAX_BODY_BYTES  # noqa: E402

CHUNK = 64 * 1024

_SERVER = """
import sys, uvicorn
from jobpipe.embedding import TokenHashEmbedder
from jobpipe.service import api
if sys.argv[3] == "content-length-only":   # the check BodyLimit replaced, for --compare
    from starlette.responses import JSONResponse

    class HeaderOnly:
        def __init__(self, app, max_bytes):
            self.app, self.max_bytes = app, max_bytes

        async def __call__(self, scope, receive, send):
            length = dict(scope.get("headers") or []).get(b"content-length")
            if scope["type"] == "http" and length is not None and int(length) > self.max_bytes:
                return await JSONResponse({"detail": "too large"}, 413)(scope, receive, send)
            await self.app(scope, receive, send)

    api.BodyLimit = HeaderOnly
app = api.create_app(database_url=sys.argv[1], embedder=TokenHashEmbedder(64))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--compare", action="store_true", help="also measure the Content-Length-only check")
    args = parser.parse_args()

    base_url = database_url()
    name = f"jobpipe_bench_body_{uuid.uuid4().hex[:8]}"
    admin = with_database(base_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base_url, name)
    try:
        migrate(url)
        if args.compare:
            run(url, "content-length-only", args)
        run(url, "received-bytes", args)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        drop_service_login(admin, name)   # the login the service set up for it


def run(url: str, variant: str, args: argparse.Namespace) -> None:
    proc = None
    try:
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-c", _SERVER, url, str(port), variant], cwd=str(ROOT))
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/health", timeout=2.0)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        with httpx.Client(base_url=base, timeout=30) as http:   # warm up: pool, embedder, routes
            for i in range(30):
                http.post("/search", json={"query": f"python backend {i}"})
                http.get("/health")
        time.sleep(0.5)
        before = _rss_mb(proc.pid)

        peak = before
        sampling = True

        def sample() -> None:
            nonlocal peak
            while sampling:
                peak = max(peak, _rss_mb(proc.pid))
                time.sleep(0.01)

        total = args.mb * 1024 * 1024
        sent = [0] * args.clients
        outcome: list[str] = [""] * args.clients

        def client(i: int) -> None:
            block = b" " * CHUNK

            def body():
                while sent[i] < total:
                    sent[i] += CHUNK
                    yield block

            try:
                with httpx.Client(timeout=60) as http:
                    response = http.post(base + "/search", content=body(), headers={"content-type": "application/json"})
                outcome[i] = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:   # the server closed the connection while we were still sending
                outcome[i] = f"connection closed by the server ({type(exc).__name__})"

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        time.sleep(0.3)
        sampling = False
        sampler.join()
        after = _rss_mb(proc.pid)

        with httpx.Client(base_url=base, timeout=30) as http:
            ok = http.post("/search", json={"query": "python backend"}).status_code
        outcomes = {o: outcome.count(o) for o in sorted(set(outcome))}
        print(f"[{variant}] {args.clients} concurrent clients, each a {args.mb} MB chunked body "
              f"(no Content-Length) to POST /search; body limit {MAX_BODY_BYTES} bytes")
        print(f"  service RSS: {before:.1f} MB before, peak {peak:.1f} MB, {after:.1f} MB after "
              f"(growth at peak {peak - before:+.1f} MB; target <= 50 MB)")
        print(f"  body bytes sent before the service answered: max "
              f"{max(sent) / 1024 / 1024:.1f} MB, total {sum(sent) / 1024 / 1024:.1f} MB of "
              f"{args.clients * args.mb} MB offered, in {seconds:.2f} s")
        print(f"  client outcomes: {outcomes}; an ordinary search afterwards: HTTP {ok}")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
