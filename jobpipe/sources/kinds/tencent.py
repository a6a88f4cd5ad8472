"""Tencent careers (careers.tencent.com): the ``post/Query`` listing paged by page number with
a total (``Data.Count``), then one ``post/ByPostId`` request per post for its requirements
(the listing has the responsibilities only); ``details: false`` keeps the listing objects.

Post titles carry a requisition code in front ("TEG09-GPU高级研发工程师（深圳/北京）",
"31504-服务管理支持岗"): it moves to ``extra.post_code``. The posts do not name the employer:
``company_name`` defaults to 腾讯.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import urlencode

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, join_parts, json_body, with_company
from jobpipe.sources.options import ApiConfig, Count, Flag, Text, Url, choice
from jobpipe.sources.paging import PageRequest, Paginator, paginate
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``keyword`` filters like the site's search box; ``page_size`` posts per listing request;
    ``language`` zh-cn or en-us; ``details`` fetches each post's requirements."""

    ident: ClassVar[str | None] = None
    kind: Literal["tencent"]
    base_url: Url = "https://careers.tencent.com"
    company_name: Text | None = "腾讯"
    keyword: Text | None = None
    page_size: Count = 10
    language: Annotated[str, choice("zh-cn", "en-us")] = "zh-cn"
    details: Flag = True


def _check(data: Any, response: Response) -> None:
    if not isinstance(data, dict) or data.get("Code") != 200:
        code = data.get("Code") if isinstance(data, dict) else None
        raise PayloadError(f"{response.method} {response.url}: the API answered Code {code!r}, not 200")


def listing_url(config: Config, page: int) -> str:
    query = {"countryId": "", "cityId": "", "bgIds": "", "productId": "", "categoryId": "", "parentCategoryId": "",
             "attrId": "", "keyword": config.keyword or "", "pageIndex": page, "pageSize": config.page_size,
             "language": config.language, "area": "cn"}
    return f"{config.base_url}/tencentcareer/api/post/Query?{urlencode(query)}"


def detail_url(config: Config, post_id: str) -> str:
    return f"{config.base_url}/tencentcareer/api/post/ByPostId?{urlencode({'postId': post_id, 'language': config.language})}"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    paging = Paginator(page_size=config.page_size, items="Data.Posts", total="Data.Count", by="pages", first=1,
                       what="posts", check=_check)

    def to_postings(items: list[Any], response: Response) -> Any:
        # IsValid false: a post the site no longer offers (not listed, like an unlisted job)
        valid = [p for p in items if not (isinstance(p, dict) and p.get("IsValid") is False)]
        return session.postings_of(valid, response.url, lambda p: as_text(p.get("PostId")),
                                   payload=lambda p: with_company(p, company), url=lambda p: as_text(p.get("PostURL")))

    for page in paginate(session, paging, lambda n: PageRequest(listing_url(config, n)), to_postings):
        if config.details:
            yield from _details(session, config, page.postings)
        else:
            yield from page.postings


def _details(session: SourceSession, config: Config, summaries: tuple[RawPosting, ...]) -> Iterator[RawPosting]:
    """The detail adds ``Requirement``; the listing object's other fields are kept."""
    by_url = {detail_url(config, p.external_id): p for p in summaries}

    def parse(response: Response) -> PageOutput:
        data = json_body(response)
        _check(data, response)
        detail = data.get("Data")
        if not isinstance(detail, dict):
            raise PayloadError(f"GET {response.url}: expected a 'Data' post object")
        summary = by_url[response.requested_url]
        return PageOutput((session.posting(summary.external_id, {**summary.payload, **detail}, summary.url),))

    yield from session.detail_postings(list(by_url), parse)


# "TEG09-", "WXG02-113 ", "31504-", "CSIG07-": a requisition code before the title
_POST_CODE = re.compile(r"^\s*((?:[A-Z]{2,6}\d{1,3}(?:-\d{1,4})?)|\d{4,6})\s*[-－—]?\s*(?=\S)")


def split_post_code(title: str | None) -> tuple[str | None, str | None]:
    """(title without its requisition code, the code)."""
    if not title:
        return title, None
    match = _POST_CODE.match(title)
    if not match or match.end() >= len(title):
        return title, None
    return title[match.end():].strip(), match.group(1)


def _section(heading: str, text: str | None) -> str | None:
    return f"{heading}\n{text}" if text else None


def extract(payload: dict[str, Any]) -> PostingFields:
    title, code = split_post_code(as_text(payload.get("RecruitPostName")))
    description = "\n\n".join(s for s in (_section("工作职责", as_text(payload.get("Responsibility"))),
                                          _section("工作要求", as_text(payload.get("Requirement")))) if s)
    post_id = as_text(payload.get("PostId"))
    extra = {k: v for k, v in (("post_code", code), ("category", as_text(payload.get("CategoryName"))),
                                ("product", as_text(payload.get("ProductName"))),
                                ("recruit_post_id", payload.get("RecruitPostId"))) if v not in (None, "")}
    return PostingFields(
        title=title,
        company=as_text(payload.get("_company")),
        location=join_parts(payload.get("LocationName"), payload.get("CountryName")),
        description=description or None,
        url=as_text(payload.get("PostURL")) or (f"https://careers.tencent.com/jobdesc.html?postId={post_id}"
                                                 if post_id else None),
        posted_at=as_text(payload.get("LastUpdateTime")),     # "2023年01月04日"
        department=as_text(payload.get("BGName")),
        extra=extra,
    )
