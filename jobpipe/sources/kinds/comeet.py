"""Comeet careers API: every position of a company in one response, with its description
sections (``details=true``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import quote, urlencode

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, expect, join_parts, json_body, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession

# Description sections are named by each employer; pay sometimes gets its own.


class Config(ApiConfig):
    """``company_uid`` from the careers API settings (e.g. F6.003); ``token``: the careers API
    token (public, but better passed as ${VAR})."""

    kind: Literal["comeet"]
    company_uid: Text
    token: Text
    base_url: Url = "https://www.comeet.co"


_SALARY_SECTIONS = re.compile(r"salary|compensation|\bpay\b", re.I)


def listing_url(config: Config) -> str:
    query = urlencode({"token": config.token, "details": "true"})
    return f"{config.base_url}/careers-api/2.0/company/{quote(config.company_uid, safe='')}/positions?{query}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    company = session.spec(Config).company_name

    def parse(response: Response) -> PageOutput:
        positions = expect(json_body(response), None, response, "a JSON array of positions")
        postings, bad = session.postings_of(positions, response.url, "uid", payload=lambda p: with_company(p, company),
                                            url=_url)
        return PageOutput(postings, quarantined=bad)

    yield from session.page(listing_url(session.spec(Config)), parse).postings


def _url(payload: dict[str, Any]) -> str | None:
    # the Comeet-hosted page is one per position; url_active_page (the employer's site) may be shared
    return (as_text(payload.get("url_comeet_hosted_page")) or as_text(payload.get("url_recruit_hosted_page"))
            or as_text(payload.get("url_active_page")))


def _order(detail: dict[str, Any]) -> float:
    order = detail.get("order")
    return order if isinstance(order, (int, float)) else 0


def _sections(payload: dict[str, Any]) -> list[tuple[str, str]]:
    items = [d for d in payload.get("details") or [] if isinstance(d, dict) and as_text(d.get("value"))]
    items.sort(key=_order)
    return [(as_text(d.get("name")) or "", str(d["value"])) for d in items]


def extract(payload: dict[str, Any]) -> PostingFields:
    raw_location = payload.get("location")
    location: dict[str, Any] = raw_location if isinstance(raw_location, dict) else {}
    sections = _sections(payload)
    description = "".join(f"<h3>{name}</h3>{value}" if name else value for name, value in sections)
    salary_text = next((value for name, value in sections if _SALARY_SECTIONS.search(name)), None)
    remote = as_text(payload.get("workplace_type")) or ("remote" if location.get("is_remote") is True else None)
    extra: dict[str, Any] = {k: v for k, v in (
        ("location_name", as_text(location.get("name"))),
        ("url_active_page", as_text(payload.get("url_active_page"))),
        ("internal_use_custom_id", as_text(payload.get("internal_use_custom_id"))),
    ) if v}
    return PostingFields(
        title=as_text(payload.get("name")),
        company=as_text(payload.get("company_name")) or as_text(payload.get("_company")),
        # the office's city, not its label: "Dallas" may be an office in Plano
        location=join_parts(location.get("city") or location.get("name"), location.get("state"),
                            location.get("country")),
        remote_hint=remote,
        salary_text=salary_text,
        employment_type=as_text(payload.get("employment_type")),
        description=description or None,
        url=_url(payload),
        posted_at=payload.get("time_updated"),    # the only date the API gives
        department=as_text(payload.get("department")),
        seniority=as_text(payload.get("experience_level")),
        extra=extra,
    )
