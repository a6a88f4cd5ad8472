"""The search API's request and result types, shared by the CLI, HTTP service and MCP tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class SearchFilters:
    city: str | None = None                # Chinese or English name or alias: "深圳", "Shenzhen", "SF"
    job_type: str | None = None            # full_time | part_time | intern | campus | contract
    remote: bool | None = None             # True: fully remote only (not hybrid); False: not remote (docs/search.md)
    salary_min: float | None = None        # annualized, in `currency`
    currency: str | None = None            # ISO code; None means USD. Other currencies convert approximately
    skills: tuple[str, ...] = ()           # canonical or alias names; all must match
    posted_within_days: int | None = None
    include_closed: bool = False


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
