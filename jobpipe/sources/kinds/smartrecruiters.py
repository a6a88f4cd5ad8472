"""SmartRecruiters posting API: offset/limit listing, then one detail request per posting
(the listing has no description); ``details: false`` keeps the listing objects only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, join_parts, json_body, label, with_company
from jobpipe.sources.options import ApiConfig, Count, Flag, Text, Url
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the company identifier; ``details``: fetch each posting's detail (description)."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["smartrecruiters"]
    company: Text
    base_url: Url = "https://api.smartrecruiters.com"
    page_size: Count = 100
    details: Flag = True


def _base(config: Config) -> str:
    return f"{config.base_url}/v1/companies/{quote(config.company, safe='')}/postings"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    paging = Paginator(page_size=config.page_size, items="content", total="totalFound")

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, "id", payload=lambda p: with_company(p, company))

    def request(offset: int) -> PageRequest:
        return PageRequest(f"{_base(config)}?offset={offset}&limit={config.page_size}")

    for page in paginate(session, paging, request, to_postings):
        if config.details:
            yield from _details(session, page.postings, company)
        else:
            yield from page.postings


def _details(session: SourceSession, summaries: tuple[RawPosting, ...], company: str | None) -> Iterator[RawPosting]:
    base = _base(session.spec(Config))
    urls = [f"{base}/{quote(p.external_id, safe='')}" for p in summaries]

    def parse(response: Response) -> PageOutput:
        detail = json_body(response)
        if not isinstance(detail, dict) or not detail.get("id"):
            raise PayloadError(f"GET {response.url}: expected a posting object")
        return PageOutput((session.posting(detail["id"], with_company(detail, company),
                                           as_text(detail.get("postingUrl"))),))

    yield from session.detail_postings(urls, parse)


def _sections_html(payload: dict[str, Any]) -> str | None:
    sections = dig(payload, "jobAd", "sections") or {}
    parts = []
    for key in ("companyDescription", "jobDescription", "qualifications", "additionalInformation"):
        section = sections.get(key) if isinstance(sections, dict) else None
        if isinstance(section, dict) and section.get("text"):
            parts.append(f"<h3>{section.get('title') or ''}</h3>{section['text']}")
    return "".join(parts) or None


def extract(payload: dict[str, Any]) -> PostingFields:
    location = payload.get("location") or {}
    remote = "remote" if location.get("remote") else ("hybrid" if location.get("hybrid") else None)
    identifier = dig(payload, "company", "identifier")
    url = as_text(payload.get("postingUrl"))
    if not url and identifier and payload.get("id"):
        url = f"https://jobs.smartrecruiters.com/{identifier}/{payload['id']}"
    return PostingFields(
        title=as_text(payload.get("name")),
        company=label(payload.get("company")) or as_text(payload.get("_company")),
        location=as_text(location.get("fullLocation"))
        or join_parts(location.get("city"), location.get("region"), location.get("country")),
        remote_hint=remote,
        employment_type=label(payload.get("typeOfEmployment")),
        description=_sections_html(payload),
        url=url,
        posted_at=payload.get("releasedDate"),
        department=label(payload.get("department")) or label(payload.get("function")),
        seniority=label(payload.get("experienceLevel")),
        extra={k: v for k, v in (("industry", label(payload.get("industry"))), ("refNumber", payload.get("refNumber")),
                                  ("language", dig(payload, "language", "code"))) if v},
    )
