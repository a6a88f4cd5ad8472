"""Candidate-side records: a resume as read, the profile derived from it, a ranked match.

Every field of a profile is derived from the *redacted* resume (``jobpipe.candidates.redact``):
no profile field, evidence snippet or embedding text can hold a contact detail or the
candidate's own name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any

#: Where a candidate came from: the drop folder (deleted when its file leaves), the HTTP API or the CLI.
ORIGINS = ("folder", "api", "cli")


@dataclass(frozen=True)
class ResumeDocument:
    """One resume as read from a file or a request, before redaction and parsing.

    ``names`` are hints for redaction only (a JSON ``name``, a document's author metadata):
    they are never stored.
    """

    candidate_id: str
    text: str
    names: tuple[str, ...] = ()
    preferences: dict[str, Any] | None = None
    source_file: str | None = None       # path below the drop folder
    file_hash: str | None = None
    file_size: int | None = None
    file_mtime_ns: int | None = None
    truncated: bool = False


@dataclass
class SkillEvidence:
    """One canonical skill and where the resume shows it."""

    skill: str
    listed: bool                 # named in a skills section ("Skills: Python, SQL")
    mentioned: bool              # named in work history, projects or the summary
    evidence: list[str] = field(default_factory=list)   # the (redacted) lines, at most one per kind


@dataclass
class WorkPeriod:
    """A dated stretch of work history."""

    start: str                   # YYYY-MM
    end: str | None              # YYYY-MM, None = ongoing ("至今", "present")
    months: int
    line: str                    # the (redacted) line the dates were read from


@dataclass
class CandidateProfile:
    """What matching knows about a candidate, all inferred from the redacted resume."""

    candidate_id: str
    resume_text: str                                   # redacted
    language: str | None = None                        # the resume's language: zh | en
    headline: str | None = None                        # how the resume presents the person
    current_title: str | None = None                   # the title of the latest work period
    target_titles: list[str] = field(default_factory=list)   # stated objective (求职意向, Objective)
    seniority: str | None = None                       # the normalizer's vocabulary (junior ... director)
    seniority_source: str | None = None                # "title" | "experience"
    experience_years: float | None = None              # from the work-history dates, else the stated figure
    experience_from_dates: float | None = None         # merged work periods, overlaps counted once
    experience_stated: float | None = None             # "5+ years of experience", "工作经验：5年"
    work_periods: list[WorkPeriod] = field(default_factory=list)
    degree: str | None = None                          # highest held: high_school ... phd
    skills: list[str] = field(default_factory=list)    # canonical, same taxonomy as jobs.skills
    skill_evidence: list[SkillEvidence] = field(default_factory=list)
    cities: list[str] = field(default_factory=list)    # canonical English names, desired before current
    remote: bool | None = None                         # True: open to remote work; False: does not want it
    job_types: list[str] = field(default_factory=list) # full_time | part_time | intern | campus | contract
    expected_salary: dict[str, Any] | None = None      # Salary.as_dict() + annual_min/annual_max
    languages: list[str] = field(default_factory=list) # spoken languages, ISO 639-1
    truncated: bool = False                            # the resume was longer than the reader keeps
    as_of: str | None = None                           # the date "present" in the work history means (YYYY-MM-DD)
    redacted: dict[str, int] = field(default_factory=dict)   # how many details of each kind were removed

    def as_json(self) -> dict[str, Any]:
        """The profile as stored in ``candidates.profile`` (everything but id and text)."""
        data = asdict(self)
        data.pop("candidate_id")
        data.pop("resume_text")
        return data

    @classmethod
    def from_json(cls, candidate_id: str, resume_text: str, data: dict[str, Any]) -> CandidateProfile:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in (data or {}).items() if k in known}
        values["skill_evidence"] = [SkillEvidence(**e) for e in values.get("skill_evidence") or []]
        values["work_periods"] = [WorkPeriod(**p) for p in values.get("work_periods") or []]
        return cls(candidate_id=candidate_id, resume_text=resume_text, **values)


@dataclass
class MatchParts:
    """The parts of a match score, each 0-100 (``jobpipe.candidates.scoring`` documents them)."""

    semantic: float
    skills: float
    experience: float
    location: float
    job_type: float
    salary: float


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
    score: float                                  # 0-100: the weighted sum of ``parts``
    parts: dict[str, float]                       # MatchParts as a dict
    similarity: float                             # cosine similarity of candidate and job vectors
    matched_skills: list[str] = field(default_factory=list)   # required skills the candidate has
    missing_skills: list[str] = field(default_factory=list)   # required skills the candidate lacks
    matched_nice: list[str] = field(default_factory=list)     # nice-to-have skills the candidate has
    missing_nice: list[str] = field(default_factory=list)
    remote: str | None = None
    job_type: str | None = None
    rank: int = 0
