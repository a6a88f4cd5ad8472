"""Dropping the vectors of models that were retired long enough ago.

A model switch keeps the previous model's vectors on purpose: switching back within a while
re-embeds only what changed since. Kept forever, though, they cost disk (a 100k-posting corpus
at 512 dims is ~200 MB), an HNSW index and vacuum time while nothing reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import psycopg
from psycopg import sql

from jobpipe.store.index import index_name, legacy_index_name

#: How long a retired model's vectors are kept by default (JOBPIPE_RETIRED_VECTOR_DAYS).
RETIRED_VECTOR_DAYS = 7


@dataclass(frozen=True)
class PrunedModels:
    models: tuple[str, ...] = ()
    job_vectors: int = 0
    candidate_vectors: int = 0

    def as_metadata(self) -> dict[str, object]:
        return {"pruned_models": ", ".join(self.models), "pruned_job_vectors": self.job_vectors,
                "pruned_candidate_vectors": self.candidate_vectors}


def prune_retired_models(conn: psycopg.Connection, *, older_than: timedelta = timedelta(days=RETIRED_VECTOR_DAYS),
                         ) -> PrunedModels:
    """Delete the vectors, HNSW index and registry entry of models retired at least ``older_than`` ago.

    The index goes first (``DROP INDEX CONCURRENTLY``: searches and writes go on; nothing
    searches a retired model). The vectors and the registry row then go in one transaction that
    re-checks the model is still retired, so a model registered again meanwhile keeps its
    vectors. Commits; ``conn`` is in autocommit only while the index is dropped.
    """
    if not conn.autocommit:
        conn.commit()
    due = conn.execute(
        "SELECT model, dims FROM embedding_models WHERE state = 'retired' AND retired_at <= now() - %s ORDER BY model",
        (older_than,),
    ).fetchall()
    if not conn.autocommit:
        conn.commit()
    models, jobs, candidates = [], 0, 0
    for model, dims in due:
        was_autocommit = conn.autocommit
        conn.autocommit = True
        try:
            for name in (index_name(model, dims), legacy_index_name(model, dims)):
                conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
        finally:
            conn.autocommit = was_autocommit
        with conn.transaction():
            state = conn.execute("SELECT state FROM embedding_models WHERE model = %s FOR UPDATE", (model,)).fetchone()
            if state is None or state[0] != "retired":
                continue
            jobs += conn.execute("DELETE FROM job_embeddings WHERE model = %s", (model,)).rowcount
            candidates += conn.execute("DELETE FROM candidate_embeddings WHERE model = %s", (model,)).rowcount
            conn.execute("DELETE FROM embedding_models WHERE model = %s", (model,))
        if not conn.autocommit:
            conn.commit()
        models.append(model)
    return PrunedModels(tuple(models), jobs, candidates)
