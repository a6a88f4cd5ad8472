"""Eightfold career sites (``/api/apply/v2/jobs``): positions paged with start/num (at most
10 per page), then one request per position for its description (the listing's is empty);
``details: false`` keeps the listing objects only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Flag, Text, Url, at_most
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``domain``: the employer's domain the API is asked about (acme.com); ``base_url``: the
    career site's host (https://acme.eightfold.ai); ``details`` fetches each position."""

    kind: Literal["eightfold"]
    domain: Text
    base_url: Url
    page_size: Annotated[int, at_most(10, "eightfold")] = 10
    details: Flag = True




def page_url(config: Config, start: int) -> str:
    query = urlencode({"domain": config.domain, "start": start, "num": config.page_size})
    return f"{config.base_url}/api/apply/v2/jobs?{query}"


def detail_url(config: Config, position_id: str) -> str:
    return f"{config.base_url}/api/apply/v2/jobs/{quote(position_id, safe='')}?{urlencode({'domain': config.domain})}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    paging = Paginator(page_size=config.page_size, items="positions", total="count", what="positions")

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, "id", payload=lambda p: with_company(p, company),
                                   url=lambda p: as_text(p.get("canonicalPositionUrl")))

    for page in paginate(session, paging, lambda start: PageRequest(page_url(config, start)), to_postings):
        if config.details:
            yield from _details(session, page.postings, company)
        else:
            yield from page.postings


def _details(session: SourceSession, summaries: tuple[RawPosting, ...], company: str | None) -> Iterator[RawPosting]:
    urls = [detail_url(session.spec(Config), p.external_id) for p in summaries]

    def parse(response: Response) -> PageOutput:
        detail = json_body(response)
        if not isinstance(detail, dict) or detail.get("id") is None:
            raise PayloadError(f"GET {response.url}: expected a position object")
        return PageOutput((session.posting(detail["id"], with_company(detail, company),
                                           as_text(detail.get("canonicalPositionUrl"))),))

    yield from session.detail_postings(urls, parse)


def extract(payload: dict[str, Any]) -> PostingFields:
    locations = [as_text(x) for x in payload.get("locations") or []]
    location = as_text(payload.get("location")) or next((x for x in locations if x), None)
    department = payload.get("department")
    if isinstance(department, list):  # some sites list several
        department = ", ".join(str(d) for d in department if d)
    return PostingFields(
        title=as_text(payload.get("name")),
        company=as_text(payload.get("_company")),
        location=location,
        locations=unique(locations, exclude=location),
        remote_hint=as_text(payload.get("work_location_option")) or as_text(payload.get("location_flexibility")),
        description=as_text(payload.get("job_description")),
        url=as_text(payload.get("canonicalPositionUrl")),
        posted_at=payload.get("t_create"),     # epoch seconds
        department=as_text(department),
        extra={k: payload[k] for k in ("display_job_id", "ats_job_id", "business_unit", "t_update")
               if payload.get(k) not in (None, "", [])},
    )
