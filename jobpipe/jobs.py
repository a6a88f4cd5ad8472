"""Reading curated jobs back as normalized postings (``jobpipe jobs show``, ``GET /jobs/{id}``)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import dict_row

_COLUMNS = """job_id, source, external_id, title, company, location_raw, cities, country, remote, job_type,
    seniority, salary_min, salary_max, salary_currency, salary_period, salary_months, salary_negotiable,
    salary_annual_min, salary_annual_max, experience_min, experience_max, degree, skills, language,
    description_text, url, posted_at, valid_through, content_hash, dedupe_key, first_seen_at, updated_at,
    closed_at"""


def _number(value: Any) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def job_to_dict(row: dict[str, Any]) -> dict[str, Any]:
    """A ``jobs`` row as the normalized-posting JSON shape (salary nested, whole units, ISO dates)."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key.startswith("salary_") and key not in ("salary_annual_min", "salary_annual_max"):
            continue
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, Decimal):
            value = _number(value)
        out[key] = value
    out["salary"] = {
        "min": _number(row.get("salary_min")),
        "max": _number(row.get("salary_max")),
        "currency": row.get("salary_currency"),
        "period": row.get("salary_period"),
        "months_per_year": row.get("salary_months"),
        "negotiable": bool(row.get("salary_negotiable")),
    }
    out["salary_annual"] = {"min": _number(row.get("salary_annual_min")), "max": _number(row.get("salary_annual_max"))}
    out.pop("salary_annual_min", None)
    out.pop("salary_annual_max", None)
    out["open"] = row.get("closed_at") is None
    return out


def load_job(conn: psycopg.Connection, source: str, external_id: str) -> dict[str, Any] | None:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_COLUMNS} FROM jobs WHERE source = %s AND external_id = %s",
                          (source, external_id)).fetchone()
    return job_to_dict(row) if row else None


def load_job_by_id(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_COLUMNS} FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
    return job_to_dict(row) if row else None
