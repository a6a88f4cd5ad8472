"""Every outgoing request has an overall deadline, not only a per-read timeout (a real dripping server)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from jobpipe.sources import HttpError, PoliteClient
from jobpipe.sources.http import DEFAULT_DEADLINE
from jobpipe_tests.sources.drip import DripServer

DEADLINE = 0.8


@pytest.fixture
def drip() -> Iterator[DripServer]:
    server = DripServer(interval=0.05).start()
    try:
        yield server
    finally:
        server.stop()


def _client(**kw) -> PoliteClient:
    # The per-read timeout (5 s) is far above the drip interval (0.05 s): it alone would never fire.
    return PoliteClient(rate_limit=1000, timeout=5.0, deadline=DEADLINE, max_retries=0, backoff_base=0.01, **kw)


@pytest.mark.parametrize("path", ["/drip-body", "/drip-headers"])
def test_a_dripping_server_is_cut_off_at_the_deadline(drip: DripServer, path: str) -> None:
    started = time.monotonic()
    with _client() as client, pytest.raises(HttpError, match=r"within the 0\.8s deadline") as info:
        client.get(drip.url(path))
    elapsed = time.monotonic() - started
    assert DEADLINE * 0.9 <= elapsed < DEADLINE + 0.6, elapsed
    (served,) = [d for d in drip.drips if d.path == path]
    # The server really was sending all along (first byte at once, a byte every 50 ms).
    assert served.first_byte is not None and served.first_byte - served.started < 0.3
    assert served.bytes_sent >= 5
    assert "connect and all reads together" in str(info.value)


def test_a_slow_response_within_the_deadline_completes(drip: DripServer) -> None:
    with _client() as client:
        response = client.get(drip.url("/steady"))   # 10 bytes x 50 ms: 0.5 s < 0.8 s
    assert response.content == b"x" * 10


def test_the_deadline_applies_to_each_attempt(drip: DripServer) -> None:
    started = time.monotonic()
    with PoliteClient(rate_limit=1000, timeout=5.0, deadline=0.5, max_retries=1, backoff_base=0.01) as client:
        with pytest.raises(HttpError, match=r"deadline .*\(after 2 attempts\)"):
            client.get(drip.url("/drip-body"))
    elapsed = time.monotonic() - started
    assert len([d for d in drip.drips if d.path == "/drip-body"]) == 2
    assert 1.0 <= elapsed < 2.0, elapsed


def test_a_reused_connection_gets_a_fresh_deadline(drip: DripServer) -> None:
    # Keep-alive: the second request runs on the first one's connection, with its own deadline.
    with _client() as client:
        assert client.get(drip.url("/steady")).content == b"x" * 10
        assert client.get(drip.url("/steady")).content == b"x" * 10


def test_the_default_deadline_is_set() -> None:
    with PoliteClient() as client:
        assert client.deadline == DEFAULT_DEADLINE > client._http.timeout.read
        backend = client._http._transport._pool._network_backend
        assert type(backend).__name__ == "_DeadlineBackend"
