"""The candidate stages as plain functions: what the Dagster assets, ``jobpipe run`` and the CLI call.

    sync_candidates  the drop folder -> redacted profiles (new, edited, removed, quarantined files)
    embed_candidates changed profiles -> vectors, for the embedder's model and the serving one
    refresh_matches  profiles x open jobs -> candidate_matches, recomputing only what changed

Each returns counts only: ids, file names and resume text never leave these functions, so
nothing personal can reach a log line or Dagster's event metadata.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from jobpipe.candidates.folder import FolderSync, sync_folder
from jobpipe.candidates.matching import MatchRefresh, refresh_matches

log = logging.getLogger(__name__)

__all__ = ["CandidateEmbedCounts", "FolderSync", "MatchRefresh", "embed_candidates", "refresh_matches",
           "sync_candidates"]


def sync_candidates(conn: psycopg.Connection, folder: Path | str) -> FolderSync:
    result = sync_folder(conn, folder)
    log.info("candidates: %d profiled, %d unchanged, %d deleted, %d quarantined", result.profiled,
             result.unchanged, result.deleted, result.quarantined)
    return result


@dataclass
class CandidateEmbedCounts:
    embedded: int = 0
    models: tuple[str, ...] = ()

    def as_metadata(self) -> dict[str, Any]:
        return {"embedded": self.embedded, "models": ", ".join(self.models)}


def embed_candidates(conn: psycopg.Connection, embedder: Any) -> CandidateEmbedCounts:
    """Embed changed candidates with ``embedder`` and, during a model switch, with the serving model too.

    Matches are computed with the active model only (never a mix); while a new model is being
    built for the jobs, a candidate edited meanwhile still needs a vector of the active one.
    """
    from jobpipe.store import active_model, sync_candidate_embeddings

    counts = sync_candidate_embeddings(conn, embedder)
    embedded, models = counts.embedded, [embedder.model]
    serving = active_model(conn)
    if serving is not None and serving.model != embedder.model:
        try:
            from jobpipe.embedding import local_embedder

            other = local_embedder(serving.model)
        except Exception:  # noqa: BLE001 - not a local model: matching waits for the new model
            other = None
        if other is not None and other.dims == serving.dims:
            embedded += sync_candidate_embeddings(conn, other).embedded
            models.append(other.model)
    return CandidateEmbedCounts(embedded, tuple(models))
