"""Search filters -> one SQL condition on ``jobs j``, shared by the vector and keyword legs.

The keyword leg applies it to ``job_terms`` (alias ``j`` too), which carries copies of every
column used here (``jobpipe.store.terms.FILTER_COLUMNS``, kept equal by a trigger).

Both legs filter inside SQL (never after retrieval), so a selective filter cannot empty a
result list that had matches further down. Values are always bound parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone
from typing import Any

from jobpipe.search.resolve import canonical_skill, resolve_city
from jobpipe.search.types import SearchFilters, fx_rates
from jobpipe.store.term_lists import REMOTE_KEY, city_key, job_type_key, skill_key

#: Currency assumed for ``salary_min`` when the caller gives none.
DEFAULT_CURRENCY = "USD"


@dataclass
class FilterSQL:
    """A condition on alias ``j`` plus its parameters; ``selective`` is False for the default only."""

    where: str
    params: dict[str, Any]
    selective: bool
    resolved: dict[str, Any] = field(default_factory=dict)   # what the filters resolved to (for debug)
    conditions: int = 0    # filter conditions besides open/closed (the keyword leg's plan choice)
    include_closed: bool = False   # closed postings match too (no "open" condition)
    #: The same filter over the keyword leg's posting lists (jobpipe.store.term_lists), which hold
    #: open postings only: the filter-value lists a posting must be in, each with the condition
    #: it stands for (checked on the row instead when its list is too long to read), and the
    #: condition left to check on the row (None: all of ``where``; "TRUE": nothing).
    list_keys: tuple[tuple[str, str], ...] = ()
    residual: str | None = None


def build_filter_sql(filters: SearchFilters) -> FilterSQL:
    """Translate ``filters`` into SQL (the values were validated when ``filters`` was made)."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    resolved: dict[str, Any] = {}
    keys: list[tuple[str, str]] = []   # (list key, its condition): city_key(city) says cities @> [city]
    unlisted: list[str] = []    # the rest, checked on the posting's row

    def add(clause: str, key: str | None = None) -> None:
        clauses.append(clause)
        if key is None:
            unlisted.append(clause)
        else:
            keys.append((key, clause))

    if not filters.include_closed:
        clauses.append("j.closed_at IS NULL")   # the posting lists hold open postings only

    if filters.city:
        city = resolve_city(filters.city)
        if city:
            # cities holds canonical English names (GIN-indexed array).
            add("j.cities @> ARRAY[%(f_city)s]::text[]", city_key(city))
            params["f_city"] = city
        else:
            # A city neither table knows: match its name in the stored cities or raw location.
            add("(EXISTS (SELECT 1 FROM unnest(j.cities) AS c WHERE lower(c) = lower(%(f_city)s))"
                " OR j.location_raw ILIKE %(f_city_like)s)")
            params["f_city"] = filters.city.strip()
            params["f_city_like"] = "%" + _escape_like(filters.city.strip()) + "%"
        resolved["city"] = city or filters.city.strip()

    if filters.job_type:
        add("j.job_type = %(f_job_type)s", job_type_key(filters.job_type))
        params["f_job_type"] = filters.job_type

    if filters.remote is True:
        # Fully remote only: a hybrid role still requires living near an office. Remote must be
        # stated (a source field, the title, the description), not inferred from a benefits line
        # ("home-office stipend", "远程办公补贴"): field_origins, docs/normalization.md.
        add("j.remote = 'remote' AND j.field_origins->>'remote' IS DISTINCT FROM 'inferred'", REMOTE_KEY)
    elif filters.remote is False:
        add("(j.remote IS DISTINCT FROM 'remote' OR j.field_origins->>'remote' = 'inferred')")

    if filters.salary_min is not None:
        currency = (filters.currency or DEFAULT_CURRENCY).upper()
        rates = fx_rates()
        # Same currency: compare as stated. Other currencies: convert both sides to USD.
        cases = " ".join(f"WHEN '{code}' THEN {rate!r}" for code, rate in sorted(rates.items()))
        # The top of the range; a posting stating only a floor ("from $6,000/month") pays at
        # least that floor, so the floor stands in for the missing top.
        top = "coalesce(j.salary_annual_max, j.salary_annual_min)"
        add(
            f"{top} IS NOT NULL AND ("
            f"(j.salary_currency = %(f_currency)s AND {top} >= %(f_salary_min)s)"
            f" OR (j.salary_currency <> %(f_currency)s AND {top} * (CASE j.salary_currency {cases} END)"
            " >= %(f_salary_min_usd)s))"
        )
        params["f_currency"] = currency
        params["f_salary_min"] = float(filters.salary_min)
        params["f_salary_min_usd"] = float(filters.salary_min) * rates[currency]
        resolved["currency"] = currency

    if filters.skills:
        canonical: list[str] = []
        unknown: list[str] = []
        for skill in filters.skills:
            if not skill or not skill.strip():
                continue
            name = canonical_skill(skill)
            (canonical if name else unknown).append(name or skill.strip())
        if canonical:
            clauses.append("j.skills @> %(f_skills)s::text[]")
            keys.extend((skill_key(name), "j.skills @> %(f_skills)s::text[]") for name in canonical)
            params["f_skills"] = canonical
        for i, skill in enumerate(unknown):
            # Not in the taxonomy: a case-insensitive match on the stored names.
            add(f"EXISTS (SELECT 1 FROM unnest(j.skills) AS s WHERE lower(s) = lower(%(f_skill_{i})s))")
            params[f"f_skill_{i}"] = skill
        resolved["skills"] = canonical + unknown

    if filters.posted_within_days is not None:
        # Postings without a date are excluded: their age is unknown.
        add("j.posted_at >= now() - make_interval(days => %(f_days)s)")
        params["f_days"] = int(filters.posted_within_days)

    # Whole calendar days in UTC: from midnight of posted_from to the end of posted_until.
    if filters.posted_from is not None:
        add("j.posted_at >= %(f_posted_from)s")
        params["f_posted_from"] = datetime.combine(filters.posted_from, time(), timezone.utc)
    if filters.posted_until is not None:
        add("j.posted_at < %(f_posted_before)s")
        params["f_posted_before"] = datetime.combine(filters.posted_until + timedelta(days=1), time(), timezone.utc)

    selective = bool(params) or filters.remote is not None
    conditions = len(clauses) - (0 if filters.include_closed else 1)
    return FilterSQL(" AND ".join(clauses) or "TRUE", params, selective, resolved, conditions,
                     filters.include_closed, tuple(dict.fromkeys(keys)), " AND ".join(unlisted) or "TRUE")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
