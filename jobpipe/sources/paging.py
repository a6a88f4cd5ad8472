"""One pagination helper for the APIs that page by offset or page number, declared per kind
(in the spirit of dlt's paginators) instead of a loop per kind.

A kind says where a page's items and the listing's total are, how big a page is and how the
position advances; ``paginate`` fetches the pages in order (conditionally, through the
session), stops where the listing ends, refuses a server that repeats a page, and records
what the pages looked like, so a short listing is never taken for a complete one:

* an empty page while the total says more postings exist,
* a short page followed by more postings,
* a total that disagrees with the postings seen,
* a listing that ends on an empty page (exactly on a page boundary: the next page might have
  failed as an empty one).

The first three are doubts that leave the listing *unconfirmed* on their own; the last one
only when the listing is also shorter than the previous one (decided in
``jobpipe.store.closing``, which knows the history).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from jobpipe.models import RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import dig_path, expect, json_body
from jobpipe.sources.result import PageOutput, Quarantined
from jobpipe.sources.session import SourceSession

#: A listing longer than this many pages is almost certainly a server ignoring the position.
MAX_PAGES = 1000


@dataclass(frozen=True)
class PageRequest:
    url: str
    body: Any = None            # a JSON body: the page is a POST search (never conditional)


@dataclass(frozen=True)
class Paginator:
    """How one API pages.

    ``by="items"``: the position is an offset that advances by the items received (offset /
    start / skip); ``by="pages"``: a page number that advances by one. ``total`` is the path
    of the listing's total count (None: the API sends none, and a short page ends the
    listing); ``total_on_first_page`` for APIs that send it on the first page only.
    """

    page_size: int
    items: str | None                      # dotted path of the items list ("Data.Posts"); None: the body
    total: str | None = None               # dotted path of the total count
    by: Literal["items", "pages"] = "items"
    first: int = 0
    total_on_first_page: bool = False
    what: str = "postings"                 # named in error messages: "a 'content' list of postings"
    check: Callable[[Any, Response], None] | None = None   # raise PayloadError for an error envelope

    def items_of(self, data: Any, response: Response) -> list[Any]:
        items = dig_path(data, self.items) if self.items else data
        if items is None and isinstance(data, dict) and self.total and _count(dig_path(data, self.total)) == 0:
            return []     # some APIs send no list at all for an empty listing
        return expect({"items": items}, "items", response,
                      f"a {self.items!r} list of {self.what}" if self.items else f"a JSON array of {self.what}")

    def total_of(self, data: Any) -> int | None:
        return _count(dig_path(data, self.total)) if self.total else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())   # 拉勾 sends "totalCount": "1234"
    return None


ToPostings = Callable[[list[Any], Response], tuple[tuple[RawPosting, ...], tuple[Quarantined, ...]]]


def paginate(session: SourceSession, paging: Paginator, request: Callable[[int], PageRequest],
             to_postings: ToPostings) -> Iterator[PageOutput]:
    """Every page of the listing, in order; what the pages looked like goes to ``session.listing``."""
    position = paging.first
    total: int | None = None
    received = 0
    sizes: list[int] = []
    first_ids: set[str] = set()
    ids: set[str] = set()
    postings_seen = 0
    doubts: list[str] = []
    for number in range(1, MAX_PAGES + 1):
        page = request(position)

        def parse(response: Response) -> PageOutput:
            data = json_body(response)
            if paging.check is not None:
                paging.check(data, response)
            items = paging.items_of(data, response)
            postings, bad = to_postings(items, response)
            return PageOutput(postings, quarantined=bad, items=len(items), total=paging.total_of(data))

        out = session.page(page.url, parse) if page.body is None else session.post_page(page.url, page.body, parse)
        count = out.items if out.items is not None else len(out.postings) + len(out.quarantined)
        if out.postings:
            first = out.postings[0].external_id
            if first in first_ids:
                raise PayloadError(f"{'POST' if page.body is not None else 'GET'} {page.url}: the server repeats an "
                                   "earlier page (does it ignore the page position?)")
            first_ids.add(first)
        if out.total is not None:
            if total is None:
                total = out.total
            elif out.total != total and not paging.total_on_first_page:
                doubts.append(f"the total changed from {total} to {out.total} during the listing (page {number})")
        sizes.append(count)
        received += count
        postings_seen += len(out.postings)
        ids.update(p.external_id for p in out.postings)
        yield out
        if count == 0:
            if total is not None and received < total:
                doubts.append(f"page {number} was empty, but the listing says {total} {paging.what} and only "
                              f"{received} came before it")
            break
        if count > paging.page_size:
            break     # more than asked for: the server ignores paging and sent everything at once
        if total is not None:
            if received >= total:
                break
        elif count < paging.page_size:
            break
        position += count if paging.by == "items" else 1
    else:
        raise PayloadError(f"source lists more than {MAX_PAGES} pages of {paging.page_size}: stopping")
    largest = max(sizes)
    for index, size in enumerate(sizes[:-1]):
        if 0 < size < largest and any(sizes[index + 1:]):
            doubts.append(f"page {index + 1} had {size} {paging.what} where pages hold {largest}, and more "
                          "pages followed")
    seen = received - (postings_seen - len(ids))     # items received, less repeats of one posting
    if total is not None and seen != total and not any("was empty" in d for d in doubts):
        doubts.append(f"the listing says {total} {paging.what}, but {seen} were seen")
    session.listing.record(pages=len(sizes), total=total, doubts=doubts, on_boundary=sizes[-1] == 0)
