"""Candidate-side records: a resume as loaded, the profile parsed from it, a ranked match."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class ResumeDocument:
    """One resume as read from a folder or a JSONL file, before any parsing."""

    candidate_id: str
    text: str
    name: str | None = None


@dataclass
class CandidateProfile:
    """What matching needs from a resume; one row of ``candidates``."""

    candidate_id: str
    resume_text: str
    name: str | None = None
    headline: str | None = None
    skills: list[str] = field(default_factory=list)      # canonical names, same taxonomy as jobs.skills
    cities: list[str] = field(default_factory=list)      # canonical English names, same as jobs.cities
    experience_years: float | None = None
    language: str | None = None                          # "zh" | "en"
    content_hash: str = ""


@dataclass
class MatchResult:
    """One job ranked for one candidate, with the evidence behind its score."""

    job_id: int
    source: str
    external_id: str
    title: str
    company: str | None
    cities: list[str]
    salary: dict[str, Any]
    url: str | None
    posted_at: datetime | None
    score: float                      # = fused_score; what results are ranked by
    vector_similarity: float          # cosine similarity of candidate and job vectors
    skill_overlap: float              # share of the job's skills the candidate has (0 when the job lists none)
    fused_score: float
    matched_skills: list[str] = field(default_factory=list)
    missing_skills: list[str] = field(default_factory=list)
