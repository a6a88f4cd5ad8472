"""A local HTTP server for the bundled demo sources, so the demo scrapes over real HTTP.

Routes (all GET/HEAD, data from ``jobpipe/demo/data/``):

* ``/v1/boards/{board}/jobs[?content=true][&pay_transparency=true]`` and ``/v1/boards/{board}/jobs/{id}``:
  Greenhouse Job Board API (without ``content=true`` the list omits content, departments and
  offices; without ``pay_transparency=true``, ``pay_input_ranges``).
* ``/v0/postings/{site}?mode=json&skip=&limit=`` and ``/v0/postings/{site}/{id}``: Lever.
* ``/careers/{company}/``, ``/careers/{company}/page/{n}/``, ``/careers/{company}/jobs/{id}.html``:
  career sites with schema.org JobPosting JSON-LD.
* ``/robots.txt`` (allows everything) and ``/`` (an index of the sources).

Every 200 carries a strong ``ETag`` and a fixed ``Last-Modified``; ``If-None-Match`` /
``If-Modified-Since`` answer 304, so conditional requests are exercised end to end.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from jobpipe.config import get_settings
from jobpipe.demo import DEMO_SOURCES_FILE, DEMO_URL_ENV

DATA_DIR = Path(__file__).resolve().parent / "data"
#: The demo data's fixed modification time (it only changes when regenerated).
LAST_MODIFIED = "Sat, 28 Nov 2026 00:00:00 GMT"
_GREENHOUSE_LIST_ONLY = ("content", "departments", "offices")
_GREENHOUSE_PAY = "pay_input_ranges"   # only with ?pay_transparency=true, as on the real API
_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json; charset=utf-8",
          ".txt": "text/plain; charset=utf-8"}


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str


@dataclass(frozen=True)
class RequestRecord:
    """One request the server answered: lets tests and the demo count 304s."""

    method: str
    path: str
    status: int


def _json(status: int, data: Any) -> Response:
    return Response(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), _TYPES[".json"])


def _not_found(message: str = "Not found") -> Response:
    return Response(404, f"{message}\n".encode(), _TYPES[".txt"])


class DemoRoutes:
    """Maps a request target to a response, reading the data directory (cached)."""

    def __init__(self, data_dir: Path = DATA_DIR) -> None:
        self.data_dir = data_dir
        self._cache: dict[Path, bytes] = {}
        self._lock = threading.Lock()

    def _read(self, rel: str) -> bytes | None:
        path = (self.data_dir / rel).resolve()
        if not path.is_relative_to(self.data_dir.resolve()) or not path.is_file():
            return None
        with self._lock:
            if path not in self._cache:
                self._cache[path] = path.read_bytes()
            return self._cache[path]

    def _load_json(self, rel: str) -> Any:
        raw = self._read(rel)
        return None if raw is None else json.loads(raw)

    def respond(self, target: str) -> Response:
        parts = urlsplit(target)
        path = unquote(parts.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        segments = [s for s in path.split("/") if s]
        if path == "/robots.txt":
            return self._static("robots.txt")
        if path in ("/", "/index.html"):
            return self._static("index.html")
        if len(segments) >= 4 and segments[:2] == ["v1", "boards"] and segments[3] == "jobs":
            return self._greenhouse(segments[2], segments[4:], query)
        if len(segments) >= 3 and segments[:2] == ["v0", "postings"]:
            return self._lever(segments[2], segments[3:], query)
        if segments and segments[0] == "careers":
            rel = path.lstrip("/")
            if path.endswith("/"):
                rel += "index.html"
            if ".." in segments:
                return _not_found()
            return self._static(rel)
        return _not_found()

    def _static(self, rel: str) -> Response:
        body = self._read(rel)
        if body is None:
            return _not_found()
        return Response(200, body, _TYPES.get(Path(rel).suffix, "application/octet-stream"))

    def _greenhouse(self, board: str, rest: list[str], query: dict[str, str]) -> Response:
        data = self._load_json(f"greenhouse/{board}.json")
        if data is None:
            return _json(404, {"status": 404, "error": "Job not found"})
        drop = set() if query.get("pay_transparency", "").lower() == "true" else {_GREENHOUSE_PAY}
        if rest:
            job = next((j for j in data["jobs"] if str(j["id"]) == rest[0]), None)
            if job is None or len(rest) != 1:
                return _json(404, {"status": 404, "error": "Job not found"})
            return _json(200, {k: v for k, v in job.items() if k not in drop})
        if query.get("content", "").lower() != "true":
            drop |= set(_GREENHOUSE_LIST_ONLY)
        jobs = [{k: v for k, v in j.items() if k not in drop} for j in data["jobs"]]
        return _json(200, {"jobs": jobs, "meta": data["meta"]})

    def _lever(self, site: str, rest: list[str], query: dict[str, str]) -> Response:
        postings = self._load_json(f"lever/{site}.json")
        if rest:
            match = next((p for p in postings or [] if p["id"] == rest[0]), None)
            return _json(200, match) if match and len(rest) == 1 else _json(404, {"ok": False, "error": "Document not found"})
        if postings is None:
            return _json(200, [])   # Lever answers an unknown site with an empty list
        try:
            skip = max(0, int(query.get("skip", 0)))
            limit = int(query["limit"]) if "limit" in query else None
        except ValueError:
            return _json(400, {"ok": False, "error": "Invalid skip or limit"})
        window = postings[skip:] if limit is None else postings[skip:skip + max(0, limit)]
        return _json(200, window)


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _not_modified(headers: Any, etag: str) -> bool:
    inm = headers.get("If-None-Match")
    if inm is not None:
        tags = [t.strip().removeprefix("W/") for t in inm.split(",")]
        return "*" in tags or etag in tags
    ims = headers.get("If-Modified-Since")
    if ims:
        try:
            return parsedate_to_datetime(ims) >= parsedate_to_datetime(LAST_MODIFIED)
        except (TypeError, ValueError):
            return False
    return False


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "jobpipe-demo/1.0"
    # Headers and body go out in separate writes; with Nagle on, keep-alive clients wait
    # ~40 ms for a delayed ACK on every response.
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._serve(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(send_body=False)

    def _serve(self, send_body: bool) -> None:
        response = self.server.routes.respond(self.path)
        status, body = response.status, response.body
        etag = _etag(body)
        if status == 200 and _not_modified(self.headers, etag):
            status, body = 304, b""
        self.send_response(status)
        if status in (200, 304):
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", LAST_MODIFIED)
            self.send_header("Cache-Control", "no-cache")
        if status != 304:
            self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body and body:
            self.wfile.write(body)
        self.server.record(RequestRecord(self.command, self.path, status))

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.verbose:
            super().log_message(format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], routes: DemoRoutes, verbose: bool) -> None:
        super().__init__(address, _Handler)
        self.routes = routes
        self.verbose = verbose
        self.requests: list[RequestRecord] = []
        self._lock = threading.Lock()

    def record(self, entry: RequestRecord) -> None:
        with self._lock:
            self.requests.append(entry)


def demo_port() -> int:
    """The demo's port (``JOBPIPE_DEMO_PORT``, default 8765: ``make run``, ``make ui``)."""
    return get_settings().demo_port


class DemoServer:
    """The demo sources on 127.0.0.1, in a background thread.

    ``with DemoServer() as srv: ... srv.url`` -- port 0 picks a free port. Payloads never
    contain the server's own address, so the same posting has the same payload on any port.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, data_dir: Path = DATA_DIR,
                 verbose: bool = False) -> None:
        self.host = host
        self.port = port
        self.data_dir = Path(data_dir)
        self.verbose = verbose
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        #: True when the asked-for port was taken and a free one was used instead.
        self.moved = False

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. ``http://127.0.0.1:49152``."""
        if self._server is None:
            raise RuntimeError("DemoServer is not running")
        return f"http://{self.host}:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[RequestRecord]:
        """Requests answered so far (a copy)."""
        if self._server is None:
            return []
        with self._server._lock:
            return list(self._server.requests)

    def start(self, *, fallback_to_free_port: bool = False) -> DemoServer:
        """Serve in a background thread.

        ``fallback_to_free_port``: when ``port`` is taken, serve on a free one instead of
        failing (``moved`` is then True). ``make run`` asks for a stable port because the
        boards' addresses are part of each source's configuration: on the same port a second
        run sends conditional requests from the first run's cache; on another it starts afresh.
        """
        if self._server is not None:
            return self
        try:
            self._server = _Server((self.host, self.port), DemoRoutes(self.data_dir), self.verbose)
        except OSError as exc:
            if not fallback_to_free_port or self.port == 0 or exc.errno != errno.EADDRINUSE:
                raise
            self._server = _Server((self.host, 0), DemoRoutes(self.data_dir), self.verbose)
            self.moved = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="jobpipe-demo-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the jobpipe demo sources on 127.0.0.1.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=demo_port())
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))   # stop cleanly when terminated
    server = DemoServer(args.host, args.port, verbose=not args.quiet).start()
    print(f"jobpipe demo sources at {server.url}/  (export JOBPIPE_DEMO_URL={server.url}; Ctrl-C stops)",
          flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()


@contextmanager
def demo_boards(sources_file: str | os.PathLike[str], say: Callable[[str], None] | None = None) -> Iterator[None]:
    """With the bundled demo's sources file, serve its boards locally meanwhile (``JOBPIPE_DEMO_URL``).

    Any other sources file: nothing to serve.
    """
    if Path(sources_file).resolve() != DEMO_SOURCES_FILE.resolve():
        yield
        return
    previous = os.environ.get(DEMO_URL_ENV)
    # A stable port: the boards' addresses are part of each demo source's configuration, so only
    # on the same port does a second run send conditional requests from the first run's cache.
    port = demo_port()
    with DemoServer(port=port).start(fallback_to_free_port=True) as demo:
        os.environ[DEMO_URL_ENV] = demo.url
        if say is not None:
            say(f"demo boards served at {demo.url}" + (
                f" (port {port} was taken: this run cannot reuse the last run's conditional requests)"
                if demo.moved else ""))
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop(DEMO_URL_ENV, None)
            else:
                os.environ[DEMO_URL_ENV] = previous
