"""A normalized posting as one JSON-ready dict (what ``jobpipe jobs show --json`` prints)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from jobpipe.models import NormalizedPosting


def _amount(v: float | None) -> int | float | None:
    if v is None:
        return None
    return int(v) if float(v).is_integer() else float(v)


def posting_to_dict(p: NormalizedPosting) -> dict[str, Any]:
    """Every field, with ``salary`` as {min, max, currency, period, months_per_year, negotiable}
    (amounts as stated for the period, whole currency units, None when unknown) and dates in ISO 8601."""
    data = asdict(p)
    s = p.salary
    data["salary"] = {
        "min": _amount(s.min), "max": _amount(s.max), "currency": s.currency, "period": s.period,
        "months_per_year": s.months_per_year, "negotiable": bool(s.negotiable),
    }
    for key in ("salary_annual_min", "salary_annual_max", "experience_min", "experience_max"):
        data[key] = _amount(data[key])
    for key in ("posted_at", "valid_through"):
        value = data[key]
        data[key] = value.isoformat() if isinstance(value, datetime) else None
    data["cities"] = list(p.cities)
    data["skills"] = list(p.skills)
    return data
