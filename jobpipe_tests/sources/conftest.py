from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobpipe.sources import PoliteClient
from jobpipe_tests.sources.server import FixtureServer


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    srv = FixtureServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def client() -> Iterator[PoliteClient]:
    """A fast client: high rate limit, short timeouts and backoffs (politeness logic unchanged)."""
    with PoliteClient(rate_limit=1000.0, timeout=2.0, backoff_base=0.01, backoff_max=0.05, max_retries=2) as c:
        yield c
