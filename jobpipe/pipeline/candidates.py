"""Candidate (resume) stages: profiles -> vectors -> matches against open jobs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import psycopg

from jobpipe.candidates import compute_matches, load_resumes, parse_resume, upsert_candidates
from jobpipe.candidates.store import matched_candidates
from jobpipe.embedding.base import Embedder
from jobpipe.pipeline.locking import locked
from jobpipe.pipeline.report import Report
from jobpipe.store import sync_candidate_embeddings


@dataclass(frozen=True)
class ProfileOutcome(Report):
    candidates: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


def profile_candidates(conn: psycopg.Connection, path: str | Path) -> ProfileOutcome:
    """Parse the resumes at ``path`` into profiles with the jobs' own skill and city vocabulary.

    Using the same vocabulary as jobs is what makes "matched / missing skills" comparable.
    """
    profiles = [parse_resume(r.candidate_id, r.text, name=r.name) for r in load_resumes(path)]
    counts = upsert_candidates(conn, profiles)
    return ProfileOutcome(candidates=len(profiles), inserted=counts.inserted, updated=counts.updated,
                          unchanged=counts.unchanged)


@dataclass(frozen=True)
class CandidateVectorsOutcome(Report):
    embedded: int = 0


def embed_candidates(conn: psycopg.Connection, embedder: Embedder, *, run_id: str | None = None) -> CandidateVectorsOutcome:
    """Embed changed profiles with the jobs' model (vectors are only comparable within one model)."""
    with locked(conn, "candidates", stage="embed candidates", run_id=run_id):
        return CandidateVectorsOutcome(embedded=sync_candidate_embeddings(conn, embedder).embedded)


@dataclass(frozen=True)
class MatchOutcome(Report):
    matches: int = 0
    candidates_matched: int = 0


def match_candidates(conn: psycopg.Connection, embedder: Embedder, *, run_id: str | None = None) -> MatchOutcome:
    """Rank open jobs for every candidate, precomputed so "what fits this candidate?" is a lookup."""
    with locked(conn, "candidates", stage="match candidates", run_id=run_id):
        written = compute_matches(conn, embedder)
    return MatchOutcome(matches=written, candidates_matched=matched_candidates(conn))
