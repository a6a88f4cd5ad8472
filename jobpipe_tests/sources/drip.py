"""A local HTTP server that drips its answer a byte at a time (a slow-loris in reverse).

Each byte arrives well within any per-read timeout, so only an overall deadline ends such a
request. Paths: ``/drip-body`` (headers at once, then the body byte by byte),
``/drip-headers`` (even the status line byte by byte), ``/steady`` (a short body, dripped,
that completes in time). ``interval`` is the pause between bytes.
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Drip:
    path: str
    started: float
    first_byte: float | None = None
    bytes_sent: int = 0
    ended: float | None = None


@dataclass
class DripServer:
    interval: float = 0.05
    body_bytes: int = 10_000
    steady_bytes: int = 10
    drips: list[Drip] = field(default_factory=list)

    def __post_init__(self) -> None:
        owner = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                owner._handle(self.request)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> DripServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, sock: socket.socket) -> None:
        """Requests on one connection until the client closes it (keep-alive)."""
        while self._answer(sock):
            pass

    def _answer(self, sock: socket.socket) -> bool:
        request = b""
        while b"\r\n\r\n" not in request:
            try:
                data = sock.recv(4096)
            except OSError:
                return False
            if not data:
                return False
            request += data
        path = request.split(b" ", 2)[1].decode()
        drip = Drip(path=path, started=time.monotonic())
        self.drips.append(drip)
        if path == "/robots.txt":
            sock.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return True
        if path == "/drip-headers":
            head, body = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n" * 200, b""
            now, later = b"", head
        elif path == "/steady":
            body = b"x" * self.steady_bytes
            now, later = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode(), body
        else:
            body = b"y" * self.body_bytes
            now, later = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode(), body
        try:
            if now:
                sock.sendall(now)
                drip.first_byte = time.monotonic()
                drip.bytes_sent += len(now)
            for i in range(len(later)):
                sock.sendall(later[i:i + 1])
                if drip.first_byte is None:
                    drip.first_byte = time.monotonic()
                drip.bytes_sent += 1
                time.sleep(self.interval)
        except OSError:
            return False   # the client gave up
        finally:
            drip.ended = time.monotonic()
        return True
