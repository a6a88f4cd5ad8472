"""The records that flow between stages. Plain dataclasses: no Dagster, no database.

    source kind --fetch--> RawPosting --extract--> PostingFields --normalize--> NormalizedPosting
                           (stored as-is          (source-agnostic         (validated, one schema
                            for replay)            strings, pre-parsing)    for every source)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class RawPosting:
    """One posting exactly as a source delivered it.

    ``payload`` is the source's own JSON (or, for HTML and files, a dict the fetcher built
    from the page or row): it is stored unchanged so normalization can be replayed later
    without refetching. ``format`` names the extractor that can read it.
    """

    source: str
    external_id: str
    format: str
    payload: dict[str, Any]
    url: str | None = None
    fetched_at: datetime | None = None


@dataclass
class PostingFields:
    """What an extractor pulls out of a payload, still as the source wrote it.

    Extractors only locate values; every parsing decision (salary, city, job type...) is
    the normalizer's, so all sources get the same rules.
    """

    title: str | None = None
    company: str | None = None
    location: str | None = None                      # free text: "北京/上海", "Mountain View, CA, USA"
    locations: list[str] = field(default_factory=list)  # further locations when the source lists several
    remote_hint: str | None = None                   # e.g. "TELECOMMUTE", "Remote", "hybrid", a boolean as text
    salary_text: str | None = None                   # e.g. "15-25K·14薪", "$120,000 - $150,000 a year"
    salary: dict[str, Any] | None = None             # structured: {min, max, currency, period} or schema.org MonetaryAmount
    employment_type: str | list[str] | None = None   # "全职", "Full-time", ["FULL_TIME", "INTERN"]
    description: str | None = None                   # HTML, markdown or plain text
    url: str | None = None
    posted_at: str | int | float | None = None       # ISO, epoch ms, or relative ("3 days ago", "昨天")
    valid_through: str | int | float | None = None
    department: str | None = None
    seniority: str | None = None
    experience_text: str | None = None               # e.g. "3-5年", "5+ years"
    degree_text: str | None = None                   # e.g. "本科", "Bachelor's"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Salary:
    """A salary as stated, for its period, in whole currency units."""

    min: float | None = None
    max: float | None = None
    currency: str | None = None          # ISO 4217 or "USDT"
    period: str | None = None            # "hour" | "day" | "month" | "year"
    months_per_year: int | None = None   # 14 for "14薪"
    negotiable: bool = False


@dataclass
class NormalizedPosting:
    """One posting in the one schema every source maps to (validated with pandera)."""

    source: str
    external_id: str
    title: str
    company: str | None = None
    location_raw: str | None = None
    cities: list[str] = field(default_factory=list)    # canonical English names: "Beijing", "San Francisco"
    country: str | None = None                         # ISO 3166-1 alpha-2
    remote: str | None = None                          # "remote" | "hybrid" | "onsite" | None
    job_type: str | None = None                        # "full_time" | "part_time" | "intern" | "campus" | "contract" | None
    seniority: str | None = None
    salary: Salary = field(default_factory=Salary)
    salary_annual_min: float | None = None             # annualized, original currency
    salary_annual_max: float | None = None
    experience_min: float | None = None
    experience_max: float | None = None
    degree: str | None = None
    skills: list[str] = field(default_factory=list)    # canonical names from the skill taxonomy
    language: str | None = None                        # "zh" | "en" | ...
    description_text: str = ""
    url: str | None = None
    posted_at: datetime | None = None
    valid_through: datetime | None = None
    content_hash: str = ""
    raw_id: int | None = None
    fetch_id: int | None = None
