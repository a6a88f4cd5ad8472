"""A minimal OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1 for tests.

Vectors come from the real token-hash embedder; ``fail_with`` queues HTTP errors to return
before succeeding, so retry behaviour is exercised over real HTTP.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jobpipe.embedding import TokenHashEmbedder


@dataclass
class ServerState:
    dims: int = 16
    fail_with: list[int] = field(default_factory=list)   # status codes to answer first, in order
    retry_after_ms: int = 5                               # what the failures ask the client to wait
    requests: list[dict] = field(default_factory=list)   # every request body received
    auth: list[str | None] = field(default_factory=list)


def _handler(state: ServerState) -> type[BaseHTTPRequestHandler]:
    embedder = TokenHashEmbedder(state.dims)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, code: int, body: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            state.requests.append(body)
            state.auth.append(self.headers.get("Authorization"))
            if state.fail_with:
                code = state.fail_with.pop(0)
                self._send(code, {"error": {"message": f"simulated {code}", "type": "test"}}, {"retry-after-ms": str(state.retry_after_ms)})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = embedder.embed_documents(texts) * 3.0  # unnormalized on purpose: the client normalizes
            data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
            data.reverse()  # providers may answer out of order: the client sorts by index
            self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                             "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    return Handler


@contextmanager
def fake_openai_server(state: ServerState) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
