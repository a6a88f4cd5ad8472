"""Recruitee careers API: every published offer in one response."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, expect, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the company subdomain (<company>.recruitee.com)."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["recruitee"]
    company: Text
    base_url: Url = "https://{company}.recruitee.com"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    company = session.spec(Config).company_name

    def parse(response: Response) -> PageOutput:
        offers = expect(json_body(response), "offers", response, "an 'offers' list")
        postings, bad = session.postings_of(offers, response.url, "id", payload=lambda o: with_company(o, company),
                                            url=lambda o: as_text(o.get("careers_url")))
        return PageOutput(postings, quarantined=bad)

    yield from session.page(f"{session.spec(Config).base_url}/api/offers/", parse).postings


def extract(payload: dict[str, Any]) -> PostingFields:
    location = as_text(payload.get("location"))
    others = [as_text(loc.get("name")) for loc in payload.get("locations") or [] if isinstance(loc, dict)]
    salary = payload.get("salary")
    if not isinstance(salary, dict) or not any(salary.get(k) not in (None, "") for k in ("min", "max")):
        salary = None
    remote = "remote" if payload.get("remote") else ("hybrid" if payload.get("hybrid") else None)
    description = "".join(p for p in (as_text(payload.get("description")), as_text(payload.get("requirements"))) if p)
    return PostingFields(
        title=as_text(payload.get("title")),
        company=as_text(payload.get("company_name")) or as_text(payload.get("_company")),
        location=location,
        locations=unique(others, exclude=location),
        remote_hint=remote,
        salary=dict(salary) if salary else None,
        employment_type=as_text(payload.get("employment_type_code")),
        description=description or None,
        url=as_text(payload.get("careers_url")),
        posted_at=payload.get("published_at") or payload.get("created_at"),
        valid_through=payload.get("close_at"),
        department=as_text(payload.get("department")),
        experience_text=as_text(payload.get("experience_code")),
        degree_text=as_text(payload.get("education_code")),
        extra={k: payload[k] for k in ("country_code", "city", "category_code", "min_hours", "max_hours", "tags")
               if payload.get(k) not in (None, "", [])},
    )
