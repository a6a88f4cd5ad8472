"""Request and response bodies of the HTTP API (and so of its OpenAPI document).

Inputs are validated strictly (unknown fields rejected, every string bounded) because the
callers are programs, often LLM agents: a precise 422 lets them correct the call, while a
silently ignored typo (``"citty"``) would return plausible but unfiltered jobs.
"""

from __future__ import annotations

import dataclasses
import typing
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from jobpipe import models
from jobpipe.search.types import SearchFilters, SearchOptions
from jobpipe.search.understand import Understood
from jobpipe.service import limits
from jobpipe.store.jobs import JOB_COLUMNS, JOB_FIELDS
from jobpipe.text.sanitize import require_visible


class SearchArguments(SearchOptions, SearchFilters):
    """What the ``search_jobs`` MCP tool takes: the query, the filters, the options, how many results."""

    query: str = Field(
        ..., min_length=1, max_length=limits.MAX_QUERY_CHARS,
        description="What the user is looking for, in their own words and in Chinese or English: a role, "
                    "skills, a company... Do not repeat constraints here that you pass as filters.",
        examples=["大模型 算法 实习", "senior backend engineer golang"],
    )
    top_k: int = Field(limits.DEFAULT_TOP_K, ge=1, le=limits.MAX_TOP_K, description="How many results (1..100).")

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return require_visible(value, "query") or ""


class SearchRequest(SearchArguments):
    """The body of ``POST /search``."""

    debug: bool = Field(False, description="Add the time spent in each search stage (ms) to the response.")


class MatchRequest(SearchFilters):
    """The body of ``POST /match`` and the ``match_candidate`` MCP tool's arguments."""

    candidate_id: str | None = Field(
        None, min_length=1, max_length=limits.MAX_CANDIDATE_ID_CHARS,
        description="Id of a candidate already loaded into the pipeline. Give this or `resume_text`.",
    )
    resume_text: str | None = Field(
        None, min_length=1, max_length=limits.MAX_RESUME_CHARS,
        description="A resume as plain text (Chinese or English). Give this or `candidate_id`.",
    )
    top_k: int = Field(limits.DEFAULT_TOP_K, ge=1, le=limits.MAX_TOP_K, description="How many results (1..100).")

    @field_validator("candidate_id")
    @classmethod
    def _candidate_id(cls, value: str | None) -> str | None:
        return require_visible(value, "candidate_id")

    @field_validator("resume_text")
    @classmethod
    def _resume(cls, value: str | None) -> str | None:
        return require_visible(value, "resume_text", multiline=True)

    @model_validator(mode="after")
    def _exactly_one(self) -> MatchRequest:
        if (self.candidate_id is None) == (self.resume_text is None):
            raise ValueError("give exactly one of candidate_id or resume_text")
        return self


def _model_of(cls: type, name: str) -> type[BaseModel]:
    """A response model with a dataclass's fields, types and ``metadata["doc"]`` descriptions."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {
        f.name: (hints[f.name], Field(... if f.default is dataclasses.MISSING else f.default,
                                      description=f.metadata.get("doc")))
        for f in dataclasses.fields(cls)
    }
    return create_model(name, **fields)


if typing.TYPE_CHECKING:
    # built at run time from the dataclass (one declaration of the salary): mypy sees a plain model
    Salary = BaseModel
else:
    Salary = _model_of(models.Salary, "Salary")


class JobSummary(BaseModel):
    job_id: int = Field(..., description="Use with GET /jobs/{job_id} for the full posting.")
    source: str
    external_id: str
    title: str
    company: str | None = None
    cities: list[str] = Field(default_factory=list, description="Canonical English city names.")
    salary: Salary
    url: str | None = None
    posted_at: datetime | None = None


class SearchHit(JobSummary):
    score: float = Field(..., description="The score results are ranked by (the fused score).")
    vector_rank: int | None = Field(None, description="1-based rank in the vector (semantic) list; null if absent.")
    keyword_rank: int | None = Field(None, description="1-based rank in the keyword list; null if absent.")
    fused_score: float = Field(..., description="Reciprocal-rank-fusion score of both lists.")
    vector_similarity: float | None = Field(None, description="Cosine similarity of query and posting (vector list).")
    keyword_score: float | None = Field(None, description="The keyword list's BM25-style score.")
    rerank_score: float | None = Field(None, description="The rerank model's score (only when reranked).")
    query_skills_held: list[str] | None = Field(
        None, description="Skills the query names that this posting lists (they lifted it in the fusion).")
    query_seniority_held: str | None = Field(
        None, description="This posting's seniority, when it is one the query prefers (`understood.seniority_levels`; "
                          "it lifted it in the fusion).")
    query_constraints_met: list[str] | None = Field(
        None, description="Constraints the query states that no filter applied (city, job_type, remote, salary_min, "
                          "posted_within_days) and this posting meets (they lifted it in the fusion).")


class SearchResponseBody(BaseModel):
    results: list[SearchHit]
    model: str | None = Field(None, description="Embedding model used for the vector part (null: keyword only).")
    mode: str | None = Field(None, description="What answered: hybrid, vector, keyword or browse.")
    notes: list[str] = Field(default_factory=list, description="Why a part of search was skipped, if any.")
    understood: Understood = Field(
        default_factory=Understood, description="The constraints the query states, each with the span of the "
                                                "query it came from (applied only with auto_filters).")
    applied_filters: SearchFilters = Field(
        default_factory=SearchFilters, description="The filters the search ran with: the explicit ones plus, "
                                                   "with auto_filters, those taken from the query.")
    auto_filters: list[str] = Field(default_factory=list, description="The filter fields taken from the query.")
    rerank: dict[str, Any] | None = Field(
        None, description="With rerank=true: applied (bool), model, ms, and fallback (why the fused order was "
                          "kept: not configured, timed out, HTTP error, incomplete answer).")
    timings_ms: dict[str, float] | None = Field(None, description="Per-stage time in ms (only with debug=true).")
    debug: dict[str, Any] | None = Field(None, description="Search internals (only with debug=true).")


class MatchParts(BaseModel):
    """Each part of a match score, 0-100 (100 confirmed fit, 50 unknown, 0 confirmed mismatch)."""

    semantic: float = Field(..., description="Resume/posting vector similarity, rescaled per model.")
    skills: float = Field(..., description="Share of the job's skills the candidate has (nice-to-have count half).")
    experience: float = Field(..., description="Years and seniority against what the job asks for.")
    location: float = Field(..., description="In one of the candidate's cities, or remote where welcome.")
    job_type: float = Field(..., description="The job's employment type is one the candidate wants.")
    salary: float = Field(..., description="The job's annual maximum against the candidate's floor.")


class MatchHit(JobSummary):
    rank: int = Field(..., description="1-based position in this list.")
    score: float = Field(..., description="0-100: the weighted sum of `parts` (weights in docs/candidates.md).")
    parts: MatchParts
    similarity: float = Field(..., description="Raw cosine similarity of resume and posting vectors (-1..1).")
    remote: str | None = Field(None, description="remote | hybrid | onsite; null when the posting does not say.")
    job_type: str | None = None
    matched_skills: list[str] = Field(default_factory=list, description="Required job skills the candidate has.")
    missing_skills: list[str] = Field(default_factory=list, description="Required job skills the candidate lacks.")
    matched_nice: list[str] = Field(default_factory=list, description="Nice-to-have job skills the candidate has.")
    missing_nice: list[str] = Field(default_factory=list, description="Nice-to-have job skills the candidate lacks.")
    vector_similarity: float = Field(..., description="Same as `similarity` (kept for older clients).")
    skill_overlap: float = Field(..., description="Share of the job's listed skills the candidate has (0..1).")
    fused_score: float = Field(..., description="Same as `score` (kept for older clients).")


class MatchResponseBody(BaseModel):
    candidate_id: str | None = None
    candidate_skills: list[str] = Field(default_factory=list, description="Skills found in the resume.")
    results: list[MatchHit]


class CandidateBody(BaseModel):
    """``POST /candidates`` as JSON: a resume as text, with optional id and preferences."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(None, min_length=1, max_length=limits.MAX_CANDIDATE_ID_CHARS,
                           description="The candidate id (default: a new random one). An existing API candidate "
                                       "with this id is replaced.")
    text: str = Field(..., min_length=1, max_length=limits.MAX_UPLOAD_TEXT_CHARS,
                      description="The resume as plain text, Chinese or English. Contact details and the "
                                  "candidate's name are removed before anything is stored.")
    name: str | None = Field(None, max_length=200, description="The candidate's name, used only to remove it.")
    preferences: dict[str, Any] | None = Field(
        None, description="Explicit preferences: cities, remote, job_types, salary_min, currency, "
                          "exclude_companies, skills (see docs/candidates.md).")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        return require_visible(value, "id")

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return require_visible(value, "text", multiline=True) or ""


class CandidateAdded(BaseModel):
    candidate_id: str
    outcome: Literal["inserted", "updated", "unchanged"]
    embedded: bool = Field(..., description="A vector of the active model is stored (else the pipeline adds one).")
    matches: int = Field(..., description="Rows of the candidate's match list written now.")


class CandidateDetail(BaseModel):
    candidate_id: str
    origin: Literal["folder", "api", "cli"]
    source_file: str | None = None
    profile: dict[str, Any] = Field(..., description="What was inferred from the redacted resume.")
    preferences: dict[str, Any] = Field(..., description="Explicit preferences as given.")
    effective_preferences: dict[str, Any] = Field(..., description="What matching uses: explicit, else inferred.")
    embedding_text: str = Field(..., description="Exactly the text the candidate's vector is computed from.")
    created_at: datetime | None = None
    updated_at: datetime | None = None


class CandidateMatchesBody(BaseModel):
    candidate_id: str
    model: str | None = Field(None, description="The embedding model the list was computed with.")
    computed_at: datetime | None = None
    note: str | None = Field(None, description="Why the list is empty, when it is.")
    results: list[MatchHit]


def _job_detail() -> type[BaseModel]:
    """Everything the pipeline stored about one posting: the jobs read model's fields beyond the
    summary, with their types and meanings from the posting's one declaration."""
    fields: dict[str, Any] = {"status": (Literal["open", "closed"], Field(..., description="open | closed"))}
    for name in JOB_FIELDS:
        if name in JobSummary.model_fields or name == "status":
            continue
        column = JOB_COLUMNS[name]
        annotation = column.annotation
        default: Any = [] if annotation == list[str] else ("" if annotation is str else None)
        fields[name] = (annotation | None if default is None else annotation,
                        Field(default, description=column.doc or None))
    return create_model("JobDetail", __base__=JobSummary, __doc__=_job_detail.__doc__, **fields)


JobDetail = _job_detail()


class HealthBody(BaseModel):
    status: Literal["ok", "degraded"]
    database: dict[str, Any]
    index: dict[str, Any]
    embedder: dict[str, Any]
    sources: list[dict[str, Any]]


class ErrorBody(BaseModel):
    detail: Any
    message: str | None = None
