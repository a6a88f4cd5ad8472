"""Lever postings API (mode=json), paged with skip/limit until a short page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote, urlsplit

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, unique, with_company
from jobpipe.sources.options import ApiConfig, Count, Text, Url
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the Lever site name (jobs.lever.co/<company>); ``page_size`` postings per request."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["lever"]
    company: Text
    base_url: Url = "https://api.lever.co"
    page_size: Count = 100


def page_url(config: Config, skip: int) -> str:
    return (f"{config.base_url}/v0/postings/{quote(config.company, safe='')}"
            f"?mode=json&skip={skip}&limit={config.page_size}")


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    """Paged with skip/limit; Lever states no total, so a short page ends the listing."""
    config = session.spec(Config)
    company = config.company_name
    paging = Paginator(page_size=config.page_size, items=None)

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, "id", payload=lambda p: with_company(p, company),
                                   url=lambda p: as_text(p.get("hostedUrl")))

    for page in paginate(session, paging, lambda skip: PageRequest(page_url(config, skip)), to_postings):
        yield from page.postings


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
