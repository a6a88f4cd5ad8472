"""One fetch of one source: the client plus that source's settings, state and counters.

Kinds talk only to a session. ``page()`` is the single place where conditional requests
happen: with a remembered validator it asks "changed since?", and on 304 hands back the
page's previous output without downloading or parsing anything.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from jobpipe.models import RawPosting
from jobpipe.sources.errors import FetchError, HttpError, PayloadError
from jobpipe.sources.http import PoliteClient, RequestStats, Response
from jobpipe.sources.options import SourceConfig
from jobpipe.sources.result import CachedPage, FetchState, ListingShape, PageOutput, Quarantined

log = logging.getLogger("jobpipe.sources")

Parser = Callable[[Response], PageOutput]
C = TypeVar("C", bound=SourceConfig)


class SourceSession:
    def __init__(self, client: PoliteClient, config: SourceConfig, state: FetchState | None,
                 fetched_at: datetime) -> None:
        self.client = client
        self.config = config
        self.state = state or {}
        self.fetched_at = fetched_at
        self.stats = RequestStats()
        self.pages: dict[str, CachedPage] = {}
        self.warnings: list[str] = []
        self.errors: list[str] = []      # pages that failed while the rest of the listing went on
        self.gone: list[str] = []        # detail pages answering 404/410: withdrawn postings
        self.truncated = False           # a page bound was reached with pages left unvisited
        self.quarantined: list[Quarantined] = []   # listed items that are not postings
        self.listing = ListingShape()    # what the listing's pages looked like (paged kinds)
        self.listing_unchanged = False   # the whole input is byte-identical to the last clean run's

    def spec(self, model: type[C]) -> C:
        """This source's options, typed as its kind's ``Config`` model."""
        if not isinstance(self.config, model):
            raise TypeError(f"source {self.config.name!r} is a {type(self.config).__name__}, not a {model.__name__}")
        return self.config

    def warn(self, message: str) -> None:
        log.warning("source %r: %s", self.config.name, message)
        self.warnings.append(message)

    def page_failed(self, error: Exception) -> None:
        log.warning("source %r: %s", self.config.name, error)
        self.errors.append(str(error))

    def page_gone(self, url: str) -> None:
        log.info("source %r: %s is gone (404/410): skipped", self.config.name, url)
        self.gone.append(url)

    def stated_total(self, total: Any, listed: int, what: str = "postings") -> None:
        """A one-page listing that states its count (Greenhouse ``meta.total``): a count that
        disagrees with the items listed makes the listing doubtful."""
        if isinstance(total, bool) or not isinstance(total, int):
            return
        self.listing.total = total
        if total != listed:
            self.listing.doubt(f"the listing says {total} {what}, but it lists {listed}")

    def input_unchanged(self, url: str, digest: str) -> bool:
        """Whether a whole-listing input (a dropped file) is byte-identical to the one the last clean,
        complete run remembered: its listing is then that run's, and nothing needs parsing."""
        cached = self.state.get(url)
        if cached is None or cached.etag != digest:
            return False
        self.pages[url] = cached
        self.stats.add(not_modified=1)
        self.listing_unchanged = True
        return True

    def remember_input(self, url: str, digest: str) -> None:
        """Remember a whole-listing input's digest for the next fetch (only the digest: no page output)."""
        self.pages[url] = CachedPage(url, digest, None, PageOutput())

    def quarantine(self, item: Quarantined) -> None:
        log.warning("source %r: %s quarantined: %s", self.config.name, item.position, item.reason)
        self.quarantined.append(item)

    def postings_of(self, items: Iterable[Any], where: str, ident: str | Callable[[dict[str, Any]], Any], *,
                    payload: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                    url: Callable[[dict[str, Any]], str | None] | None = None
                    ) -> tuple[tuple[RawPosting, ...], tuple[Quarantined, ...]]:
        """The items of one listing page as postings; an item that is not an object or has no id
        is quarantined (with its JSON) instead of dropping silently or failing the page.

        ``ident`` is the id's key, or a function of the item; ``payload`` what to store (default:
        the item); ``url`` the posting's page.
        """
        postings: list[RawPosting] = []
        bad: list[Quarantined] = []
        for index, item in enumerate(items, start=1):
            position = f"{where} item {index}"
            if not isinstance(item, dict):
                bad.append(Quarantined(position, f"expected a JSON object, got {type(item).__name__}", _json(item)))
                continue
            value = ident(item) if callable(ident) else item.get(ident)
            if value is None or isinstance(value, (dict, list, bool)) or not str(value).strip():
                what = f"{ident!r}" if isinstance(ident, str) else "an id"
                bad.append(Quarantined(position, f"no {what} to identify the posting", _json(item)))
                continue
            postings.append(self.posting(value, payload(item) if payload else item, url(item) if url else None))
        return tuple(postings), tuple(bad)

    def posting(self, external_id: Any, payload: dict[str, Any], url: str | None = None) -> RawPosting:
        return RawPosting(source=self.config.name, external_id=str(external_id), format=self.config.kind,
                          payload=payload, url=url, fetched_at=self.fetched_at)

    def get(self, url: str, **kwargs: Any) -> Response:
        """A plain (unconditional) GET with this source's politeness settings."""
        return self.client.get(url, rate_limit=self.config.rate_limit, robots=self.config.robots,
                               stats=self.stats, **kwargs)

    def page(self, url: str, parse: Parser) -> PageOutput:
        """Fetch and parse one page, or replay its previous output when it is unchanged."""
        cached = self.state.get(url)
        response = self.client.get(
            url, rate_limit=self.config.rate_limit, robots=self.config.robots, stats=self.stats,
            etag=cached.etag if cached else None, last_modified=cached.last_modified if cached else None,
        )
        if response.not_modified:
            if cached is None:
                raise PayloadError(f"GET {url}: HTTP 304 to an unconditional request")
            self.pages[url] = cached
            return cached.output
        if response.redirected_permanently:
            self.warn(f"{url} moved permanently to {response.url}")
        output = parse(response)
        self._keep_quarantined(output)
        if (response.etag or response.last_modified) and not output.quarantined:
            # a page with quarantined items is not remembered: replayed from a 304, its
            # quarantine would be lost, so it is fetched and parsed again next time
            self.pages[url] = CachedPage(url, response.etag, response.last_modified, output)
        return output

    def _keep_quarantined(self, output: PageOutput) -> None:
        for item in output.quarantined:
            self.quarantine(item)

    def post_page(self, url: str, body: Any, parse: Parser) -> PageOutput:
        """Fetch and parse one page of a search API that pages through a POST body.

        Never conditional: the URL alone does not name the page, and such APIs send no
        validators, so there is nothing to remember between runs.
        """
        response = self.client.post_json(url, body, rate_limit=self.config.rate_limit, robots=self.config.robots,
                                         stats=self.stats)
        if response.redirected_permanently:
            self.warn(f"{url} moved permanently to {response.url}")
        output = parse(response)
        self._keep_quarantined(output)
        return output

    def pages_concurrently(self, urls: Sequence[str], parse: Parser) -> list[PageOutput | FetchError]:
        """``page()`` for many URLs at once, in order; a failed page yields its error instead.

        Concurrency is capped by the client; the per-host rate limit still spaces requests.
        """
        def one(url: str) -> PageOutput | FetchError:
            try:
                return self.page(url, parse)
            except FetchError as exc:
                return exc

        if len(urls) <= 1 or self.client.max_concurrency <= 1:
            return [one(u) for u in urls]
        with ThreadPoolExecutor(max_workers=min(self.client.max_concurrency, len(urls))) as pool:
            return list(pool.map(one, urls))


    def detail_postings(self, urls: Sequence[str], parse: Parser) -> Iterator[RawPosting]:
        """The postings of detail pages fetched side by side.

        A detail that answers 404/410 was withdrawn between the listing and its fetch (gone, not
        an error); any other failure marks the run incomplete, so nothing is closed on its account.
        """
        for url, result in zip(urls, self.pages_concurrently(urls, parse)):
            if isinstance(result, HttpError) and result.status in (404, 410):
                self.page_gone(url)
            elif isinstance(result, FetchError):
                self.page_failed(result)
            else:
                yield from result.postings


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        return repr(value)
