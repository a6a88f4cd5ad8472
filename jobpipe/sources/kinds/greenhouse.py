"""Greenhouse Job Board API: one request lists every job with its content."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, expect, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``board``: the board token (boards.greenhouse.io/<board>)."""

    ident: ClassVar[str | None] = "board"
    kind: Literal["greenhouse"]
    board: Text
    base_url: Url = "https://boards-api.greenhouse.io"


def listing_url(config: Config) -> str:
    # pay_transparency=true adds pay_input_ranges (structured pay) where the employer publishes it.
    return f"{config.base_url}/v1/boards/{quote(config.board, safe='')}/jobs?content=true&pay_transparency=true"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    company = session.spec(Config).company_name

    def parse(response: Response) -> PageOutput:
        data = json_body(response)
        jobs = expect(data, "jobs", response, "a 'jobs' list")
        session.stated_total(dig(data, "meta", "total"), len(jobs))
        postings, bad = session.postings_of(jobs, response.url, "id", payload=lambda job: with_company(job, company),
                                            url=lambda job: as_text(job.get("absolute_url")))
        return PageOutput(postings, quarantined=bad)

    yield from session.page(listing_url(session.spec(Config)), parse).postings


# Greenhouse custom fields ("metadata") are free-form per employer; these names are common.
_EMPLOYMENT_FIELDS = re.compile(r"employment|job.?type|contract.?type|用工|工作性质|职位类型|招聘类型", re.I)
_WORKPLACE_FIELDS = re.compile(r"workplace|remote|location.?type|办公方式|工作方式", re.I)
_SALARY_FIELDS = re.compile(r"salary|compensation|pay.?range|薪资|薪酬|待遇", re.I)


def _metadata_value(payload: dict[str, Any], pattern: re.Pattern[str]) -> str | None:
    for item in payload.get("metadata") or []:
        if isinstance(item, dict) and pattern.search(str(item.get("name") or "")):
            value = item.get("value")
            if isinstance(value, list):
                value = ", ".join(str(v) for v in value if v)
            text = as_text(value)
            if text:
                return text
    return None


def extract(payload: dict[str, Any]) -> PostingFields:
    location = as_text(dig(payload, "location", "name"))
    offices = [as_text(o.get("name")) for o in payload.get("offices") or [] if isinstance(o, dict)]
    salary = None
    ranges = [r for r in payload.get("pay_input_ranges") or [] if isinstance(r, dict)]
    if ranges:
        r = ranges[0]
        salary = {"min": r["min_cents"] / 100 if isinstance(r.get("min_cents"), (int, float)) else None,
                  "max": r["max_cents"] / 100 if isinstance(r.get("max_cents"), (int, float)) else None,
                  "currency": r.get("currency_type"), "period": None}
    extra = {k: payload[k] for k in ("requisition_id", "internal_job_id", "language", "metadata", "updated_at")
             if payload.get(k) not in (None, [], "")}
    return PostingFields(
        title=as_text(payload.get("title")),
        company=as_text(payload.get("company_name")) or as_text(payload.get("_company")),
        location=location,
        locations=unique(offices, exclude=location),
        salary=salary,
        salary_text=(as_text(ranges[0].get("title")) if ranges else None) or _metadata_value(payload, _SALARY_FIELDS),
        employment_type=_metadata_value(payload, _EMPLOYMENT_FIELDS),
        remote_hint=_metadata_value(payload, _WORKPLACE_FIELDS),
        description=as_text(payload.get("content")),
        url=as_text(payload.get("absolute_url")),
        posted_at=payload.get("first_published") or payload.get("updated_at"),
        valid_through=payload.get("application_deadline"),
        department=as_text(dig(payload, "departments", 0, "name")),
        extra=extra,
    )
