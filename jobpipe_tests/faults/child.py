"""One night's run in a process of its own, for the fault suite: ``jobpipe.sync`` on a sources
file, printing its summary as JSON (exit 0 ok, 1 problems). The suite kills this process, stops
its database or feeds it bad answers; a rerun must repair what it left.

``FAULT_KILL=upsert|terms`` SIGKILLs the process right after the first committed batch of that
stage (the stages are made to work in small batches so there is a "middle" to die in): where a
real crash would most likely leave half-written work. Fetch and embedding are killed from
outside, by the board and the embedding server, on a given request.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from functools import partial


def _die_after(module: object, name: str, calls: int = 1) -> None:
    original = getattr(module, name)
    seen = [0]

    def wrapper(*args: object, **kwargs: object) -> object:
        result = original(*args, **kwargs)
        seen[0] += 1
        if seen[0] >= calls:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(module, name, wrapper)


def _arm(kill: str) -> None:
    import jobpipe.pipeline.ingest as ingest
    import jobpipe.store.terms as terms
    import jobpipe.store.upsert as upsert

    if kill == "upsert":
        ingest.upsert_jobs = partial(upsert.upsert_jobs, batch_size=10)   # type: ignore[assignment]
        _die_after(upsert, "_copy_batch")
        _die_after(upsert, "_write_batch")
    elif kill == "terms":
        ingest.sync_job_terms = partial(terms.sync_job_terms, page_rows=10)   # type: ignore[assignment]
        _die_after(terms, "_write")
    elif kill:
        raise SystemExit(f"unknown FAULT_KILL={kill!r}")


def main() -> int:
    sources, database_url = sys.argv[1], sys.argv[2]
    embedding_url = sys.argv[3] if len(sys.argv) > 3 else ""
    _arm(os.environ.get("FAULT_KILL", ""))
    import jobpipe
    from jobpipe.embedding import TokenHashEmbedder

    if embedding_url:
        from jobpipe.embedding.openai_compat import OpenAIEmbedder

        embedder = OpenAIEmbedder("fault-hash-32", base_url=embedding_url, api_key="none", dims=32, max_batch=8,
                                  timeout_seconds=1.0, max_retries=8)
    else:
        embedder = TokenHashEmbedder(32)
    summary = jobpipe.sync(sources, database_url=database_url, embedder=embedder, raise_on_error=False,
                           echo=lambda line: print(line, file=sys.stderr, flush=True))
    print(json.dumps(summary.to_json(), default=str))
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
