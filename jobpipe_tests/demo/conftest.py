from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobpipe.demo import DemoServer


@pytest.fixture(scope="module")
def demo_server() -> Iterator[DemoServer]:
    with DemoServer() as server:
        yield server
