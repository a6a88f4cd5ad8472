"""A local fake of the rerank endpoints (vLLM/Jina ``/v1/rerank``, TEI ``/rerank``) and a chat model.

It scores a document by how many of the query's words it contains (the best match first), so a
test can tell the reranked order from the fused one; ``delay_ms``, ``fail_with`` and
``malformed`` make it slow, failing or wrong on purpose.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class RerankState:
    delay_ms: int = 0
    fail_with: int | None = None
    malformed: bool = False
    prefer: str | None = None     # documents containing this text score highest
    requests: list[tuple[str, dict]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)


def score(query: str, document: str, prefer: str | None = None) -> float:
    words = set(re.findall(r"\w+", query.lower()))
    bonus = 100.0 if prefer and prefer.lower() in document.lower() else 0.0
    return bonus + float(sum(1 for w in words if w in document.lower()))


def _handler(state: RerankState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, code: int, body) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the client gave up (a timeout test)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            state.requests.append((self.path, body))
            state.auth.append(self.headers.get("Authorization"))
            if state.delay_ms:
                time.sleep(state.delay_ms / 1000)
            if state.fail_with:
                self._send(state.fail_with, {"error": "simulated"})
                return
            if self.path == "/v1/rerank":
                docs = body["documents"]
                results = [{"index": i, "relevance_score": score(body["query"], d, state.prefer)} for i, d in enumerate(docs)]
                results.sort(key=lambda r: -r["relevance_score"])   # servers answer best first
                self._send(200, {"id": "x", "model": body.get("model"),
                                 "results": results[:-1] if state.malformed else results})
            elif self.path == "/rerank":   # TEI
                out = [{"index": i, "score": score(body["query"], d, state.prefer)} for i, d in enumerate(body["texts"])]
                self._send(200, sorted(out, key=lambda r: -r["score"]))
            elif self.path == "/v1/chat/completions":
                prompt = body["messages"][0]["content"]
                query = prompt.split("Query: ", 1)[1].split("\n", 1)[0]
                docs = re.findall(r"^\[\d+\] (.*)$", prompt, re.M)
                scores = [min(10.0, score(query, d, state.prefer)) for d in docs]
                content = "not json at all" if state.malformed else "Here you go: " + json.dumps({"scores": scores})
                self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})
            else:
                self._send(404, {"error": "unknown path"})

    return Handler


@contextmanager
def rerank_server(state: RerankState | None = None) -> Iterator[tuple[str, RerankState]]:
    state = state or RerankState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
