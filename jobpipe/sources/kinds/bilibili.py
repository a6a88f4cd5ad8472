"""bilibili careers (jobs.bilibili.com): the position search (POST, paged by page number), then
one ``position/detail/{id}`` request per position for experience, education and pay (the search
has title, type, category, place and description); ``details: false`` keeps the search results.
``campus: true`` lists campus (校招/实习) positions instead of experienced hires.

A detail answering ``data: null`` is a withdrawn position (like a 404). The API states pay as
``salaryMin``/``salaryMax`` per month (thousands when below 1,000, as the site shows them) and
``salaryMonth`` months a year; every payload seen had them empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import quote

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import HttpError, PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._cn import beijing_time, decode
from jobpipe.sources.kinds._common import as_text, json_body, with_company
from jobpipe.sources.options import ApiConfig, Count, Flag, Text, Url
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``keyword`` filters by position name; ``campus`` lists campus positions; ``page_size``
    positions per search request; ``details`` fetches each position's detail."""

    kind: Literal["bilibili"]
    base_url: Url = "https://jobs.bilibili.com"
    company_name: Text | None = "哔哩哔哩"
    keyword: Text | None = None
    campus: Flag = False
    page_size: Count = 10
    details: Flag = True


def _check(data: Any, response: Response) -> None:
    if not isinstance(data, dict) or data.get("code") != 0:
        code = data.get("code") if isinstance(data, dict) else None
        raise PayloadError(f"{response.method} {response.url}: the API answered code {code!r}, not 0")


def search_url(config: Config) -> str:
    return f"{config.base_url}/api/{'campus' if config.campus else 'srs'}/position/positionList"


def detail_url(config: Config, position_id: str) -> str:
    return f"{config.base_url}/api/srs/position/detail/{quote(position_id, safe='')}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    paging = Paginator(page_size=config.page_size, items="data.list", total="data.total", by="pages", first=1,
                       what="positions", check=_check)

    def request(page: int) -> PageRequest:
        return PageRequest(search_url(config), {"pageSize": config.page_size, "pageNum": page,
                                                "positionName": config.keyword or "", "postCode": [],
                                                "postCodeList": [], "workLocationList": [], "workTypeList": []})

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, lambda p: as_text(p.get("id")),
                                   payload=lambda p: with_company(p, company), url=lambda p: public_url(config, p))

    for page in paginate(session, paging, request, to_postings):
        if config.details:
            yield from _details(session, config, page.postings)
        else:
            yield from page.postings


def public_url(config: Config, position: dict[str, Any]) -> str:
    return f"https://jobs.bilibili.com/{'campus' if config.campus else 'social'}/position/{position.get('id')}/detail"


def _details(session: SourceSession, config: Config, summaries: tuple[RawPosting, ...]) -> Iterator[RawPosting]:
    by_url = {detail_url(config, p.external_id): p for p in summaries}

    def parse(response: Response) -> PageOutput:
        data = json_body(response)
        _check(data, response)
        detail = data.get("data")
        if detail is None:
            raise HttpError(f"GET {response.url}: position withdrawn (data: null)", url=response.url, status=410)
        if not isinstance(detail, dict):
            raise PayloadError(f"GET {response.url}: expected a 'data' position object")
        summary = by_url[response.requested_url]
        merged = {**summary.payload, **{k: v for k, v in detail.items() if v not in (None, "")}}
        return PageOutput((session.posting(summary.external_id, merged, summary.url),))

    yield from session.detail_postings(list(by_url), parse)


def _salary(payload: dict[str, Any]) -> dict[str, Any] | None:
    low, high = payload.get("salaryMin"), payload.get("salaryMax")
    numbers = [v for v in (low, high) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numbers:
        return None
    factor = 1000 if max(numbers) < 1000 else 1       # "15"-"25" as the site shows them: thousands
    months = payload.get("salaryMonth")
    return {"min": low * factor if isinstance(low, (int, float)) else None,
            "max": high * factor if isinstance(high, (int, float)) else None,
            "currency": "CNY", "period": "month",
            **({"months": int(months)} if isinstance(months, (int, float)) and months >= 12 else {})}


def extract(payload: dict[str, Any]) -> PostingFields:
    kind = as_text(payload.get("positionTypeName"))
    return PostingFields(
        title=as_text(payload.get("positionName")),
        company=as_text(payload.get("_company")),
        location=as_text(payload.get("workCity")) or as_text(payload.get("workLocation")),
        salary=_salary(payload),     # {min, max, currency, period, months}: "15薪" as months a year
        employment_type=decode("bilibili", "employment_type", kind) or kind,
        description=as_text(payload.get("positionDescription")) or as_text(payload.get("positionDescriptions")),
        url=as_text(payload.get("_url")) or (f"https://jobs.bilibili.com/social/position/{payload.get('id')}/detail"
                                             if payload.get("id") is not None else None),
        posted_at=beijing_time(as_text(payload.get("pushTime"))),
        valid_through=beijing_time(as_text(payload.get("positionCloseTime"))),
        department=as_text(payload.get("postCodeName")),
        experience_text=as_text(payload.get("workExperience")),
        degree_text=as_text(payload.get("educationRequirements")),
        extra={k: payload[k] for k in ("deptCode", "postCode", "rankRange") if payload.get(k) not in (None, "", [])},
    )
