"""robots.txt semantics (RFC 9309 through Protego) and the once-per-host cache."""

from __future__ import annotations

import pytest

from jobpipe.sources import PoliteClient, RobotsDisallowed, fetch_source
from jobpipe.sources.robots import RobotsCache, parse_robots
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture, json_reply


def rules(text: str):
    return parse_robots(200, text)


def test_longest_match_allow_wins_over_a_shorter_disallow() -> None:
    # the standard library parser applies the first rule in file order and refused this
    r = rules("User-agent: *\nDisallow: /\nAllow: /careers/\n")
    assert r.allows("https://acme.example/careers/jobs/1")
    assert r.allows("https://acme.example/careers/")
    assert not r.allows("https://acme.example/")
    assert not r.allows("https://acme.example/about")


def test_longest_match_disallow_wins_over_a_shorter_allow() -> None:
    r = rules("User-agent: jobpipe\nAllow: /jobs/\nDisallow: /jobs/internal/\n")
    assert r.allows("https://acme.example/jobs/1")
    assert not r.allows("https://acme.example/jobs/internal/7")


def test_wildcards_and_end_anchor() -> None:
    # ignored by the standard library parser: it crawled every sorted listing
    r = rules("User-agent: *\nDisallow: /*?sort=\nDisallow: /*.pdf$\n")
    assert not r.allows("https://acme.example/careers/jobs?sort=date")
    assert r.allows("https://acme.example/careers/jobs?page=2&sort=date")   # "?sort=" is not in it
    assert r.allows("https://acme.example/careers/jobs?page=2")
    assert not r.allows("https://acme.example/files/brochure.pdf")
    assert r.allows("https://acme.example/files/brochure.pdf?download=1")


def test_group_for_jobpipe_replaces_the_star_group() -> None:
    r = rules("User-agent: *\nDisallow: /\n\nUser-agent: jobpipe\nAllow: /\n")
    assert r.allows("https://acme.example/anything")
    r = rules("User-agent: *\nAllow: /\n\nUser-agent: JobPipe\nDisallow: /api/\n")   # matching ignores case
    assert not r.allows("https://acme.example/api/jobs")


def test_request_rate_counts_as_a_crawl_delay() -> None:
    assert rules("User-agent: *\nRequest-rate: 1/5\n").crawl_delay() == 5.0
    assert rules("User-agent: *\nCrawl-delay: 2\nRequest-rate: 2/1\n").crawl_delay() == 2.0
    assert rules("User-agent: *\nAllow: /\n").crawl_delay() is None


def test_robots_is_fetched_once_per_host_across_sources(server: FixtureServer) -> None:
    server.route("/v1/boards/a/jobs", Reply(body=fixture("greenhouse_jobs.json")))
    server.route("/v1/boards/b/jobs", Reply(body=fixture("greenhouse_jobs.json")))
    for board in ("a", "b"):   # each fetch_source builds its own client, as a run does per source
        result = fetch_source(make_config(f"gh-{board}", "greenhouse", board=board, base_url=server.base))
        assert result.complete, result.error
    assert len(server.hits("/robots.txt")) == 1


def test_cache_expires_and_failures_expire_sooner(server: FixtureServer) -> None:
    now = [0.0]
    cache = RobotsCache(ttl=100, failure_ttl=10, clock=lambda: now[0])
    server.route("/robots.txt", Reply(status=503), Reply(body=b"User-agent: *\nDisallow: /no/\n", content_type="text/plain"))
    server.route("/yes", json_reply({}))
    with PoliteClient(rate_limit=1000, backoff_base=0.001, max_retries=0, robots_cache=cache) as client:
        with pytest.raises(RobotsDisallowed, match="robots.txt unreachable"):
            client.get(server.url("/yes"))
        now[0] = 5.0
        with pytest.raises(RobotsDisallowed):
            client.get(server.url("/yes"))            # the failure is still cached
        assert len(server.hits("/robots.txt")) == 1
        now[0] = 11.0
        assert client.get(server.url("/yes")).status == 200   # asked again: now it answers
        with pytest.raises(RobotsDisallowed):
            client.get(server.url("/no/x"))
        now[0] = 50.0
        client.get(server.url("/yes"))
        assert len(server.hits("/robots.txt")) == 2
        now[0] = 112.0
        client.get(server.url("/yes"))
        assert len(server.hits("/robots.txt")) == 3
