"""Workday CXS career sites: a POST search paged by offset (at most 20 per page), then one
GET per posting for its description (``details: false`` keeps the search results only).

The search results carry relative dates ("Posted Yesterday", "Posted 30+ Days Ago"); they
are kept as text for the normalizer, which resolves them against the fetch time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal
from urllib.parse import quote

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Flag, Text, Url, at_most
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``tenant``: the first part of <tenant>.wdN.myworkdayjobs.com; ``site``: the path after the
    host (and locale), e.g. External_Career_Site; ``base_url`` is required (wdN varies per tenant);
    ``search_text`` filters like the site's search box; ``details`` fetches each posting."""

    kind: Literal["workday"]
    tenant: Text
    site: Text
    base_url: Url
    page_size: Annotated[int, at_most(20, "workday")] = 20
    search_text: Text | None = None
    details: Flag = True



# "3 Locations", "3 Standorte": a count the search shows instead of naming several places
_LOCATION_COUNT = re.compile(r"\d+\s+\w+")


def cxs_url(config: Config) -> str:
    return f"{config.base_url}/wday/cxs/{quote(config.tenant, safe='')}/{quote(config.site, safe='')}"


def _public_url(config: Config, external_path: str) -> str:
    return f"{config.base_url}/{quote(config.site, safe='')}{external_path}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    url = f"{cxs_url(config)}/jobs"
    # later pages answer total 0: only the first one counts
    paging = Paginator(page_size=config.page_size, items="jobPostings", total="total", total_on_first_page=True)

    def request(offset: int) -> PageRequest:
        return PageRequest(url, {"appliedFacets": {}, "limit": config.page_size, "offset": offset,
                                 "searchText": config.search_text or ""})

    def to_postings(items: list[Any], response: Response) -> Any:
        # the search result has no URL of its own: keep the public one with it (as ``_url``)
        def payload(job: dict[str, Any]) -> dict[str, Any]:
            return with_company({**job, "_url": _public_url(config, job["externalPath"])}, company)
        return session.postings_of(items, response.url, lambda job: as_text(job.get("externalPath")),
                                   payload=payload, url=lambda job: _public_url(config, job["externalPath"]))

    for page in paginate(session, paging, request, to_postings):
        if config.details:
            yield from _details(session, page.postings, company)
        else:
            yield from page.postings


def _details(session: SourceSession, summaries: tuple[RawPosting, ...], company: str | None) -> Iterator[RawPosting]:
    """The detail replaces the search result: it says everything the result says, and adds the
    description, every location and an absolute ``startDate``."""
    base = cxs_url(session.spec(Config))
    ids = {f"{base}{p.external_id}": p.external_id for p in summaries}

    def parse(response: Response) -> PageOutput:
        detail = json_body(response)
        info = detail.get("jobPostingInfo") if isinstance(detail, dict) else None
        if not isinstance(info, dict):
            raise PayloadError(f"GET {response.url}: expected a 'jobPostingInfo' object")
        path = ids[response.requested_url]
        if info.get("startDate"):
            # "Posted 3 Days Ago" becomes "Posted 4 Days Ago" tomorrow: kept, it would make every
            # unchanged posting a new payload to store and normalize each day; startDate says it for good
            info = {key: value for key, value in info.items() if key != "postedOn"}
        payload: dict[str, Any] = {"externalPath": path, "jobPostingInfo": info,
                                   "_url": _public_url(session.spec(Config), path)}
        if isinstance(detail.get("hiringOrganization"), dict):
            payload["hiringOrganization"] = detail["hiringOrganization"]
        return PageOutput((session.posting(path, with_company(payload, company),
                                           as_text(info.get("externalUrl")) or payload["_url"]),))

    yield from session.detail_postings(list(ids), parse)


def extract(payload: dict[str, Any]) -> PostingFields:
    info = payload.get("jobPostingInfo")
    info = info if isinstance(info, dict) else {}
    listed = as_text(payload.get("locationsText"))
    location = as_text(info.get("location")) or (
        listed if listed and not _LOCATION_COUNT.fullmatch(listed.strip()) else None)
    others = [as_text(x) for x in info.get("additionalLocations") or []]
    bullets = [b for b in payload.get("bulletFields") or [] if as_text(b)]
    extra: dict[str, Any] = {k: v for k, v in (
        ("jobReqId", as_text(info.get("jobReqId"))),
        ("country", as_text(dig(info, "country", "descriptor"))),
        ("externalPath", as_text(payload.get("externalPath"))),
        ("bulletFields", bullets),
    ) if v}
    return PostingFields(
        title=as_text(info.get("title")) or as_text(payload.get("title")),
        company=as_text(dig(payload, "hiringOrganization", "name")) or as_text(payload.get("_company")),
        location=location,
        locations=unique(others, exclude=location),
        remote_hint=as_text(info.get("remoteType")) or as_text(payload.get("remoteType")),
        employment_type=as_text(info.get("timeType")) or as_text(payload.get("timeType")),
        description=as_text(info.get("jobDescription")),
        url=as_text(info.get("externalUrl")) or as_text(payload.get("_url")),
        # startDate is the posting's start ("2026-11-30"); postedOn is relative text
        posted_at=as_text(info.get("startDate")) or as_text(info.get("postedOn")) or as_text(payload.get("postedOn")),
        extra=extra,
    )
