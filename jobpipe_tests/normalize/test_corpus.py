"""Coverage on the shared evaluation corpus (skipped when ../shared/data is absent)."""

from __future__ import annotations

import json

from jobpipe.normalize import parse_job_type, parse_salary, resolve_locations
from jobpipe_tests.conftest import shared_data_path


def _rows():
    with open(shared_data_path("eval", "postings.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_salary_texts_parse_or_are_negotiable():
    rows = [r for r in _rows() if r["salary_text"]]
    ok = 0
    for r in rows:
        s = parse_salary(r["salary_text"], context_currency="CNY" if r["origin"] in ("rebase", "zhilian") else None)
        ok += s is not None and (s.min is not None or s.max is not None or s.negotiable)
        if s is not None and s.min is not None and s.max is not None:
            assert s.min <= s.max
    assert ok / len(rows) >= 0.95


def test_locations_resolve():
    rows = [r for r in _rows() if r["location"]]
    ok = 0
    for r in rows:
        cities, country, remote = resolve_locations(r["location"], [], None)
        ok += bool(cities or country or remote)
    assert ok / len(rows) >= 0.98


def test_bilibili_types_and_glassdoor_hourly():
    rows = _rows()
    bili = [r for r in rows if r["origin"] == "bili"]
    assert all(parse_job_type(r["employment_type_text"], r["title"]) is not None for r in bili)
    hourly = [r for r in rows if r["origin"] == "gd" and r["salary_text"] and "Per Hour" in r["salary_text"]]
    assert hourly and all(parse_salary(r["salary_text"]).period == "hour" for r in hourly)
