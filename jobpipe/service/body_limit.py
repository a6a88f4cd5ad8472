"""A request-body limit on the bytes actually received, chunked or not.

Checking ``Content-Length`` alone lets a chunked upload (no length header) stream any
amount into the application, which buffers it before validation: a 256 MB chunked body
grew the service by 750 MB. This middleware reads the body itself, counting every chunk as
it arrives, and answers 413 the moment the count passes the limit -- without reading further
and with ``Connection: close``, so the server drops the connection instead of draining the
rest. A body within the limit is handed to the application as one message, so the
application never sees more than ``max_bytes``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from jobpipe.service import limits


class BodyLimit:
    """ASGI middleware: at most ``max_bytes`` of request body, else 413 (early, bounded memory).

    ``overrides`` gives single routes their own limit: ``{("POST", "/candidates"): 10_485_760}``.
    """

    def __init__(self, app: Any, max_bytes: int = limits.MAX_BODY_BYTES,
                 overrides: Mapping[tuple[str, str], int] | None = None):
        self.app, self.max_bytes, self.overrides = app, max_bytes, dict(overrides or {})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.overrides.get((scope.get("method", ""), scope.get("path", "")), self.max_bytes)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await self._reject(scope, receive, send, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return   # the client went away: nothing to answer
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                await self._reject(scope, receive, send, limit)
                return
            if body:
                chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        del chunks
        delivered = False

        async def replay() -> Any:
            nonlocal delivered
            if not delivered:
                delivered = True
                return whole
            return await receive()   # after the body: only http.disconnect can come

        await self.app(scope, replay, send)

    async def _reject(self, scope: Any, receive: Any, send: Any, limit: int) -> None:
        response = JSONResponse({"detail": f"request body larger than {limit} bytes",
                                 "message": f"send at most {limit} bytes"},
                                413, headers={"Connection": "close"})
        await response(scope, receive, send)
