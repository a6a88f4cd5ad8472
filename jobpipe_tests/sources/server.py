"""A local HTTP server for source tests: scripted responses, validators, delays, a request log.

Routes match the full path with query first, then the path alone. A route is a sequence
of responses served in order (the last one repeats), so "500 then 200" or "429 with
Retry-After then 200" are one line each.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None            # answers 304 when If-None-Match matches
    last_modified: str | None = None   # answers 304 when If-Modified-Since matches exactly
    delay: float = 0.0                 # seconds to wait before answering (timeouts)
    content_type: str = "application/json"


@dataclass
class Seen:
    at: float
    path: str
    headers: dict[str, str]
    method: str = "GET"
    body: bytes = b""


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def json_reply(data: Any, **kw: Any) -> Reply:
    return Reply(body=json.dumps(data, ensure_ascii=False).encode(), **kw)


def html_reply(body: str | bytes, **kw: Any) -> Reply:
    kw.setdefault("content_type", "text/html; charset=utf-8")
    return Reply(body=body.encode() if isinstance(body, str) else body, **kw)


class FixtureServer:
    def __init__(self, robots: str = "User-agent: *\nAllow: /\n") -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.served: dict[str, int] = {}
        self.log: list[Seen] = []
        self._lock = threading.Lock()
        self.route("/robots.txt", Reply(body=robots.encode(), content_type="text/plain"))
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes: without this, Nagle + delayed ACK
                # add ~40 ms to every keep-alive response
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:
                server._handle(self)

            def do_POST(self) -> None:  # search APIs (Workday) page through the body: see Seen.body
                server._handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # -------------------------------------------------------------- setup
    def route(self, path: str, *replies: Reply) -> FixtureServer:
        with self._lock:
            self.routes[path] = list(replies)
            self.served[path] = 0
        return self

    @property
    def base(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def hits(self, path: str) -> list[Seen]:
        return [s for s in self.log if s.path == path]

    def start(self) -> FixtureServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -------------------------------------------------------------- serving
    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        path = request.path
        length = int(request.headers.get("Content-Length") or 0)
        body_in = request.rfile.read(length) if length else b""
        with self._lock:
            self.log.append(Seen(time.monotonic(), path, {k.lower(): v for k, v in request.headers.items()},
                                 request.command, body_in))
            key = path if path in self.routes else path.split("?", 1)[0]
            replies = self.routes.get(key)
            if replies:
                index = min(self.served[key], len(replies) - 1)
                self.served[key] += 1
                reply = replies[index]
            else:
                reply = Reply(status=404, body=b"not found", content_type="text/plain")
        if reply.delay:
            time.sleep(reply.delay)
        status, body = reply.status, reply.body
        headers = {"Content-Type": reply.content_type, **reply.headers}
        if reply.etag:
            headers["ETag"] = reply.etag
        if reply.last_modified:
            headers["Last-Modified"] = reply.last_modified
        inm, ims = request.headers.get("If-None-Match"), request.headers.get("If-Modified-Since")
        if status == 200 and ((reply.etag and inm == reply.etag) or (reply.last_modified and ims == reply.last_modified)):
            status, body = 304, b""
        try:
            request.send_response(status)
            for name, value in headers.items():
                request.send_header(name, value)
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            if body:
                request.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
