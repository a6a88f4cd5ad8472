"""The stages' locks (``jobpipe.store.locks``), raised as stage errors an operator can read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from jobpipe.pipeline.errors import StageBusyError
from jobpipe.store.locks import StageBusy, stage_lock


@contextmanager
def locked(conn: psycopg.Connection, name: str, *, stage: str, run_id: str | None = None) -> Iterator[None]:
    """Hold ``name`` for the block: ``source:<name>`` for a source's stages, a stage's own name
    (``embeddings``, ``indexes``, ``candidates``) for the whole-store ones."""
    try:
        with stage_lock(conn, name, stage=stage, run_id=run_id):
            yield
    except StageBusy as exc:
        raise StageBusyError(str(exc), lock=exc.lock,
                             held_by=exc.holder.describe() if exc.holder else None) from None


def source_lock(source: str) -> str:
    return f"source:{source}"
