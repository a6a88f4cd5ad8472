"""智联招聘 (zhaopin.com) search API (``fe-api.zhaopin.com/c/i/sou``): results paged by offset
with a total (``data.numFound``). The search results carry no description.

Field quirks, normalized here: ``salary`` holds "9K-16K" (monthly), "薪资面议" or a hiring kind
("校招") that is not pay; ``emplType`` "校园" means campus hiring; ``city``, ``workingExp`` and
``eduLevel`` are {code, name} (the code tables in ``data/cn_codes.yaml`` fill a missing name);
dates are Beijing time without an offset.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import PlainValidator

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._cn import beijing_time, decode, table
from jobpipe.sources.kinds._common import as_text, dig, unique
from jobpipe.sources.options import ApiConfig, Count, Text, Url, problem
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.session import SourceSession


def _city(value: Any) -> str:
    """A city name from the code table, or a numeric city code as is."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise problem("expected a city name or a numeric zhaopin city code")
    if value.strip().lstrip("-").isdigit():
        return value.strip()
    codes = {name: code for code, name in table("zhaopin", "city").items()}
    if value.strip() not in codes:
        raise problem(f"unknown city {value!r} (known: {', '.join(codes)}; or give the numeric cityId)")
    return codes[value.strip()]


class Config(ApiConfig):
    """``keyword`` (kw) filters like the site's search box; ``city``: a city name from the code
    table or a numeric cityId (default: every city); ``page_size`` results per request."""

    kind: Literal["zhaopin"]
    base_url: Url = "https://fe-api.zhaopin.com"
    keyword: Text | None = None
    city: Annotated[str, PlainValidator(_city)] | None = None
    page_size: Count = 90


def _check(data: Any, response: Response) -> None:
    if not isinstance(data, dict) or data.get("code") != 200:
        code = data.get("code") if isinstance(data, dict) else None
        raise PayloadError(f"{response.method} {response.url}: the API answered code {code!r}, not 200")


def search_url(config: Config, start: int) -> str:
    query: dict[str, Any] = {"start": start, "pageSize": config.page_size}
    if config.city:
        query["cityId"] = config.city
    if config.keyword:
        query.update(kw=config.keyword, kt=3)
    return f"{config.base_url}/c/i/sou?{urlencode(query)}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    paging = Paginator(page_size=config.page_size, items="data.results", total="data.numFound", check=_check)

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, "number", url=lambda p: as_text(p.get("positionURL")))

    for page in paginate(session, paging, lambda start: PageRequest(search_url(config, start)), to_postings):
        yield from page.postings


def _coded(payload: dict[str, Any], key: str, table_name: str) -> str | None:
    value = payload.get(key)
    if isinstance(value, dict):
        return as_text(value.get("name")) or decode("zhaopin", table_name, value.get("code"))
    return as_text(value)


def _location(payload: dict[str, Any]) -> tuple[str | None, list[str]]:
    city = payload.get("city")
    if not isinstance(city, dict):
        return as_text(city), []
    display = as_text(city.get("display"))       # "南京-建邺区"
    names = [as_text(i.get("name")) or decode("zhaopin", "city", i.get("code"))
             for i in city.get("items") or [] if isinstance(i, dict)]
    return display or (names[0] if names else None), []


def extract(payload: dict[str, Any]) -> PostingFields:
    salary = as_text(payload.get("salary"))
    hiring = decode("zhaopin", "salary_not_pay", salary)
    kind = as_text(payload.get("emplType"))
    location, others = _location(payload)
    welfare = [w for w in payload.get("welfare") or [] if as_text(w)]
    extra: dict[str, Any] = {k: v for k, v in (
        ("company_size", as_text(dig(payload, "company", "size", "name"))),
        ("company_type", as_text(dig(payload, "company", "type", "name"))),
        ("job_category", as_text(dig(payload, "jobType", "display"))),
        ("welfare", welfare),
        ("updated", beijing_time(as_text(payload.get("updateDate")))),
        ("recruit_count", payload.get("recruitCount") or None),
    ) if v}
    return PostingFields(
        title=as_text(payload.get("jobName")),
        company=as_text(dig(payload, "company", "name")),
        location=location,
        locations=unique(others, exclude=location),
        salary_text=None if hiring else salary,
        employment_type=hiring or decode("zhaopin", "employment_type", kind) or kind,
        url=as_text(payload.get("positionURL")),
        posted_at=beijing_time(as_text(payload.get("createDate"))),
        valid_through=beijing_time(as_text(payload.get("endDate"))),
        experience_text=_coded(payload, "workingExp", "working_exp"),
        degree_text=_coded(payload, "eduLevel", "edu_level"),
        extra=extra,
    )
