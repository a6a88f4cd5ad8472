from __future__ import annotations

import email.utils
import logging
import time

import pytest

from jobpipe import __version__
from jobpipe.sources import HttpError, PoliteClient, RobotsDisallowed
from jobpipe.sources.errors import ResponseTooLarge
from jobpipe.sources.http import RequestStats, retry_after_seconds
from jobpipe.sources.ratelimit import HostRateLimiter
from jobpipe_tests.sources.server import FixtureServer, Reply, json_reply


def test_rate_limit_spaces_requests_per_host(server: FixtureServer) -> None:
    server.route("/a", json_reply({"ok": 1}))
    with PoliteClient(rate_limit=10.0, timeout=2.0) as client:
        for _ in range(4):
            client.get(server.url("/a"))
    times = [s.at for s in server.hits("/a")]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) == 4
    # 10 req/s -> 100 ms apart when sent; arrival times jitter a little on a busy machine
    assert min(gaps) >= 0.07, gaps
    assert times[-1] - times[0] >= 0.27, gaps


def test_rate_limiter_reserves_slots_per_host_without_blocking_others() -> None:
    clock = [100.0]
    slept: list[float] = []
    limiter = HostRateLimiter(clock=lambda: clock[0], sleep=slept.append)
    waits = [limiter.wait("a.example", 2.0) for _ in range(3)]
    other = limiter.wait("b.example", 2.0)
    assert waits == [0.0, 0.5, 1.0]
    assert other == 0.0
    assert slept == [0.5, 1.0]


def test_retry_after_holds_the_whole_host() -> None:
    clock = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    limiter = HostRateLimiter(clock=lambda: clock[0], sleep=sleep)
    limiter.wait("a.example", 10.0)
    limiter.defer("a.example", 3.0)
    assert limiter.wait("a.example", 10.0) == 3.0      # next request to the host waits out Retry-After
    assert limiter.wait("b.example", 10.0) == 0.0      # other hosts are not held


def test_user_agent_and_timeout_defaults(server: FixtureServer) -> None:
    server.route("/ua", json_reply({}))
    with PoliteClient(rate_limit=1000) as client:
        assert client._http.timeout.read == 30.0 and client._http.timeout.connect == 10.0
        client.get(server.url("/ua"))
    ua = server.hits("/ua")[0].headers["user-agent"]
    assert ua == f"jobpipe/{__version__} (+https://github.com/jobpipe/jobpipe)"


def test_429_with_retry_after_is_honoured(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/busy", Reply(status=429, headers={"Retry-After": "1"}), json_reply({"ok": True}))
    stats = RequestStats()
    started = time.monotonic()
    response = client.get(server.url("/busy"), stats=stats)
    assert response.status == 200 and response.content == b'{"ok": true}'
    hits = server.hits("/busy")
    assert len(hits) == 2
    assert hits[1].at - hits[0].at >= 0.9           # waited Retry-After, not the 10 ms backoff
    assert time.monotonic() - started < 5
    assert stats.requests == 3 and stats.retries == 1      # robots.txt, the 429, the retry


def test_retry_after_above_cap_fails_fast(server: FixtureServer) -> None:
    server.route("/slow-down", Reply(status=503, headers={"Retry-After": "3600"}))
    with PoliteClient(rate_limit=1000, max_retry_after=5, backoff_base=0.01) as client:
        with pytest.raises(HttpError, match=r"HTTP 503 Service Unavailable, Retry-After 3600s exceeds the 5s cap"):
            client.get(server.url("/slow-down"))
    assert len(server.hits("/slow-down")) == 1


def test_retry_after_parses_seconds_and_http_dates() -> None:
    now = 1_800_000_000.0
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(email.utils.formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert retry_after_seconds(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_500_then_success_is_retried(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/flaky", Reply(status=500), Reply(status=502), json_reply([1, 2]))
    response = client.get(server.url("/flaky"))
    assert response.status == 200 and response.content == b"[1, 2]"
    assert len(server.hits("/flaky")) == 3


def test_persistent_500_fails_with_the_http_error(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/down", Reply(status=500))
    with pytest.raises(HttpError) as info:
        client.get(server.url("/down"))
    assert str(info.value) == f"GET {server.url('/down')}: HTTP 500 Internal Server Error (after 3 attempts)"
    assert info.value.status == 500
    assert len(server.hits("/down")) == 3


def test_404_is_not_retried(server: FixtureServer, client: PoliteClient) -> None:
    with pytest.raises(HttpError, match="HTTP 404 Not Found$") as info:
        client.get(server.url("/missing"))
    assert info.value.status == 404
    assert len(server.hits("/missing")) == 1


def test_timeout_is_retried_then_reported(server: FixtureServer) -> None:
    server.route("/stall", Reply(delay=0.6, body=b"late"))
    with PoliteClient(rate_limit=1000, timeout=0.2, max_retries=1, backoff_base=0.01) as client:
        with pytest.raises(HttpError, match=r"timed out \(ReadTimeout\) \(after 2 attempts\)"):
            client.get(server.url("/stall"))
    assert len(server.hits("/stall")) == 2


def test_timeout_then_success(server: FixtureServer) -> None:
    server.route("/once-slow", Reply(delay=0.5), json_reply({"fine": 1}))
    with PoliteClient(rate_limit=1000, timeout=0.2, max_retries=2, backoff_base=0.01) as client:
        assert client.get(server.url("/once-slow")).content == b'{"fine": 1}'


def test_robots_disallow_blocks_before_any_request(client: PoliteClient) -> None:
    srv = FixtureServer(robots="User-agent: *\nAllow: /\n\nUser-agent: jobpipe\nDisallow: /private/\n").start()
    try:
        srv.route("/private/jobs.json", json_reply([]))
        srv.route("/public/jobs.json", json_reply([]))
        with pytest.raises(RobotsDisallowed) as info:
            client.get(srv.url("/private/jobs.json"))
        assert str(info.value) == (f"GET {srv.url('/private/jobs.json')}: disallowed by robots.txt "
                                   "for user agent 'jobpipe'")
        assert client.get(srv.url("/public/jobs.json")).status == 200
        client.get(srv.url("/public/jobs.json"))
        assert srv.hits("/private/jobs.json") == []
        assert len(srv.hits("/robots.txt")) == 1          # cached per host
        # a per-request opt-out fetches anyway
        assert client.get(srv.url("/private/jobs.json"), robots=False).status == 200
    finally:
        srv.stop()


def test_robots_server_error_means_disallow_and_404_means_allow(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/robots.txt", Reply(status=503))
    server.route("/x", json_reply({}))
    with pytest.raises(RobotsDisallowed, match=r"robots.txt unreachable \(.*HTTP 503 Service Unavailable"):
        client.get(server.url("/x"))
    other = FixtureServer().start()
    try:
        other.route("/robots.txt", Reply(status=404))
        other.route("/x", json_reply({}))
        assert client.get(other.url("/x")).status == 200
    finally:
        other.stop()


def test_robots_crawl_delay_slows_the_host_down(client: PoliteClient) -> None:
    srv = FixtureServer(robots="User-agent: *\nCrawl-delay: 1\n").start()
    try:
        srv.route("/p", json_reply({}))
        for _ in range(2):
            client.get(srv.url("/p"))
        times = [s.at for s in srv.hits("/p")]
        assert times[1] - times[0] >= 0.9
    finally:
        srv.stop()


def test_conditional_request_gets_304(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/list", json_reply({"jobs": []}, etag='"v1"', last_modified="Wed, 01 Oct 2026 10:00:00 GMT"))
    first = client.get(server.url("/list"))
    assert first.etag == '"v1"' and first.last_modified == "Wed, 01 Oct 2026 10:00:00 GMT"
    stats = RequestStats()
    again = client.get(server.url("/list"), etag=first.etag, stats=stats)
    assert again.not_modified and again.content == b""
    assert stats.not_modified == 1 and stats.bytes == 0
    assert server.hits("/list")[1].headers["if-none-match"] == '"v1"'
    by_date = client.get(server.url("/list"), last_modified=first.last_modified)
    assert by_date.not_modified
    assert server.hits("/list")[2].headers["if-modified-since"] == "Wed, 01 Oct 2026 10:00:00 GMT"


def test_moved_listing_follows_301(server: FixtureServer, client: PoliteClient, caplog: pytest.LogCaptureFixture) -> None:
    server.route("/old/jobs", Reply(status=301, headers={"Location": "/new/jobs"}))
    server.route("/new/jobs", json_reply({"jobs": [1]}))
    with caplog.at_level(logging.WARNING, logger="jobpipe.sources.http"):
        response = client.get(server.url("/old/jobs"))
    assert response.status == 200 and response.url == server.url("/new/jobs")
    assert response.redirected_permanently and response.requested_url == server.url("/old/jobs")
    assert any("moved permanently" in r.getMessage() for r in caplog.records)


def test_redirects_are_bounded(server: FixtureServer) -> None:
    for i in range(8):
        server.route(f"/r{i}", Reply(status=302, headers={"Location": f"/r{i + 1}"}))
    server.route("/r8", json_reply({}))
    with PoliteClient(rate_limit=1000, max_redirects=5) as client:
        with pytest.raises(HttpError, match="more than 5 redirects"):
            client.get(server.url("/r0"))
        assert client.get(server.url("/r4")).status == 200   # 4 hops is fine


def test_response_size_is_capped(server: FixtureServer) -> None:
    server.route("/big", Reply(body=b"x" * 5000))
    with PoliteClient(rate_limit=1000, max_bytes=1000) as client:
        with pytest.raises(ResponseTooLarge, match="exceeds the 1000-byte cap"):
            client.get(server.url("/big"))


def test_connection_refused_is_an_http_error() -> None:
    with PoliteClient(rate_limit=1000, max_retries=1, backoff_base=0.01, respect_robots=False) as client:
        with pytest.raises(HttpError, match=r"connection error \(ConnectError"):
            client.get("http://127.0.0.1:9/nothing-listens-here")


def test_corrupt_body_is_an_http_error_not_a_crash(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/gz", Reply(body=b"not gzip at all", headers={"Content-Encoding": "gzip"}))
    with pytest.raises(HttpError, match="DecodingError"):
        client.get(server.url("/gz"))
    assert len(server.hits("/gz")) == 1
