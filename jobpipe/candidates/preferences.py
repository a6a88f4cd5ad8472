"""Explicit preferences, how they win over inferred ones, and the hard filter they make.

A candidate's preferences are given as JSON beside the resume (``"preferences"`` in a .json
resume, or ``<stem>.preferences.json`` next to any file) or through the API/CLI:

    {"cities": ["上海", "Beijing"], "remote": true, "job_types": ["full_time"],
     "salary_min": 400000, "currency": "CNY", "exclude_companies": ["Acme"], "skills": ["Python", "Go"]}

Explicit values win: they replace the inferred ones for scoring (cities, remote, job types,
salary floor, skills). Only explicit preferences are *hard*: city or remote, job type, salary
floor and excluded companies remove jobs **known** to conflict with them; a job that does not
state the attribute stays and scores 50 on that part. Inferred values (where the resume says
the person lives, the salary it mentions) only ever move a job up or down.

The filter speaks the search filters' language: each clause is built by
``jobpipe.search.filters.build_filter_sql`` from a :class:`~jobpipe.search.types.SearchFilters`
(city resolution and aliases, remote semantics, currency conversion), combined with OR across
the values of a list, so a preference and a search filter of the same name mean the same.
:meth:`HardFilter.mask` evaluates the same rules on a batch of jobs in memory (the nightly
refresh scores changed jobs without a query per candidate); a test keeps the two equal.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from jobpipe.candidates.models import CandidateProfile
from jobpipe.candidates.scoring import _TYPE_CODES, DEGREE_LEVELS, LEVELS, CandidateFeatures, JobBatch, to_usd
from jobpipe.normalize.location import city_country
from jobpipe.search.families import with_families
from jobpipe.search.filters import DEFAULT_CURRENCY, FilterSQL, build_filter_sql
from jobpipe.search.resolve import canonical_skill, resolve_city
from jobpipe.search.types import (
    MAX_CITY_CHARS,
    MAX_SALARY,
    MAX_SKILL_CHARS,
    FilterError,
    JobType,
    SearchFilters,
    bounded_texts,
    fx_rates,
    known_currencies,
    one_or_many,
)
from jobpipe.text.sanitize import require_visible

MAX_CITIES = 20
MAX_COMPANIES = 50
MAX_COMPANY_CHARS = 120
MAX_SKILLS = 50


class CandidatePreferences(BaseModel):
    """What a candidate wants, stated explicitly (all optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cities: tuple[str, ...] = Field(
        (), json_schema_extra={"maxItems": MAX_CITIES}, examples=[["上海", "Beijing"]],
        description="Cities the candidate would work in (Chinese or English names, aliases). Jobs located elsewhere "
                    "are removed, unless `remote` is true and the job is fully remote.")
    remote: bool | None = Field(
        None, description="true: fully remote jobs are welcome (alone: only remote jobs); false: no fully remote jobs.")
    job_types: tuple[JobType, ...] = Field((), description="Employment types wanted; jobs of another type are removed.")
    salary_min: float | None = Field(
        None, ge=0, le=MAX_SALARY, allow_inf_nan=False,
        description="Minimum ANNUAL salary in `currency`; jobs whose stated annual maximum is lower are removed.")
    currency: str | None = Field(None, pattern=r"^[A-Za-z]{3,4}$",
                                 description="ISO 4217 code of salary_min (default USD).")
    exclude_companies: tuple[str, ...] = Field(
        (), json_schema_extra={"maxItems": MAX_COMPANIES}, description="Companies whose jobs are never matched.")
    skills: tuple[str, ...] = Field(
        (), json_schema_extra={"maxItems": MAX_SKILLS},
        description="The candidate's skills; when given they replace the skills read from the resume.")

    @classmethod
    def parse(cls, data: Mapping[str, Any] | None) -> Self:
        """``data`` validated, or :class:`FilterError` naming every wrong or unknown field."""
        try:
            return cls.model_validate(dict(data or {}))
        except ValidationError as exc:
            raise FilterError.from_validation(exc, list(cls.model_fields)) from None

    # A person writing the JSON beside a resume writes {"cities": "上海"} as often as ["上海"].
    _one_value = field_validator("cities", "job_types", "exclude_companies", "skills", mode="before")(one_or_many)

    @field_validator("cities")
    @classmethod
    def _cities(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return bounded_texts(value, "cities", MAX_CITIES, MAX_CITY_CHARS)

    @field_validator("exclude_companies")
    @classmethod
    def _companies(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(value) > MAX_COMPANIES:
            raise ValueError(f"at most {MAX_COMPANIES} companies, not {len(value)}")
        out = []
        for i, company in enumerate(value):
            if len(company) > MAX_COMPANY_CHARS:
                raise ValueError(f"exclude_companies[{i}] is longer than {MAX_COMPANY_CHARS} characters")
            out.append(require_visible(company, f"exclude_companies[{i}]") or "")
        return tuple(out)

    @field_validator("skills")
    @classmethod
    def _skills(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(value) > MAX_SKILLS:
            raise ValueError(f"at most {MAX_SKILLS} skills, not {len(value)}")
        out = []
        for i, skill in enumerate(value):
            if len(skill) > MAX_SKILL_CHARS:
                raise ValueError(f"skills[{i}] is longer than {MAX_SKILL_CHARS} characters")
            out.append(require_visible(skill, f"skills[{i}]") or "")
        return tuple(out)

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str | None) -> str | None:
        if value is None:
            return None
        code = value.upper()
        if code not in known_currencies():
            raise ValueError(f"unknown currency {code!r}; known: {', '.join(sorted(known_currencies()))}")
        return code

    def as_json(self) -> dict[str, Any]:
        """Only what was given (an empty object for no preferences)."""
        return self.model_dump(mode="json", exclude_defaults=True)


@dataclass(frozen=True)
class Effective:
    """The values matching uses: explicit where given, else inferred; ``source`` says which."""

    cities: tuple[str, ...]               # canonical names where they resolve, else as given
    remote: bool | None
    job_types: tuple[str, ...]
    salary_floor: float | None            # annual, in ``currency``
    currency: str | None
    exclude_companies: tuple[str, ...]
    skills: tuple[str, ...]
    source: dict[str, str]                # field -> "explicit" | "inferred" | "none"

    def as_json(self) -> dict[str, Any]:
        return {"cities": list(self.cities), "remote": self.remote, "job_types": list(self.job_types),
                "salary_min": self.salary_floor, "currency": self.currency,
                "exclude_companies": list(self.exclude_companies), "skills": list(self.skills), "source": self.source}


def _resolve_city(name: str) -> str:
    return resolve_city(name) or name.strip()


def _canonical_skill(name: str) -> str:
    return canonical_skill(name) or name.strip()


def effective(profile: CandidateProfile, prefs: CandidatePreferences) -> Effective:
    given = prefs.model_fields_set
    source: dict[str, str] = {}

    def pick(name: str, explicit: Any, inferred: Any) -> Any:
        if name in given and explicit not in (None, ()):
            source[name] = "explicit"
            return explicit
        if name in given and name == "remote" and explicit is not None:
            source[name] = "explicit"
            return explicit
        source[name] = "inferred" if inferred not in (None, (), []) else "none"
        return inferred

    cities = pick("cities", tuple(dict.fromkeys(_resolve_city(c) for c in prefs.cities)), tuple(profile.cities))
    remote = pick("remote", prefs.remote, profile.remote)
    job_types = pick("job_types", tuple(prefs.job_types), tuple(profile.job_types))
    expected = profile.expected_salary or {}
    inferred_floor = expected.get("annual_min") or expected.get("annual_max")
    floor: float | None
    currency: str | None
    if "salary_min" in given and prefs.salary_min is not None:
        floor, currency = prefs.salary_min, (prefs.currency or DEFAULT_CURRENCY)
        source["salary_min"] = "explicit"
    else:
        floor, currency = (inferred_floor, expected.get("currency")) if inferred_floor and expected.get("currency") \
            else (None, None)
        source["salary_min"] = "inferred" if floor else "none"
    skills = pick("skills", tuple(dict.fromkeys(_canonical_skill(s) for s in prefs.skills)), tuple(profile.skills))
    excluded = tuple(prefs.exclude_companies)
    source["exclude_companies"] = "explicit" if excluded else "none"
    return Effective(tuple(cities), remote, tuple(job_types), float(floor) if floor else None, currency, excluded,
                     tuple(skills), source)


def candidate_features(candidate_id: str, profile: CandidateProfile, eff: Effective) -> CandidateFeatures:
    countries = frozenset(c for c in (city_country(city) for city in eff.cities) if c)
    return CandidateFeatures(
        candidate_id=candidate_id, skills=with_families(eff.skills), cities=tuple(eff.cities), countries=countries,
        remote=eff.remote, job_types=frozenset(eff.job_types), years=profile.experience_years,
        level=LEVELS.get(profile.seniority or ""), salary_floor_usd=to_usd(eff.salary_floor, eff.currency),
        degree=DEGREE_LEVELS.get(profile.degree or ""),
    )


def preferences_hash(profile_json: Mapping[str, Any], prefs: Mapping[str, Any], content_hash: str) -> str:
    """What a match list is computed from: when it changes, the list is recomputed."""
    data = json.dumps({"profile": profile_json, "preferences": prefs, "vector": content_hash}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- the hard filter
_PARAM = re.compile(r"%\((\w+)\)s")


def _renamed(fsql: FilterSQL, suffix: str) -> tuple[str, dict[str, Any]]:
    """A filter's condition with its parameters renamed, so that several can be OR-ed together."""
    where = _PARAM.sub(lambda m: f"%({m.group(1)}_{suffix})s", fsql.where)
    return where, {f"{k}_{suffix}": v for k, v in fsql.params.items()}


def _clause(filters: SearchFilters, suffix: str) -> tuple[str, dict[str, Any]]:
    """The condition of one filter alone (without the open/closed part)."""
    fsql = build_filter_sql(filters.model_copy(update={"include_closed": True}))
    return _renamed(fsql, suffix)


@dataclass(frozen=True)
class HardFilter:
    """The explicit preferences as a filter on jobs: SQL for retrieval, a mask for scoring in memory."""

    cities: tuple[str, ...] = ()
    remote: bool | None = None
    job_types: tuple[str, ...] = ()
    salary_min: float | None = None
    currency: str | None = None
    excluded_job_ids: tuple[int, ...] = ()
    extra: SearchFilters | None = None     # an ad-hoc request's own filters, AND-ed (the /match endpoint)

    @classmethod
    def of(cls, prefs: CandidatePreferences, excluded_job_ids: Sequence[int] = (),
           extra: SearchFilters | None = None) -> HardFilter:
        return cls(tuple(prefs.cities), prefs.remote, tuple(prefs.job_types), prefs.salary_min,
                   (prefs.currency or DEFAULT_CURRENCY) if prefs.salary_min is not None else None,
                   tuple(sorted(set(excluded_job_ids))), extra)

    @property
    def active(self) -> bool:
        return bool(self.cities or self.remote is not None or self.job_types or self.salary_min is not None
                    or self.excluded_job_ids or (self.extra is not None and self.extra != SearchFilters()))

    def sql(self) -> FilterSQL:
        base = build_filter_sql(self.extra or SearchFilters())
        clauses = [base.where]
        params: dict[str, Any] = dict(base.params)
        remote_only, _ = _clause(SearchFilters(remote=True), "r")
        not_remote, _ = _clause(SearchFilters(remote=False), "r")
        unlocated = f"(j.cities = '{{}}' AND {not_remote})"
        if self.cities:
            ors = []
            for i, city in enumerate(self.cities):
                where, p = _clause(SearchFilters(city=city), f"pc{i}")
                ors.append(f"({where})")
                params.update(p)
            if self.remote is True:
                ors.append(f"({remote_only})")
            ors.append(unlocated)
            clauses.append("(" + " OR ".join(ors) + ")")
        elif self.remote is True:
            clauses.append(f"({remote_only} OR (j.cities = '{{}}' AND j.remote IS NULL))")
        if self.remote is False:
            clauses.append(f"({not_remote})")
        if self.job_types:
            ors = []
            for i, kind in enumerate(self.job_types):
                where, p = _clause(SearchFilters(job_type=kind), f"pt{i}")
                ors.append(f"({where})")
                params.update(p)
            clauses.append("(j.job_type IS NULL OR " + " OR ".join(ors) + ")")
        if self.salary_min is not None:
            where, p = _clause(SearchFilters(salary_min=self.salary_min, currency=self.currency), "ps")
            clauses.append(f"(j.salary_annual_max IS NULL OR ({where}))")
            params.update(p)
        if self.excluded_job_ids:
            clauses.append("j.job_id <> ALL(%(p_excluded)s::bigint[])")
            params["p_excluded"] = list(self.excluded_job_ids)
        selective = base.selective or len(clauses) > 1
        return FilterSQL(" AND ".join(c for c in clauses if c and c != "TRUE") or "TRUE", params, selective,
                         base.resolved, base.conditions + len(clauses) - 1)

    def mask(self, batch: JobBatch) -> np.ndarray:
        """The same rules as :meth:`sql` over a batch of open jobs (``extra`` is not supported here)."""
        if self.extra is not None and self.extra != SearchFilters():
            raise ValueError("an ad-hoc filter is applied in SQL only")
        n = len(batch)
        keep = np.ones(n, dtype=bool)
        remote_job = batch.remote == 1
        unlocated = batch.no_cities & ~remote_job
        if self.cities:
            located = np.zeros(n, dtype=bool)
            for city in self.cities:
                located |= _city_mask(batch, city)
            if self.remote is True:
                located |= remote_job
            keep &= located | unlocated
        elif self.remote is True:
            keep &= remote_job | (batch.no_cities & (batch.remote == 0))
        if self.remote is False:
            keep &= ~remote_job
        if self.job_types:
            codes = np.array([_TYPE_CODES[t] for t in self.job_types], dtype=np.int8)
            keep &= (batch.job_type == 0) | np.isin(batch.job_type, codes)
        if self.salary_min is not None:
            keep &= _salary_mask(batch, self.salary_min, self.currency or DEFAULT_CURRENCY)
        if self.excluded_job_ids:
            keep &= ~np.isin(batch.job_ids, np.array(self.excluded_job_ids, dtype=np.int64))
        return keep


def _city_mask(batch: JobBatch, city: str) -> np.ndarray:
    """``build_filter_sql``'s city rule: the resolved canonical name among the job's cities, else the
    name (case-insensitive) among them or inside the raw location text."""
    canonical = resolve_city(city)
    if canonical:
        return batch.in_cities([canonical])
    name = city.strip().lower()
    return np.fromiter(
        (any(c.lower() == name for c in j.cities) or (j.location_raw is not None and name in j.location_raw.lower())
         for j in batch.jobs), dtype=bool, count=len(batch))


def _salary_mask(batch: JobBatch, salary_min: float, currency: str) -> np.ndarray:
    """``build_filter_sql``'s salary rule, with a job that states no salary kept (not known to conflict):
    in the job's own currency when it is the candidate's, else both converted to USD."""
    rates = fx_rates()
    floor_usd = salary_min * rates[currency]
    same = batch.salary_currency == currency
    with np.errstate(invalid="ignore"):
        converted = ~np.isnan(batch.salary_rate) & (batch.salary_max * batch.salary_rate >= floor_usd)
        return np.isnan(batch.salary_max) | np.where(same, batch.salary_max >= salary_min, converted)
