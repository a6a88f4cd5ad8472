"""The request-body limit counts the bytes received: chunked uploads are cut off early with a 413.

A real uvicorn server on loopback and a raw-socket client that really sends
``Transfer-Encoding: chunked`` (no Content-Length), watching for the server's answer
between chunks the way curl does.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from jobpipe.service import limits
from jobpipe.service.api import create_app
from jobpipe.service.context import ServiceContext
from jobpipe.service.mcp_server import mcp_http_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.service.support import HashEmbedder

CHUNK = 64 * 1024


@contextmanager
def _serving(app) -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def send_chunked(port: int, path: str, chunks: Iterator[bytes], headers: str = "") -> tuple[int | None, int, bytes]:
    """Send a chunked POST; return (status or None, body bytes sent, response bytes).

    Between chunks the client checks whether the server already answered and stops sending
    if so; a connection reset while sending also ends the upload.
    """
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sent = 0
    response = b""
    try:
        sock.sendall((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      f"Transfer-Encoding: chunked\r\n{headers}\r\n").encode())
        finished = True
        for chunk in chunks:
            if select.select([sock], [], [], 0)[0]:
                finished = False
                break
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BrokenPipeError, ConnectionResetError):
                finished = False
                break
            sent += len(chunk)
        if finished:
            sock.sendall(b"0\r\n\r\n")
        sock.settimeout(30)
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                response += data
                if b"\r\n\r\n" in response:
                    head, _, rest = response.partition(b"\r\n\r\n")
                    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                   if line.lower().startswith(b"content-length:")), None)
                    if length is not None and len(rest) >= length:
                        break
        except (ConnectionResetError, TimeoutError):
            pass
    finally:
        sock.close()
    status = int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/1.1 ") else None
    return status, sent, response


def _zeros(total: int) -> Iterator[bytes]:
    block = b" " * CHUNK
    for _ in range(total // CHUNK):
        yield block


@pytest.fixture(scope="module")
def api_port(database, seeded) -> Iterator[int]:
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    with _serving(app) as port:
        yield port


def test_a_chunked_body_over_the_limit_is_refused_early(api_port):
    status, sent, response = send_chunked(api_port, "/search", _zeros(256 * 1024 * 1024))
    assert status == 413, response[:300]
    assert b"larger than 262144 bytes" in response and b"connection: close" in response.lower()
    # Cut off after the limit plus what socket buffers hold, not after 256 MB.
    assert limits.MAX_BODY_BYTES < sent < 32 * 1024 * 1024, sent


def test_a_chunked_body_within_the_limit_is_served(api_port, seeded):
    body = json.dumps({"query": "python 后端", "city": "Beijing"}).encode()
    pieces = iter([body[:5], body[5:17], body[17:]])
    status, _, response = send_chunked(api_port, "/search", pieces)
    assert status == 200, response[:300]
    results = json.loads(response.partition(b"\r\n\r\n")[2])["results"]
    assert seeded["py-bj"] in [r["job_id"] for r in results]


def test_a_chunked_body_exactly_at_the_limit_is_read_not_refused(api_port):
    # 262144 bytes of valid JSON: the limit is inclusive, the request reaches validation (422: no query).
    payload = b'{"x": "' + b"a" * (limits.MAX_BODY_BYTES - 10) + b'"}'
    assert len(payload) == limits.MAX_BODY_BYTES - 1
    status, _, response = send_chunked(api_port, "/search", iter([payload[:CHUNK], payload[CHUNK:], b" "]))
    assert status == 422, response[:300]


def test_a_declared_length_over_the_limit_is_refused_before_reading(api_port):
    with socket.create_connection(("127.0.0.1", api_port), timeout=10) as sock:
        sock.sendall(b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 999999999\r\n\r\n{")
        assert sock.recv(65536).startswith(b"HTTP/1.1 413 ")


def test_the_mcp_http_transport_has_the_same_limit(database, seeded):
    ctx = ServiceContext(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    try:
        with _serving(mcp_http_app(ctx, token="t0k")) as port:
            unauthenticated, sent_without_token, _ = send_chunked(port, "/mcp", _zeros(64 * 1024 * 1024))
            assert unauthenticated == 401 and sent_without_token < 32 * 1024 * 1024
            status, sent, response = send_chunked(port, "/mcp", _zeros(64 * 1024 * 1024),
                                                  headers="Authorization: Bearer t0k\r\n")
            assert status == 413, response[:300]
            assert sent < 32 * 1024 * 1024
    finally:
        ctx.close()
