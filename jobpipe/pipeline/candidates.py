"""Candidate (resume) stages: the drop folder -> redacted profiles -> vectors -> matches.

    profile_candidates  the drop folder -> profiles (new, edited, removed and quarantined files)
    embed_candidates    changed profiles -> vectors, for the embedder's model and the serving one
    match_candidates    profiles x open jobs -> candidate_matches, recomputing only what changed

Each returns counts only: ids, file names and resume text never leave these functions, so
nothing personal can reach a log line or Dagster's event metadata (docs/candidates.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import psycopg

from jobpipe.candidates.folder import sync_folder
from jobpipe.candidates.matching import DEFAULT_RESERVE, DEFAULT_TOP_N, refresh_matches
from jobpipe.candidates.store import reprofile_outdated
from jobpipe.embedding import local_embedder
from jobpipe.embedding.base import Embedder
from jobpipe.pipeline.locking import locked
from jobpipe.pipeline.report import Report
from jobpipe.store import active_model, sync_candidate_embeddings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProfileOutcome(Report):
    profiled: int = 0        # candidates inserted or updated
    unchanged: int = 0
    deleted: int = 0         # their file left the folder
    quarantined: int = 0     # files that cannot be read, with the reason in candidate_quarantine
    candidates: int = 0      # drop-folder candidates after the run


def profile_candidates(conn: psycopg.Connection, path: str | Path, *, run_id: str | None = None) -> ProfileOutcome:
    """Bring the drop folder's candidates in line with the folder (redacted, profiled with the
    postings' own normalizers and vocabulary, so a candidate and a job compare field by field).

    The three candidate stages share one lock: two runs syncing one folder would race on its
    deletes, and a list must not be computed while its candidate is half-written.
    """
    with locked(conn, "candidates", stage="profile candidates", run_id=run_id):
        r = sync_folder(conn, path)
        again = reprofile_outdated(conn)   # CLI/API candidates of an older parser
    log.info("candidates: %d profiled, %d unchanged, %d deleted, %d quarantined", r.profiled + again, r.unchanged,
             r.deleted, r.quarantined)
    return ProfileOutcome(profiled=r.profiled + again, unchanged=r.unchanged, deleted=r.deleted,
                          quarantined=r.quarantined, candidates=r.candidates)


@dataclass(frozen=True)
class CandidateVectorsOutcome(Report):
    embedded: int = 0
    models: str = ""


def embed_candidates(conn: psycopg.Connection, embedder: Embedder, *,
                     run_id: str | None = None) -> CandidateVectorsOutcome:
    """Embed changed candidates with ``embedder`` and, during a model switch, with the serving model too.

    Matches are computed with the active model only (never a mix); while a new model is being
    built for the jobs, a candidate edited meanwhile still needs a vector of the active one.
    """
    with locked(conn, "candidates", stage="embed candidates", run_id=run_id):
        return _embed_candidates(conn, embedder)


def _embed_candidates(conn: psycopg.Connection, embedder: Embedder) -> CandidateVectorsOutcome:
    embedded, models = sync_candidate_embeddings(conn, embedder).embedded, [embedder.model]
    serving = active_model(conn)
    if serving is not None and serving.model != embedder.model:
        try:
            other = local_embedder(serving.model)
        except Exception:  # noqa: BLE001 - not a local model: matching waits for the new model
            other = None
        if other is not None and other.dims == serving.dims:
            embedded += sync_candidate_embeddings(conn, other).embedded
            models.append(other.model)
    return CandidateVectorsOutcome(embedded=embedded, models=", ".join(models))


@dataclass(frozen=True)
class MatchOutcome(Report):
    recomputed: int = 0      # candidates whose list was written, in full or in part
    full: int = 0
    partial: int = 0
    waiting: int = 0         # candidates without a current vector of the active model
    jobs_touched: int = 0    # jobs inserted, updated or reopened since the last run (and their duplicates)
    jobs_gone: int = 0       # jobs closed since
    rows_written: int = 0
    rows_removed: int = 0
    model: str = ""
    seconds: float = 0.0


def match_candidates(conn: psycopg.Connection, *, top_n: int = DEFAULT_TOP_N, reserve: int = DEFAULT_RESERVE,
                     run_id: str | None = None) -> MatchOutcome:
    """Each candidate's top open jobs with a 0-100 score and its parts, recomputing only what changed."""
    with locked(conn, "candidates", stage="match candidates", run_id=run_id):
        r = refresh_matches(conn, top_n=top_n, reserve=reserve)
    return MatchOutcome(recomputed=r.recomputed, full=r.full, partial=r.partial, waiting=r.waiting,
                        jobs_touched=r.jobs_touched, jobs_gone=r.jobs_gone, rows_written=r.rows_written,
                        rows_removed=r.rows_removed, model=r.model or "", seconds=round(r.seconds, 2))
