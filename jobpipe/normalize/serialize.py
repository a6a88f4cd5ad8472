"""A normalized posting as one JSON-ready dict, in the shape readers of ``jobs`` print."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from jobpipe.models import NormalizedPosting, amount

_AMOUNTS = ("salary_annual_min", "salary_annual_max", "experience_min", "experience_max")


def posting_to_dict(p: NormalizedPosting) -> dict[str, Any]:
    """Every field, with ``salary`` as :meth:`jobpipe.models.Salary.as_dict` and dates in ISO 8601."""
    data = asdict(p)
    data["salary"] = p.salary.as_dict()
    for key in _AMOUNTS:
        data[key] = amount(data[key])
    for key, value in data.items():
        if isinstance(value, datetime):
            data[key] = value.isoformat()
    return data
