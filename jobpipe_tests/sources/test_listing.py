"""A short listing is never taken for a complete one: the pagination helper's doubts over real
local HTTP, and the close rules (jobpipe.store.closing) on the real database."""

from __future__ import annotations

from datetime import date

import psycopg
import pytest

from jobpipe.sources import PoliteClient, fetch_source, run_source
from jobpipe.store import close_vanished, upsert_jobs
from jobpipe.store.closing import Listing, Verdict, close_decision, listing_verdict
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, json_reply
from jobpipe_tests.store.helpers import make_posting

DAY1, DAY2, DAY3 = date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)


def lever_item(i: int) -> dict:
    return {"id": f"lv-{i}", "text": f"Engineer {i}", "categories": {"location": "Berlin"}}


def serve_lever(server: FixtureServer, pages: list[list[int]], size: int = 2) -> None:
    """Lever pages (skip/limit, no total): ``pages[k]`` are the item numbers at skip k*size."""
    for k, numbers in enumerate(pages + [[]] if pages and len(pages[-1]) == size else pages):
        server.route(f"/v0/postings/acme?mode=json&skip={k * size}&limit={size}",
                     json_reply([lever_item(i) for i in numbers]))


def serve_smartrecruiters(server: FixtureServer, pages: dict[int, list[int]], total: int, size: int = 2) -> None:
    for offset, numbers in pages.items():
        server.route(f"/v1/companies/acme/postings?offset={offset}&limit={size}",
                     json_reply({"offset": offset, "limit": size, "totalFound": total,
                                 "content": [{"id": f"sr-{i}", "name": f"Role {i}"} for i in numbers]}))


def lever(server: FixtureServer):  # noqa: ANN201
    return make_config("lv", "lever", company="acme", base_url=server.base, page_size=2)


def smartrecruiters(server: FixtureServer):  # noqa: ANN201
    return make_config("sr", "smartrecruiters", company="acme", base_url=server.base, page_size=2, details=False)


def test_a_complete_listing_has_no_doubts(server: FixtureServer, client: PoliteClient) -> None:
    serve_smartrecruiters(server, {0: [0, 1], 2: [2, 3], 4: [4]}, total=5)
    result = fetch_source(smartrecruiters(server), client)
    assert [p.external_id for p in result.postings] == [f"sr-{i}" for i in range(5)]
    assert (result.listing.pages, result.listing.total, result.listing.doubts, result.listing.on_boundary) == (3, 5, [], False)


def test_an_empty_page_in_the_middle_is_a_doubt(server: FixtureServer, client: PoliteClient) -> None:
    serve_smartrecruiters(server, {0: [0, 1], 2: [], 4: [4, 5]}, total=6)
    result = fetch_source(smartrecruiters(server), client)
    assert result.complete and [p.external_id for p in result.postings] == ["sr-0", "sr-1"]
    assert result.listing.doubts == ["page 2 was empty, but the listing says 6 postings and only 2 came before it"]
    assert any("listing UNCONFIRMED" in w for w in result.warnings)


def test_a_short_page_followed_by_more_is_a_doubt(server: FixtureServer, client: PoliteClient) -> None:
    serve_smartrecruiters(server, {0: [0, 1], 2: [2], 3: [4, 5]}, total=5)
    result = fetch_source(smartrecruiters(server), client)
    assert [p.external_id for p in result.postings] == ["sr-0", "sr-1", "sr-2", "sr-4", "sr-5"]
    assert result.listing.doubts == ["page 2 had 1 postings where pages hold 2, and more pages followed"]


def test_a_total_that_disagrees_with_the_postings_seen_is_a_doubt(server: FixtureServer, client: PoliteClient) -> None:
    serve_smartrecruiters(server, {0: [0, 1], 2: [1, 2]}, total=4)     # one posting repeated: one missed
    result = fetch_source(smartrecruiters(server), client)
    assert result.listing.doubts == ["the listing says 4 postings, but 3 were seen"]
    one_page = make_config("gh", "greenhouse", board="b", base_url=server.base)
    server.route("/v1/boards/b/jobs", json_reply({"jobs": [{"id": 1, "title": "A"}], "meta": {"total": 2}}))
    assert fetch_source(one_page, client).listing.doubts == ["the listing says 2 postings, but it lists 1"]


def test_a_listing_ending_on_a_page_boundary_is_marked(server: FixtureServer, client: PoliteClient) -> None:
    serve_lever(server, [[0, 1], [2, 3]])                 # the third page is empty
    result = fetch_source(lever(server), client)
    assert len(result.postings) == 4 and result.listing.on_boundary and result.listing.doubts == []
    other = FixtureServer().start()
    try:
        serve_lever(other, [[0, 1], [2]])                  # a short last page: the natural end
        assert not fetch_source(lever(other), client).listing.on_boundary
    finally:
        other.stop()


def test_verdict_rules() -> None:
    ok = Listing(complete=True, listed=10, previous_listed=12)
    assert listing_verdict(ok) == Verdict(True)
    assert not listing_verdict(Listing(complete=False, listed=10)).confirmed
    assert listing_verdict(Listing(complete=True, listed=10, doubts=("page 2 was empty",))) == Verdict(False, "page 2 was empty")
    boundary = Listing(complete=True, listed=10, on_page_boundary=True, previous_listed=12)
    assert not listing_verdict(boundary).confirmed and "fewer than the 12" in listing_verdict(boundary).reason
    assert listing_verdict(Listing(complete=True, listed=12, on_page_boundary=True, previous_listed=12)).confirmed
    assert listing_verdict(Listing(complete=True, listed=4, on_page_boundary=True)).confirmed   # no history
    assert close_decision(Verdict(True), would_close=2, open_before=10, max_share=0.3).close
    refused = close_decision(Verdict(True), would_close=4, open_before=10, max_share=0.3, source="s")
    assert refused.refused and not refused.close and "4 of 10" in refused.reason
    doubtful = close_decision(Verdict(False, "why"), would_close=2, open_before=10, max_share=0.3)
    assert not doubtful.close and not doubtful.refused
    assert doubtful.reason == ("listing UNCONFIRMED: why; nothing closed (2 missing postings stay open until a "
                               "listing confirms their absence)")


def _open(db: psycopg.Connection, source: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT external_id FROM jobs WHERE source = %s AND closed_at IS NULL", (source,))}


def test_an_empty_middle_page_closes_nothing_until_a_listing_confirms(db: psycopg.Connection) -> None:
    """The run of issue 18: a paged API answering an empty page mid-listing closed its postings."""
    config_items = {0: [0, 1], 2: [2, 3], 4: [4, 5], 6: [6, 7], 8: [8, 9]}
    with PoliteClient(rate_limit=1000, backoff_base=0.01, max_retries=0) as client:
        server = FixtureServer().start()
        try:
            config = smartrecruiters(server)
            serve_smartrecruiters(server, config_items, total=10)
            run_source(db, config, DAY1, client=client)
            upsert_jobs(db, [make_posting(i, source="sr") for i in range(10)])
            assert close_vanished(db, "sr", DAY1).closed == 0 and len(_open(db, "sr")) == 10

            serve_smartrecruiters(server, {**config_items, 4: []}, total=10)      # page 3 comes back empty
            run_source(db, config, DAY2, client=client)
            result = close_vanished(db, "sr", DAY2, max_share=0.9)
            assert (result.closed, result.would_close, result.confirmed) == (0, 6, False)
            assert "page 3 was empty, but the listing says 10 postings" in result.reason
            assert len(_open(db, "sr")) == 10

            serve_smartrecruiters(server, {0: [0, 1], 2: [2, 3], 4: [4, 5], 6: [6, 7], 8: [8]}, total=9)  # sr-9 filled
            run_source(db, config, DAY3, client=client)
            result = close_vanished(db, "sr", DAY3)
            assert (result.closed, result.confirmed) == (1, True)
            assert _open(db, "sr") == {f"sr-{i}" for i in range(9)}
            # a replay of the doubtful day closes nothing either way
            assert not close_vanished(db, "sr", DAY2).considered
        finally:
            server.stop()


def test_a_boundary_listing_shorter_than_the_last_waits_for_the_next(db: psycopg.Connection) -> None:
    with PoliteClient(rate_limit=1000, backoff_base=0.01, max_retries=0) as client:
        server = FixtureServer().start()
        try:
            config = lever(server)
            serve_lever(server, [[0, 1], [2, 3], [4]])
            run_source(db, config, DAY1, client=client)
            upsert_jobs(db, [make_posting(i, source="lv") for i in range(5)])
            server.routes.clear()
            server.route("/robots.txt", json_reply({}))
            serve_lever(server, [[0, 1], [2, 3]])            # ends on the boundary, one fewer than yesterday
            run_source(db, config, DAY2, client=client)
            result = close_vanished(db, "lv", DAY2, max_share=0.5)
            assert not result.confirmed and result.closed == 0
            assert "ended exactly on a page boundary with 4 postings, fewer than the 5" in result.reason
            run_source(db, config, DAY3, client=client)       # the same again: it confirms the absence
            result = close_vanished(db, "lv", DAY3, max_share=0.5)
            assert result.confirmed and result.closed == 1 and _open(db, "lv") == {f"lv-{i}" for i in range(4)}
        finally:
            server.stop()


@pytest.mark.parametrize("pages", [[[0, 1], [], [2]], [[]]])
def test_crawl_listing_pages_that_list_nothing(server: FixtureServer, client: PoliteClient, pages: list[list[int]]) -> None:
    from jobpipe_tests.sources.server import html_reply

    for n, items in enumerate(pages, start=1):
        links = "".join(f'<a href="/jobs/{i}.html">job</a>' for i in items)
        nxt = f'<a rel="next" href="/list/{n + 1}">next</a>' if n < len(pages) else ""
        server.route(f"/list/{n}", html_reply(f"<html><body>{links}{nxt}</body></html>"))
    for i in range(3):
        server.route(f"/jobs/{i}.html", html_reply(f"<html><body><h1>Job {i}</h1></body></html>"))
    config = make_config("site", "html", start_url=server.url("/list/1"), item_links="a[href^='/jobs/']",
                         next_page="a[rel=next]", fields={"title": "h1"})
    result = fetch_source(config, client)
    if len(pages) > 1:
        assert result.listing.doubts == [f"listing page {server.url('/list/2')} listed nothing but links to a next page"]
    else:
        assert result.listing.doubts == [] and result.listing.on_boundary
