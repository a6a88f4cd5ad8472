"""The embedding model registry: which model search reads, and which one is being built.

Exactly one model is ``active`` (a unique partial index enforces it). A new model starts as
``building``; it becomes active -- and the previous one ``retired`` -- in one transaction,
only once it covers every open posting. Search reads the active model only, so it never
mixes vectors of two models and never sees a half-built one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg

from jobpipe.db.rows import one


class ModelMismatchError(ValueError):
    """A model id was reused with other dimensions: vectors would be incomparable."""


@dataclass(frozen=True)
class ModelInfo:
    model: str
    dims: int
    state: str                      # building | active | retired
    activated_at: datetime | None = None


def active_model(conn: psycopg.Connection) -> ModelInfo | None:
    """The model search must use (``None`` before anything was embedded)."""
    row = conn.execute(
        "SELECT model, dims, state, activated_at FROM embedding_models WHERE state = 'active'"
    ).fetchone()
    return ModelInfo(*row) if row else None


def models_in_use(conn: psycopg.Connection) -> list[ModelInfo]:
    """The models that need vectors and an index: the active one and any being built."""
    rows = conn.execute(
        "SELECT model, dims, state, activated_at FROM embedding_models WHERE state IN ('active', 'building') "
        "ORDER BY model"
    ).fetchall()
    return [ModelInfo(*row) for row in rows]


def model_info(conn: psycopg.Connection, model: str) -> ModelInfo | None:
    row = conn.execute("SELECT model, dims, state, activated_at FROM embedding_models WHERE model = %s",
                       (model,)).fetchone()
    return ModelInfo(*row) if row else None


def register_model(conn: psycopg.Connection, model: str, dims: int) -> ModelInfo:
    """Record ``model``: active when it is the first model ever, else building. Commits.

    A retired model that is used again goes back to ``building``: its old vectors are kept
    (only stale ones get re-embedded) but it must prove full coverage before serving again.
    """
    with conn.transaction():
        conn.execute("LOCK TABLE embedding_models IN SHARE ROW EXCLUSIVE MODE")
        info = model_info(conn, model)
        if info is not None and info.dims != dims:
            raise ModelMismatchError(f"model {model!r} is registered with {info.dims} dims, embedder gives {dims}; "
                                     "give the new variant its own model id")
        if info is None:
            first = one(conn.execute("SELECT NOT EXISTS (SELECT 1 FROM embedding_models WHERE state = 'active')"))[0]
            conn.execute(
                "INSERT INTO embedding_models (model, dims, state, activated_at) VALUES (%s, %s, %s, %s)",
                (model, dims, "active" if first else "building", datetime.now().astimezone() if first else None),
            )
        elif info.state == "retired":
            conn.execute("UPDATE embedding_models SET state = 'building', retired_at = NULL WHERE model = %s", (model,))
        info = model_info(conn, model)
    if not conn.autocommit:
        conn.commit()
    assert info is not None
    return info


def activate_model(conn: psycopg.Connection, model: str) -> None:
    """Make ``model`` the one search reads and retire the previous one, atomically. Commits."""
    with conn.transaction():
        conn.execute("LOCK TABLE embedding_models IN SHARE ROW EXCLUSIVE MODE")
        conn.execute("UPDATE embedding_models SET state = 'retired', retired_at = now() WHERE state = 'active' AND model <> %s",
                     (model,))
        conn.execute("UPDATE embedding_models SET state = 'active', activated_at = now() WHERE model = %s", (model,))
    if not conn.autocommit:
        conn.commit()
