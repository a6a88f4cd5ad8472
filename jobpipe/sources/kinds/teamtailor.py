"""Teamtailor JSON Feed (``/jobs.json``): items carry a schema.org JobPosting in
``_jobposting``; the feed pages with ``next_url`` (JSON Feed 1.1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds import jsonld
from jobpipe.sources.kinds._common import as_text, expect, json_body, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the career site subdomain (<company>.teamtailor.com)."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["teamtailor"]
    company: Text
    base_url: Url = "https://{company}.teamtailor.com"


MAX_PAGES = 1000


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    company = session.spec(Config).company_name
    url: str | None = f"{session.spec(Config).base_url}/jobs.json"
    seen: set[str] = set()

    def parse(response: Response) -> PageOutput:
        data = json_body(response)
        items = expect(data, "items", response, "a JSON Feed 'items' list")
        following = as_text(data.get("next_url")) if isinstance(data, dict) else None
        postings, bad = session.postings_of(items, response.url, "id", payload=lambda i: with_company(i, company),
                                            url=lambda i: as_text(i.get("url")))
        return PageOutput(postings, next_links=(following,) if following else (), quarantined=bad)

    for _ in range(MAX_PAGES):
        if url is None or url in seen:
            return
        seen.add(url)
        out = session.page(url, parse)
        yield from out.postings
        url = out.next_links[0] if out.next_links else None


def extract(payload: dict[str, Any]) -> PostingFields:
    posting = payload.get("_jobposting")
    fields = jsonld.extract(posting) if isinstance(posting, dict) else PostingFields()
    fields.title = as_text(payload.get("title")) or fields.title
    fields.url = as_text(payload.get("url")) or fields.url
    fields.description = as_text(payload.get("content_html")) or as_text(payload.get("content_text")) or fields.description
    fields.posted_at = payload.get("date_published") or fields.posted_at
    fields.company = fields.company or as_text(payload.get("_company"))
    return fields
