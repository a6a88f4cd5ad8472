"""Candidate (resume) profiles and their matching against jobs."""

from jobpipe.candidates.load import ResumeLoadError, load_resumes
from jobpipe.candidates.matching import (
    MatchError,
    UnknownCandidateError,
    candidate_embedding_text,
    compute_matches,
    match,
    match_with_profile,
)
from jobpipe.candidates.models import CandidateProfile, MatchResult, ResumeDocument
from jobpipe.candidates.parse import parse_resume
from jobpipe.candidates.store import CandidateUpsertCounts, upsert_candidates

__all__ = [
    "CandidateProfile", "CandidateUpsertCounts", "MatchError", "MatchResult", "ResumeDocument", "ResumeLoadError", "UnknownCandidateError",
    "candidate_embedding_text", "compute_matches", "load_resumes", "match", "match_with_profile",
    "parse_resume", "upsert_candidates",
]
