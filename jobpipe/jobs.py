"""One curated job read back as a normalized posting.

The single reader behind ``jobpipe jobs show``, the service's ``GET /jobs/{job_id}`` and the
MCP ``get_job`` tool, so all three print the same shape: the normalized schema with ``salary``
as ``{min, max, currency, period, months_per_year, negotiable}`` (amounts as stated for the
period, in whole currency units, ``None`` when unknown) and ``status`` open/closed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg

_COLUMNS = (
    "job_id, source, external_id, title, company, location_raw, cities, country, remote, job_type, seniority, "
    "salary_min, salary_max, salary_currency, salary_period, salary_months, salary_negotiable, "
    "salary_annual_min, salary_annual_max, experience_min, experience_max, degree, skills, language, "
    "description_text, url, posted_at, valid_through, dedupe_key, first_seen_at, updated_at, closed_at"
)
_SALARY_COLUMNS = ("salary_min", "salary_max", "salary_currency", "salary_period", "salary_months", "salary_negotiable")
_NUMERIC = ("salary_annual_min", "salary_annual_max", "experience_min", "experience_max")


def amount(value: Any) -> int | float | None:
    """A stored numeric as a JSON number: whole amounts as integers."""
    if value is None:
        return None
    number = float(value) if isinstance(value, Decimal) else value
    return int(number) if float(number).is_integer() else float(number)


def salary_of(row: dict[str, Any]) -> dict[str, Any]:
    return {"min": amount(row.get("salary_min")), "max": amount(row.get("salary_max")),
            "currency": row.get("salary_currency"), "period": row.get("salary_period"),
            "months_per_year": row.get("salary_months"), "negotiable": bool(row.get("salary_negotiable"))}


def _load(conn: psycopg.Connection, where: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    cur = conn.execute(f"SELECT {_COLUMNS} FROM jobs WHERE {where}", params)
    row = cur.fetchone()
    if row is None:
        return None
    data = dict(zip([d.name for d in cur.description], row, strict=True))
    data["salary"] = salary_of(data)
    for key in _SALARY_COLUMNS:
        data.pop(key)
    for key in _NUMERIC:
        data[key] = amount(data[key])
    data["cities"] = list(data["cities"] or [])
    data["skills"] = list(data["skills"] or [])
    data["status"] = "open" if data["closed_at"] is None else "closed"
    return data


def load_job(conn: psycopg.Connection, source: str, external_id: str) -> dict[str, Any] | None:
    return _load(conn, "source = %s AND external_id = %s", (source, external_id))


def load_job_by_id(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    return _load(conn, "job_id = %s", (job_id,))
