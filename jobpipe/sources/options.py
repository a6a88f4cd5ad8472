"""The options each kind accepts, as data: the sources file is validated against this table
before anything runs, and docs/sources.md documents the same table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    type: str                  # str | url | int | number | bool | selector | regex | choice | path | encoding | selectors | columns
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    help: str = ""


def _api(ident: str, ident_help: str, base_url: str, **more: Option) -> dict[str, Option]:
    return {
        ident: Option("str", required=True, help=ident_help),
        "base_url": Option("url", default=base_url, help="replaces the public API host (mirror, proxy, test server)"),
        "company_name": Option("str", help="company name to record when the API's postings do not carry one"),
        **more,
    }


#: Options shared by every kind (besides ``name`` and ``kind``).
COMMON: dict[str, Option] = {
    "enabled": Option("bool", default=True),
    "rate_limit": Option("number", default=1.0, help="requests per second per host"),
    "robots": Option("bool", default=True, help="respect robots.txt (opting out is logged as a WARNING)"),
}

KIND_OPTIONS: dict[str, dict[str, Option]] = {
    "greenhouse": _api("board", "board token (boards.greenhouse.io/<board>)", "https://boards-api.greenhouse.io"),
    "lever": _api("company", "Lever site name (jobs.lever.co/<company>)", "https://api.lever.co",
                  page_size=Option("int", default=100, help="postings per request (limit)")),
    "ashby": _api("board", "job board name (jobs.ashbyhq.com/<board>)", "https://api.ashbyhq.com"),
    "workable": _api("account", "account subdomain (apply.workable.com/<account>)", "https://apply.workable.com"),
    "smartrecruiters": _api("company", "company identifier", "https://api.smartrecruiters.com",
                            page_size=Option("int", default=100, help="postings per listing request"),
                            details=Option("bool", default=True, help="fetch each posting's detail (description)")),
    "recruitee": _api("company", "company subdomain (<company>.recruitee.com)", "https://{company}.recruitee.com"),
    "personio": _api("company", "company subdomain (<company>.jobs.personio.de)", "https://{company}.jobs.personio.de",
                     language=Option("str", default="en", help="feed language")),
    "teamtailor": _api("company", "career site subdomain (<company>.teamtailor.com)", "https://{company}.teamtailor.com"),
    "workday": {
        "tenant": Option("str", required=True, help="tenant name: the first part of <tenant>.wdN.myworkdayjobs.com"),
        "site": Option("str", required=True, help="career site name: the path after the host (and locale), e.g. External_Career_Site"),
        "base_url": Option("url", required=True, help="the career site's host, e.g. https://<tenant>.wd5.myworkdayjobs.com (wdN varies)"),
        "company_name": Option("str", help="company name to record when the posting does not carry one"),
        "page_size": Option("int", default=20, help="postings per search request (the API allows at most 20)"),
        "search_text": Option("str", help="search words, as typed in the career site's search box"),
        "details": Option("bool", default=True, help="fetch each posting's detail (description, locations, time type)"),
    },
    "comeet": {
        "company_uid": Option("str", required=True, help="company UID from the careers API settings, e.g. F6.003"),
        "token": Option("str", required=True, help="careers API token (public, but better passed as ${VAR})"),
        "base_url": Option("url", default="https://www.comeet.co", help="replaces the public API host (mirror, proxy, test server)"),
        "company_name": Option("str", help="company name to record when the API's postings do not carry one"),
    },
    "eightfold": {
        "domain": Option("str", required=True, help="the employer's domain the API is asked about, e.g. acme.com"),
        "base_url": Option("url", required=True, help="the career site's host, e.g. https://acme.eightfold.ai"),
        "company_name": Option("str", help="company name to record (the API's positions do not carry one)"),
        "page_size": Option("int", default=10, help="positions per listing request (the API returns at most 10)"),
        "details": Option("bool", default=True, help="fetch each position's detail (the listing has no description)"),
    },
    "jsonld": {
        "start_url": Option("url", required=True, help="listing page, or a sitemap (URL ending in .xml)"),
        "follow": Option("regex", help="links to follow from listing pages: substring or regular expression"),
        "next_page": Option("selector", help="CSS selector of the next-page link (rel=next is always followed)"),
        "max_pages": Option("int", default=500, help="upper bound on pages fetched per run"),
    },
    "html": {
        "start_url": Option("url", required=True, help="first listing page"),
        "item_links": Option("selector", required=True, help="CSS selector of links to detail pages"),
        "next_page": Option("selector", help="CSS selector of the next listing page link"),
        "fields": Option("selectors", required=True, help="posting field -> CSS selector on the detail page"),
        "max_pages": Option("int", default=500, help="upper bound on pages fetched per run"),
    },
    "file": {
        "path": Option("path", required=True, help="JSONL or CSV file; relative to the sources file"),
        "format": Option("choice", choices=("jsonl", "csv"), help="default: from the file extension"),
        "encoding": Option("encoding", default="utf-8", help="utf-8, gbk, gb18030, ..."),
        "fields": Option("columns", help="posting field -> column name"),
    },
}

#: Field names a ``file`` mapping or ``html`` selector may target (others land in ``extra``).
POSTING_FIELD_NAMES: tuple[str, ...] = (
    "external_id", "title", "company", "location", "locations", "remote_hint", "salary", "salary_text",
    "employment_type", "description", "url", "posted_at", "valid_through", "department", "seniority",
    "experience_text", "degree_text",
)
