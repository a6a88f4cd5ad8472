"""Candidates: resumes in (a drop folder, the CLI, the API), private profiles, vectors and
explained, incremental matches out. See docs/candidates.md."""

from jobpipe.candidates.documents import SUFFIXES, UnreadableResume, read_bytes
from jobpipe.candidates.folder import DropFolderError, FolderSync, sync_folder
from jobpipe.candidates.matching import (
    DEFAULT_RESERVE,
    DEFAULT_TOP_N,
    MatchError,
    MatchRefresh,
    match,
    match_candidate_now,
    match_with_profile,
    read_matches,
    refresh_matches,
)
from jobpipe.candidates.models import CandidateProfile, MatchResult, ResumeDocument, SkillEvidence, WorkPeriod
from jobpipe.candidates.parse import parse_redacted, parse_resume
from jobpipe.candidates.preferences import CandidatePreferences
from jobpipe.candidates.redact import redact
from jobpipe.candidates.scoring import WEIGHTS
from jobpipe.candidates.store import (
    CandidateConflict,
    CandidateError,
    CandidateRecord,
    UnknownCandidateError,
    delete_candidates,
    embedding_text,
    list_candidates,
    load_candidate,
    upsert_candidate,
    upsert_candidates,
)

__all__ = [
    "DEFAULT_RESERVE", "DEFAULT_TOP_N", "SUFFIXES", "WEIGHTS", "CandidateConflict", "CandidateError",
    "CandidatePreferences", "CandidateProfile", "CandidateRecord", "DropFolderError", "FolderSync", "MatchError",
    "MatchRefresh", "MatchResult", "ResumeDocument", "SkillEvidence", "UnknownCandidateError", "UnreadableResume",
    "WorkPeriod", "delete_candidates", "embedding_text", "list_candidates", "load_candidate", "match",
    "match_candidate_now", "match_with_profile", "parse_redacted", "parse_resume", "read_bytes", "read_matches",
    "redact", "refresh_matches", "sync_folder", "upsert_candidate", "upsert_candidates",
]
