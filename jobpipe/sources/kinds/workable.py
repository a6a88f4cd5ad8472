"""Workable widget API (public): one request, with descriptions (details=true)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, expect, join_parts, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``account``: the account subdomain (apply.workable.com/<account>)."""

    ident: ClassVar[str | None] = "account"
    kind: Literal["workable"]
    account: Text
    base_url: Url = "https://apply.workable.com"


def listing_url(config: Config) -> str:
    return f"{config.base_url}/api/v1/widget/accounts/{quote(config.account, safe='')}?details=true"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    def parse(response: Response) -> PageOutput:
        data = json_body(response)
        jobs = expect(data, "jobs", response, "a 'jobs' list")
        # The account name lives on the listing, not on each job: carry it as ``_company``.
        company = session.spec(Config).company_name or (as_text(data.get("name")) if isinstance(data, dict) else None)
        postings, bad = session.postings_of(jobs, response.url, "shortcode",
                                            payload=lambda job: with_company(job, company),
                                            url=lambda job: as_text(job.get("url")))
        return PageOutput(postings, quarantined=bad)

    yield from session.page(listing_url(session.spec(Config)), parse).postings


def extract(payload: dict[str, Any]) -> PostingFields:
    location = join_parts(payload.get("city"), payload.get("state"), payload.get("country"))
    others = [join_parts(loc.get("city"), loc.get("region"), loc.get("country"))
              for loc in payload.get("locations") or [] if isinstance(loc, dict)]
    telecommuting = payload.get("telecommuting")
    return PostingFields(
        title=as_text(payload.get("title")),
        company=as_text(payload.get("_company")),
        location=location,
        locations=unique(others, exclude=location),
        remote_hint="remote" if telecommuting is True else None,
        employment_type=as_text(payload.get("employment_type")),
        description=as_text(payload.get("description")),
        url=as_text(payload.get("url")) or as_text(payload.get("shortlink")),
        posted_at=payload.get("published_on") or payload.get("created_at"),
        department=as_text(payload.get("department")),
        seniority=as_text(payload.get("experience")),
        degree_text=as_text(payload.get("education")),
        extra={k: payload[k] for k in ("function", "industry", "code") if payload.get(k)},
    )
