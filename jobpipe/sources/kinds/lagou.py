"""拉勾 (lagou.com) mobile search (``m.lagou.com/search.json``): positions paged by page number
with a total (``content.data.page.totalCount``, a string). The results carry no description.

Field quirks: ``createTime`` is relative ("今天 09:15", "昨天", "3天前") and resolved by the
normalizer against the fetch time; ``salary`` is "20k-30k" or "4K以上" (monthly);
``companyName`` is the brand, ``companyFullName`` the registered name (kept in ``extra``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import urlencode

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.options import ApiConfig, Count, Text, Url
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``keyword`` (positionName) filters like the site's search box; ``city`` a city name
    (default 全国: everywhere); ``page_size`` positions per request."""

    kind: Literal["lagou"]
    base_url: Url = "https://m.lagou.com"
    keyword: Text | None = None
    city: Text = "全国"
    page_size: Count = 15


def _check(data: Any, response: Response) -> None:
    if not isinstance(data, dict) or data.get("state") != 1:
        state = data.get("state") if isinstance(data, dict) else None
        raise PayloadError(f"{response.method} {response.url}: the API answered state {state!r}, not 1")


def search_url(config: Config, page: int) -> str:
    query = {"city": config.city, "positionName": config.keyword or "", "pageNo": page, "pageSize": config.page_size}
    return f"{config.base_url}/search.json?{urlencode(query)}"


def public_url(position_id: Any) -> str:
    return f"https://www.lagou.com/jobs/{position_id}.html"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    paging = Paginator(page_size=config.page_size, items="content.data.page.result",
                       total="content.data.page.totalCount", by="pages", first=1, what="positions", check=_check)

    def to_postings(items: list[Any], response: Response) -> Any:
        return session.postings_of(items, response.url, lambda p: as_text(p.get("positionId")),
                                   url=lambda p: public_url(p.get("positionId")))

    for page in paginate(session, paging, lambda n: PageRequest(search_url(config, n)), to_postings):
        yield from page.postings


def extract(payload: dict[str, Any]) -> PostingFields:
    position_id = as_text(payload.get("positionId"))
    extra = {k: v for k, v in (("company_full_name", as_text(payload.get("companyFullName"))),
                                ("company_id", payload.get("companyId"))) if v not in (None, "")}
    return PostingFields(
        title=as_text(payload.get("positionName")),
        company=as_text(payload.get("companyName")) or as_text(payload.get("companyFullName")),
        location=as_text(payload.get("city")),
        salary_text=as_text(payload.get("salary")),
        url=public_url(position_id) if position_id else None,
        posted_at=as_text(payload.get("createTime")),
        extra=extra,
    )
