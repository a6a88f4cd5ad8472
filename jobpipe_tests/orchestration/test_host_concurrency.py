"""A backfill of many sources on one host never fetches more than JOBPIPE_HOST_CONCURRENCY at once."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest
from dagster import DagsterInstance, materialize

from jobpipe.orchestration.assets.ingest import raw_postings
from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key, today
from jobpipe.orchestration.resources import PostgresResource, SourcesResource
from jobpipe.sources.hostslots import host_slot, source_host
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture

BOARDS = 8


class CountingServer(FixtureServer):
    """Counts listing requests in flight at once (each answer takes a while, like a slow board)."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.peak = 0
        self._count = threading.Lock()

    def _handle(self, request) -> None:  # type: ignore[no-untyped-def]
        listing = "/jobs?" in request.path
        if listing:
            with self._count:
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
        try:
            super()._handle(request)
        finally:
            if listing:
                with self._count:
                    self.in_flight -= 1


@pytest.fixture
def board_server() -> CountingServer:
    server = CountingServer()
    for i in range(BOARDS):
        server.route(f"/v1/boards/b{i}/jobs?content=true&pay_transparency=true",
                     Reply(body=fixture("greenhouse_jobs.json"), delay=0.6))
    server.start()
    yield server
    server.stop()


def test_a_backfill_of_many_sources_on_one_host_holds_the_cap(
        db: psycopg.Connection, database: str, board_server: CountingServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBPIPE_HOST_CONCURRENCY", "2")
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n" + "".join(
        f"  - {{name: b{i}, kind: greenhouse, board: b{i}, base_url: '{board_server.base}', rate_limit: 100}}\n"
        for i in range(BOARDS)), encoding="utf-8")
    results: dict[int, bool] = {}

    def run(i: int) -> None:   # one run per partition, as a backfill launches them
        instance = DagsterInstance.ephemeral()     # (an in-memory instance is not shared across threads)
        instance.add_dynamic_partitions(SOURCES_PARTITION, [f"b{i}"])
        result = materialize([raw_postings], partition_key=partition_key(f"b{i}", today()), instance=instance,
                             resources={"postgres": PostgresResource(database_url=database),
                                        "sources": SourcesResource(path=str(sources))},
                             raise_on_error=False)
        results[i] = result.success
        instance.dispose()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(BOARDS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert results == {i: True for i in range(BOARDS)}
    assert board_server.peak == 2      # the cap held, and was reached: the fetches did overlap
    db.commit()
    assert db.execute("SELECT count(*) FROM fetch_runs WHERE error IS NULL").fetchone()[0] == BOARDS


def test_slots_are_per_host_and_freed_when_released(database: str) -> None:
    with host_slot(database, "a.example", 1) as first:
        assert first == 0
        with host_slot(database, "b.example", 1) as other:     # another host is not held up
            assert other == 0
        with pytest.raises(TimeoutError, match="a.example"):
            with host_slot(database, "a.example", 1, poll_seconds=0.05, timeout_seconds=0.3):
                pass
    with host_slot(database, "a.example", 1, timeout_seconds=1) as again:
        assert again == 0


def test_source_host(tmp_path: Path) -> None:
    assert source_host(make_config("g", "greenhouse", board="x", base_url="https://Boards.Example:8443/")) \
        == "boards.example:8443"
    drop = tmp_path / "p.jsonl"
    drop.write_text("")
    assert source_host(make_config("f", "file", path=str(drop), format="jsonl")) is None
