"""Demo openings written as job-board API responses: Greenhouse Job Board API and Lever
Postings API, field for field in the shapes those APIs return (see docs/demo.md)."""

from __future__ import annotations

import html
from datetime import datetime, timedelta, timezone
from typing import Any

from jobpipe.demo.companies import CITIES, City
from jobpipe.demo.compose import Opening
from jobpipe.demo.describe import description_html, sections

_COUNTRY_NAMES = {"US": "United States", "GB": "United Kingdom", "DE": "Germany", "CN": "China",
                  "SG": "Singapore", "HK": "Hong Kong"}


def _tz(city: City) -> timezone:
    sign = 1 if city.tz[0] == "+" else -1
    return timezone(sign * timedelta(hours=int(city.tz[1:3]), minutes=int(city.tz[4:6])))


def local_iso(when: datetime, city: City) -> str:
    """A naive demo time read as the city's local time, ISO-8601 with its offset."""
    return when.replace(tzinfo=_tz(city)).isoformat()


def location_text(o: Opening) -> str:
    """The free-text location a board shows: "上海/北京", "Hybrid - London, UK", "Remote - US"."""
    if o.lang == "zh":
        names = [CITIES[c].zh for c in o.cities]
        return "/".join(names)
    names = [CITIES[c].en for c in o.cities]
    text = "; ".join(names)
    return f"Hybrid - {text}" if o.hybrid else text


def _job_type_label(o: Opening) -> str:
    if o.lang == "zh":
        return {"full_time": "全职", "intern": "实习", "campus": "校招", "contract": "合同制"}[o.job_type]
    return {"full_time": "Full-time", "intern": "Intern", "campus": "Full-time (New Grad)", "contract": "Contract"}[o.job_type]


def _stable_id(text: str, base: int) -> int:
    """Department and office ids: stable per name, Greenhouse-looking."""
    return base + sum((i + 1) * ord(ch) for i, ch in enumerate(text)) % 900_000 * 1000 + 2


def greenhouse_job(o: Opening, board: str) -> dict[str, Any]:
    city = o.city()
    offices = []
    for key in o.cities:
        c = CITIES[key]
        name = "Remote" if key.startswith("remote_") else (c.zh if o.lang == "zh" else c.locality)
        place = ", ".join(p for p in (c.locality, c.region, _COUNTRY_NAMES[c.country]) if p)
        offices.append({"id": _stable_id(name, 4_000_000_000), "name": name, "location": place,
                        "child_ids": [], "parent_id": None})
    metadata: list[dict[str, Any]] = [
        {"id": 4_100_222_002, "name": "Employment Type", "value": _job_type_label(o), "value_type": "single_select"},
    ]
    if o.lang == "en":
        metadata.append({"id": 4_100_223_002, "name": "Workplace Type",
                         "value": "Remote" if o.remote else ("Hybrid" if o.hybrid else "On-site"),
                         "value_type": "single_select"})
    job = {
        "absolute_url": f"https://job-boards.greenhouse.io/{board}/jobs/{o.ids['greenhouse']}",
        "data_compliance": [{"type": "gdpr", "requires_consent": False, "requires_processing_consent": False,
                             "requires_retention_consent": False, "retention_period": None,
                             "demographic_data_consent_applies": city.country in ("GB", "DE")}],
        "internal_job_id": int(o.ids["internal"]),
        "location": {"name": location_text(o)},
        "metadata": metadata,
        "id": int(o.ids["greenhouse"]),
        "updated_at": local_iso(o.updated, city),
        "requisition_id": o.ids["requisition"],
        "title": o.title,
        "company_name": o.company_name,
        "first_published": local_iso(o.posted, city),
        "language": o.lang,
        "application_deadline": o.valid_through.isoformat() if o.valid_through else None,
        # Greenhouse escapes the HTML once more: consumers must unescape before stripping tags.
        "content": html.escape(description_html(o), quote=True),
        "departments": [{"id": _stable_id(o.department, 4_020_000_000), "name": o.department,
                         "child_ids": [], "parent_id": None}],
        "offices": offices,
    }
    # Pay-transparency ranges (served only with ?pay_transparency=true), in cents, for the
    # yearly and hourly ranges that US and European boards publish.
    pay = o.pay
    if pay and pay.currency and pay.min is not None and pay.unit in ("YEAR", "HOUR") and o.lang == "en":
        high = pay.max if pay.max is not None else pay.min
        job["pay_input_ranges"] = [{
            "min_cents": int(round(pay.min * 100)), "max_cents": int(round(high * 100)),
            "currency_type": pay.currency,
            "title": "Annual base salary" if pay.unit == "YEAR" else "Hourly rate",
            "blurb": "<p>Pay within this range depends on skills, experience and location.</p>",
        }]
    return job


def greenhouse_board(openings: list[Opening], board: str) -> dict[str, Any]:
    """``GET /v1/boards/{board}/jobs?content=true``: every job in one response, newest first."""
    jobs = [greenhouse_job(o, board) for o in sorted(openings, key=lambda o: o.updated, reverse=True)]
    return {"jobs": jobs, "meta": {"total": len(jobs)}}


_LEVER_INTERVAL = {"YEAR": "per-year-salary", "MONTH": "per-month-salary", "HOUR": "per-hour-wage", "DAY": "per-day-wage"}


def lever_posting(o: Opening, site: str) -> dict[str, Any]:
    city = o.city()
    opening_html = f"<div>{html.escape(o.intro, quote=False)}</div><div><br></div><div>{html.escape(o.summary, quote=False)}</div>"
    lists = [{"text": heading, "content": "".join(f"<li>{html.escape(i, quote=False)}</li>" for i in items)}
             for heading, items in sections(o)]
    additional_lines = o.closing
    locations = [CITIES[c].en if o.lang == "en" else CITIES[c].zh for c in o.cities]
    if o.remote:
        workplace = "remote"
    elif o.hybrid:
        workplace = "hybrid"
    else:
        workplace = "onsite"
    posting: dict[str, Any] = {
        "additionalPlain": "\n".join(additional_lines) + "\n",
        "additional": "".join(f"<div>{html.escape(line, quote=False)}</div>" for line in additional_lines),
        "categories": {"commitment": _job_type_label(o), "department": o.department,
                       "location": locations[0], "team": o.department, "allLocations": locations},
        "createdAt": int(o.posted.replace(tzinfo=_tz(city)).timestamp() * 1000),
        "descriptionPlain": f"{o.intro}\n\n{o.summary}\n",
        "description": opening_html,
        "id": o.ids["lever"],
        "lists": lists,
        "text": o.title,
        "country": city.country,
        "workplaceType": workplace,
        "opening": opening_html,
        "openingPlain": f"{o.intro}\n\n{o.summary}\n",
        "descriptionBody": "",
        "descriptionBodyPlain": "",
        "hostedUrl": f"https://jobs.lever.co/{site}/{o.ids['lever']}",
        "applyUrl": f"https://jobs.lever.co/{site}/{o.ids['lever']}/apply",
    }
    # Lever boards publish a structured range only when the employer filled it in.
    if o.pay and o.pay.min is not None and o.pay.currency and o.pay.unit in _LEVER_INTERVAL and o.index % 3 != 2:
        posting["salaryRange"] = {"min": o.pay.min, "max": o.pay.max if o.pay.max is not None else o.pay.min,
                                  "currency": o.pay.currency, "interval": _LEVER_INTERVAL[o.pay.unit]}
        posting["salaryDescription"] = f"<div>{html.escape(o.pay.text, quote=False)}</div>"
        posting["salaryDescriptionPlain"] = o.pay.text
    return posting


def lever_board(openings: list[Opening], site: str) -> list[dict[str, Any]]:
    """``GET /v0/postings/{site}?mode=json``: a bare array, newest first (the server pages it)."""
    return [lever_posting(o, site) for o in sorted(openings, key=lambda o: o.posted, reverse=True)]
