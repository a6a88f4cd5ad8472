"""What a fetch produces, and what it remembers about each page for the next fetch."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from jobpipe.models import RawPosting


@dataclass(frozen=True)
class Quarantined:
    """One item of a listing that could not be taken as a posting: a file line that is not JSON,
    a row without an id, undecodable bytes, an API item without an id, a JobPosting block that
    cannot be parsed. Kept whole (``raw``) with where it was and why, so nothing is lost."""

    position: str                  # "postings.jsonl line 7", "https://.../jobs?skip=100 item 3"
    reason: str
    raw: str                       # the line, row or item as received (undecodable bytes as \xNN)
    external_id: str | None = None


@dataclass(frozen=True)
class PageOutput:
    """What one listing or detail page yielded: its postings and the links to visit next.

    Links are kept so that a page answered with 304 can be replayed whole -- a crawl needs
    a not-modified listing page's links as much as its postings.
    """

    postings: tuple[RawPosting, ...] = ()
    links: tuple[str, ...] = ()         # detail pages (or further items) to fetch
    next_links: tuple[str, ...] = ()    # further listing pages (pagination, nested sitemaps)
    quarantined: tuple[Quarantined, ...] = ()   # items of the page that are not postings
    items: int | None = None            # items the page listed (postings, quarantined, skipped), when paged
    total: int | None = None            # the listing's total count, when the page states one


@dataclass(frozen=True)
class CachedPage:
    """A page's validators plus its output, so a 304 costs no download and no parsing."""

    url: str
    etag: str | None
    last_modified: str | None
    output: PageOutput


#: Per-source memory of previous fetches: URL -> cached page. Loaded from ``http_cache``
#: by ``run_source``; tests may build one by hand.
FetchState = dict[str, CachedPage]


@dataclass
class ListingShape:
    """What a listing's pages looked like: the facts that decide whether it can be trusted to
    say which postings are gone (see ``jobpipe.store.closing``)."""

    pages: int = 0
    total: int | None = None              # the count the source said it lists
    doubts: list[str] = field(default_factory=list)   # reasons to doubt it is the whole listing
    on_boundary: bool = False             # it ended on an empty page

    def record(self, *, pages: int, total: int | None, doubts: list[str], on_boundary: bool) -> None:
        self.pages += pages
        self.total = total if total is not None else self.total
        self.doubts.extend(doubts)
        self.on_boundary = self.on_boundary or on_boundary

    def doubt(self, reason: str) -> None:
        self.doubts.append(reason)


@dataclass
class FetchResult:
    """The outcome of one fetch of one source.

    ``complete`` is true only when every listing page was fetched without error: closing
    postings that vanished is only safe on a complete listing.
    """

    source: str
    kind: str
    postings: list[RawPosting]
    complete: bool
    error: str | None = None
    requests: int = 0
    not_modified: int = 0
    bytes: int = 0
    retries: int = 0
    pages: dict[str, CachedPage] = field(default_factory=dict)   # validators to remember
    warnings: list[str] = field(default_factory=list)
    quarantined: list[Quarantined] = field(default_factory=list)
    listing: ListingShape = field(default_factory=ListingShape)
    #: the input was byte-identical to the last clean run's (``postings`` is then empty): the
    #: listing is that run's, exactly
    listing_unchanged: bool = False
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def stats(self) -> dict[str, int]:
        return {"requests": self.requests, "not_modified": self.not_modified, "bytes": self.bytes,
                "retries": self.retries, "postings": len(self.postings), "quarantined": len(self.quarantined)}
