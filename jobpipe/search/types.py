"""The search API's request and result types, shared by the CLI, HTTP service and MCP tools."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from jobpipe.normalize.job_type import JOB_TYPES
from jobpipe.text.sanitize import clean_text, require_visible

#: Bounds of what a caller may filter on: each keeps one request cheap and is named in the error.
MAX_CITY_CHARS = 64
MAX_SKILLS = 20
MAX_SKILL_CHARS = 64
MAX_POSTED_WITHIN_DAYS = 3650
MAX_SALARY = 1_000_000_000
#: Dates a posted_from / posted_until may name (a typo such as year 20261 is an error, not a no-op).
MIN_POSTED_DATE = date(1990, 1, 1)
MAX_POSTED_DATE = date(2999, 12, 31)

#: The job types a filter can ask for: the normalizer's vocabulary.
# A Literal over the normalizer's tuple (one vocabulary): mypy takes Literal arguments only as written literals.
JobType = Literal[JOB_TYPES]  # type: ignore[valid-type]


class FilterError(ValueError):
    """Filter (or request) values that cannot mean anything; the message names each field and rule."""

    def __init__(self, message: str, errors: Sequence[Mapping[str, Any]] | None = None):
        super().__init__(message)
        self.errors: Sequence[Mapping[str, Any]] = errors or []

    @classmethod
    def from_validation(cls, exc: ValidationError, known: Sequence[str] = ()) -> FilterError:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        return cls(describe_errors(errors, known), errors)


def describe_errors(errors: Sequence[Mapping[str, Any]], known: Sequence[str] = ()) -> str:
    """One short line for validation errors: ``field: what is wrong; ...`` (for people and models).

    ``known`` lists the accepted field names, so that a misspelt one gets a useful answer.
    """
    parts = []
    for err in errors:
        loc = list(err.get("loc", ()))
        if loc and loc[0] in ("body", "path", "query", "header"):
            loc = loc[1:]   # where an HTTP request carried the value, not which value
        where = ".".join(str(p) for p in loc)
        if err.get("type") == "extra_forbidden":
            msg = "unknown field" + (f" (known: {', '.join(known)})" if known else "")
        else:
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return clean_text("; ".join(parts)) or "invalid request"



def one_or_many(value: Any) -> Any:
    """A list field given one string ("skills": "Go", {"cities": "上海"}) as the list of it; else as is."""
    return (value,) if isinstance(value, str) else value


def bounded_texts(value: tuple[str, ...], name: str, max_items: int, max_chars: int) -> tuple[str, ...]:
    """A list filter's values: at most ``max_items``, each at most ``max_chars`` and visible text."""
    if len(value) > max_items:
        raise ValueError(f"at most {max_items} {name}, not {len(value)}")
    cleaned = []
    for i, text in enumerate(value):
        if len(text) > max_chars:
            raise ValueError(f"{name}[{i}] is longer than {max_chars} characters")
        cleaned.append(require_visible(text, f"{name}[{i}]") or "")
    return tuple(cleaned)

class SearchFilters(BaseModel):
    """What a search (or a match) may be restricted to: the one definition of the filters.

    The HTTP request models extend it, the MCP tools' parameters and the CLI's flags are derived
    from its fields, and ``jobpipe.search.filters.build_filter_sql`` turns it into SQL once per
    request. All optional, all combined with AND. ``SearchFilters.parse(data)`` raises
    :class:`FilterError` for invalid or unknown values with one short message; the HTTP API's 422
    and the MCP tools' errors carry the same message (:func:`describe_errors`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    city: str | None = Field(
        None, max_length=MAX_CITY_CHARS, examples=["北京"],
        description="Only jobs in this city: a Chinese or English name or common alias ('深圳', 'Shenzhen', "
                    "'SF'). Omit for anywhere.")
    job_type: JobType | None = Field(
        None, description="Only this employment type: 'intern' for internships, 'campus' for graduate / "
                          "college-hire (校招) programmes. Omit for any.")
    remote: bool | None = Field(
        None, description="true: only fully remote jobs (hybrid and on-site excluded), as a source field, the "
                          "title or the description states it (remote named only among benefits does not count); "
                          "false: only jobs not stated to be fully remote. Omit if the user did not say.")
    salary_min: float | None = Field(
        None, ge=0, le=MAX_SALARY, allow_inf_nan=False,
        description="Minimum ANNUAL salary the job's annualized maximum must reach, in `currency` (convert "
                    "monthly figures: 20k/month = 240000).")
    currency: str | None = Field(
        None, pattern=r"^[A-Za-z]{3,4}$",
        description="ISO 4217 code of `salary_min`, e.g. 'CNY', 'USD' (default USD); other currencies are "
                    "converted approximately.")
    skills: tuple[str, ...] = Field(
        (), json_schema_extra={"maxItems": MAX_SKILLS}, examples=[["python", "pytorch"]],
        description=f"Skills every job must list (canonical or alias names, at most {MAX_SKILLS}). Use only for "
                    "hard requirements: it removes jobs.")
    posted_within_days: int | None = Field(
        None, ge=1, le=MAX_POSTED_WITHIN_DAYS, description="Only jobs posted in the last N days.")
    posted_from: date | None = Field(
        None, ge=MIN_POSTED_DATE, le=MAX_POSTED_DATE, examples=["2026-11-01"],
        description="Only jobs posted on or after this date (YYYY-MM-DD, UTC). With `posted_until`, a "
                    "window such as one month; postings without a date are excluded.")
    posted_until: date | None = Field(
        None, ge=MIN_POSTED_DATE, le=MAX_POSTED_DATE, examples=["2026-11-30"],
        description="Only jobs posted on or before this date (YYYY-MM-DD, UTC), e.g. what was open to "
                    "apply for on a past day.")
    include_closed: bool = Field(False, description="Also return postings that are no longer listed.")

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Self:
        """``data`` validated, or :class:`FilterError` naming every wrong or unknown field."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise FilterError.from_validation(exc, list(cls.model_fields)) from None

    @field_validator("city")
    @classmethod
    def _city(cls, value: str | None) -> str | None:
        return require_visible(value, "city")

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str | None) -> str | None:
        if value is None:
            return None
        code = value.upper()
        if code not in known_currencies():
            raise ValueError(f"unknown currency {code!r}; known: {', '.join(sorted(known_currencies()))}")
        return code

    @model_validator(mode="after")
    def _posted_window(self) -> Self:
        if self.posted_from and self.posted_until and self.posted_from > self.posted_until:
            raise ValueError(f"posted_from {self.posted_from} is after posted_until {self.posted_until}: "
                             "no posting can match")
        return self

    # An agent passes "skills": "Go" as often as ["Go"]: one skill is a list of one.
    _one_skill = field_validator("skills", mode="before")(one_or_many)

    @field_validator("skills")
    @classmethod
    def _skills(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return bounded_texts(value, "skills", MAX_SKILLS, MAX_SKILL_CHARS)

    def filters(self) -> SearchFilters:
        """Only the filter fields (a request model that extends this one carries more)."""
        if type(self) is SearchFilters:
            return self
        return SearchFilters.model_construct(
            _fields_set=self.model_fields_set & set(SearchFilters.model_fields),   # what the caller gave
            **{name: getattr(self, name) for name in SearchFilters.model_fields})


class SearchOptions(BaseModel):
    """How a search reads its query (beside the filters): one definition for HTTP, MCP and the CLI.

    The HTTP API and the MCP tool default ``auto_filters`` to false (a program passes the
    filters it means); the CLI and the search page default it to true (a person types a question).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    auto_filters: bool = Field(
        False, description="Apply the constraints the query states (city, job type, remote, minimum pay, "
                           "freshness) as filters; a filter given explicitly always wins. What was read is "
                           "returned as `understood` either way.")
    rerank: bool = Field(
        False, description="Re-order the top results with the configured rerank model (JOBPIPE_RERANK_URL); "
                           "without one, or when it fails or times out, the fused order is kept and "
                           "`rerank` in the response says why.")


@functools.lru_cache(maxsize=1)
def fx_rates() -> dict[str, float]:
    """Approximate USD per unit of each currency (data file, for filtering only)."""
    text = resources.files("jobpipe.search").joinpath("data/fx_rates.json").read_text(encoding="utf-8")
    return {k: float(v) for k, v in json.loads(text).items() if not k.startswith("_")}


@functools.lru_cache(maxsize=1)
def known_currencies() -> frozenset[str]:
    """Currencies a salary filter understands: those with an approximate USD rate."""
    return frozenset(fx_rates())


@dataclass
class SearchResult:
    job_id: int
    source: str
    external_id: str
    title: str
    company: str | None
    cities: list[str]
    salary: dict[str, Any]                 # {min, max, currency, period, months_per_year, negotiable}
    url: str | None
    posted_at: datetime | None
    score: float                           # the fused score results are ranked by
    vector_rank: int | None = None         # 1-based rank in the vector list, None if absent
    keyword_rank: int | None = None        # 1-based rank in the keyword list, None if absent
    fused_score: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SearchResponse:
    results: list[SearchResult]
    timings_ms: dict[str, float] = field(default_factory=dict)   # per stage, filled when debug=True
    model: str | None = None
    mode: str = "hybrid"                   # the legs actually used: hybrid | vector | keyword | browse
    notes: list[str] = field(default_factory=list)               # why a leg was skipped, plans chosen, ...
    debug: dict[str, Any] = field(default_factory=dict)          # query analysis and plans, when debug=True
    understood: Any = None             # jobpipe.search.understand.Understood: what the query states
    filters: SearchFilters = field(default_factory=SearchFilters)   # applied: explicit ones plus, with auto_filters, the query's
    auto_filters: tuple[str, ...] = ()     # the filter fields taken from the query
    rerank: dict[str, Any] | None = None   # when asked: applied, model, ms, fallback (why the fused order was kept)
