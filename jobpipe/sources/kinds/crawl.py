"""Breadth-first crawl shared by ``jsonld`` and ``html``: listing pages (with pagination)
lead to detail pages; every page goes through the session, so it is rate-limited,
robots-checked and conditionally cached like any API request."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from jobpipe.models import RawPosting
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import Parser, SourceSession


def crawl(session: SourceSession, start_url: str, max_pages: int,
          parse_listing: Parser, parse_detail: Parser,
          fetch_listing: Callable[[str, Parser], PageOutput] | None = None) -> Iterator[RawPosting]:
    """Yield postings from listing and detail pages, at most ``max_pages`` pages in all.

    A listing page that fails stops the crawl (the listing is incomplete); a detail page
    that fails is recorded and the crawl goes on; a detail page that is gone (404/410) is a
    withdrawn posting, not an error.
    """
    fetch_listing = fetch_listing or session.page
    listings = [start_url]
    queued = {start_url}
    budget = max_pages
    listed_before = False     # an earlier listing page listed something (a sitemap index lists none)
    while listings:
        if budget <= 0:
            session.truncated = True
            session.warn(f"max_pages={max_pages} reached with listing pages left: listing incomplete")
            return
        url = listings.pop(0)
        budget -= 1
        out = fetch_listing(url, parse_listing)
        listed = bool(out.postings or out.links or out.quarantined)
        if not listed and out.next_links and listed_before:
            # a page of the listing came back empty yet points further: a cut-short page, not the end
            session.listing.doubt(f"listing page {url} listed nothing but links to a next page")
        elif not listed and not listings and not out.next_links:
            session.listing.on_boundary = True   # ended on an empty page (or the listing is empty)
        listed_before = listed_before or listed
        yield from out.postings
        for link in out.next_links:
            if link not in queued:
                queued.add(link)
                listings.append(link)
        details = [link for link in out.links if link not in queued]
        queued.update(details)
        if len(details) > budget:
            session.truncated = True
            session.warn(f"max_pages={max_pages} reached: {len(details) - budget} detail pages not fetched")
            details = details[:budget]
        budget -= len(details)
        yield from session.detail_postings(details, parse_detail)
