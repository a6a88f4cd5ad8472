"""Lever postings API (mode=json), paged with skip/limit until a short page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote, urlsplit

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, expect, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Count, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the Lever site name (jobs.lever.co/<company>); ``page_size`` postings per request."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["lever"]
    company: Text
    base_url: Url = "https://api.lever.co"
    page_size: Count = 100


#: A board larger than this many pages is almost certainly a server ignoring ``skip``.
MAX_PAGES = 1000


def page_url(config: Config, skip: int) -> str:
    return (f"{config.base_url}/v0/postings/{quote(config.company, safe='')}"
            f"?mode=json&skip={skip}&limit={config.page_size}")


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    limit = config.page_size
    company = config.company_name
    seen_first: set[str] = set()
    skip = 0
    for _ in range(MAX_PAGES):
        url = page_url(config, skip)

        def parse(response: Response, skip: int = skip) -> PageOutput:
            items = expect(json_body(response), None, response, "a JSON array of postings")
            postings, bad = session.postings_of(items, response.url, "id", payload=lambda p: with_company(p, company),
                                                url=lambda p: as_text(p.get("hostedUrl")))
            # a short page ends the listing; a page longer than asked means the server ignores
            # paging and just sent everything
            more = (page_url(config, skip + limit),) if len(items) == limit else ()
            return PageOutput(postings, next_links=more, quarantined=bad)

        out = session.page(url, parse)
        if out.postings:
            first = out.postings[0].external_id
            if first in seen_first:
                raise PayloadError(f"GET {url}: the server repeats an earlier page (does it ignore 'skip'?)")
            seen_first.add(first)
        yield from out.postings
        if not out.next_links:
            return
        skip += limit
    raise PayloadError(f"source lists more than {MAX_PAGES} pages of {limit}: stopping")


def _lists_html(payload: dict[str, Any]) -> str:
    parts = []
    for item in payload.get("lists") or []:
        if isinstance(item, dict):
            parts.append(f"<h3>{item.get('text') or ''}</h3><ul>{item.get('content') or ''}</ul>")
    return "".join(parts)


def extract(payload: dict[str, Any]) -> PostingFields:
    categories = payload.get("categories") or {}
    location = as_text(categories.get("location"))
    all_locations = categories.get("allLocations") or []
    range_ = payload.get("salaryRange")
    salary = None
    if isinstance(range_, dict):
        salary = {"min": range_.get("min"), "max": range_.get("max"), "currency": range_.get("currency"),
                  "period": range_.get("interval")}
    description = "".join(
        part for part in (as_text(payload.get("description")), _lists_html(payload), as_text(payload.get("additional")))
        if part)
    hosted = as_text(payload.get("hostedUrl"))
    extra: dict[str, Any] = {k: payload[k] for k in ("country", "applyUrl") if payload.get(k)}
    if categories.get("team"):
        extra["team"] = categories["team"]
    if hosted:
        path = urlsplit(hosted).path.strip("/").split("/")
        if path and path[0]:
            extra["company_slug"] = path[0]
    return PostingFields(
        title=as_text(payload.get("text")),
        company=as_text(payload.get("_company")),
        location=location,
        locations=unique([as_text(x) for x in all_locations], exclude=location),
        remote_hint=as_text(payload.get("workplaceType")),
        salary=salary,
        salary_text=as_text(payload.get("salaryDescriptionPlain")) or as_text(payload.get("salaryDescription")),
        employment_type=as_text(categories.get("commitment")),
        description=description or None,
        url=hosted,
        posted_at=payload.get("createdAt"),
        department=as_text(categories.get("department")) or as_text(dig(payload, "categories", "team")),
        extra=extra,
    )
