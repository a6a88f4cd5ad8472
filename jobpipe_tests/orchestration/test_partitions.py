"""Daily partitions start at the deployment's first fetch; a day with no snapshot says which can be replayed."""

from __future__ import annotations

from datetime import date, timedelta

import psycopg
import pytest

from jobpipe.config import SettingsError
from jobpipe.orchestration.partitions import partitions_start, today
from jobpipe.sources import describe_days, replayable_days


def _fetch(conn: psycopg.Connection, source: str, day: date, error: str | None = None) -> None:
    conn.execute("INSERT INTO fetch_runs (source, partition_date, kind, complete, error) VALUES (%s, %s, 'x', %s, %s)",
                 (source, day, error is None, error))
    conn.commit()


def test_configured_start_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBPIPE_PARTITIONS_START", "2026-10-03")
    assert partitions_start() == date(2026, 10, 3)


def test_bad_configured_start_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBPIPE_PARTITIONS_START", "Oct 3")
    with pytest.raises(SettingsError, match="^JOBPIPE_PARTITIONS_START='Oct 3': Input should be a valid date"):
        partitions_start()


def test_start_is_the_first_fetch_or_today(db: psycopg.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOBPIPE_PARTITIONS_START", raising=False)
    assert partitions_start() == today()          # a new install: one day, not months of "missing"
    first = today() - timedelta(days=12)
    _fetch(db, "a", today() - timedelta(days=3))
    _fetch(db, "b", first, error="HTTP 500")       # a failed first fetch still started the deployment
    assert partitions_start() == first


def test_start_goes_no_further_back_than_the_retention_window(db: psycopg.Connection,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOBPIPE_PARTITIONS_START", raising=False)
    monkeypatch.setenv("JOBPIPE_SNAPSHOT_RETENTION_DAYS", "7")
    _fetch(db, "a", today() - timedelta(days=400))
    assert partitions_start() == today() - timedelta(days=6)   # 7 days can be replayed, today included


def test_unreadable_database_gives_today(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv("JOBPIPE_PARTITIONS_START", raising=False)
    monkeypatch.setenv("JOBPIPE_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    assert partitions_start() == today()
    assert "first fetch could not be read" in caplog.text


def test_replayable_days_are_those_whose_latest_fetch_stored_a_listing(db: psycopg.Connection) -> None:
    d = date(2026, 11, 20)
    for i in range(9):
        _fetch(db, "s", d + timedelta(days=i))
    _fetch(db, "s", d + timedelta(days=4), error="HTTP 503")      # that day's latest fetch failed
    _fetch(db, "s", d + timedelta(days=10))
    _fetch(db, "other", d + timedelta(days=9))
    days = replayable_days(db, "s")
    assert d + timedelta(days=4) not in days and d + timedelta(days=9) not in days
    assert describe_days(days) == "2026-11-20 to 2026-11-23, 2026-11-25 to 2026-11-28, 2026-11-30 (9 days)"
    assert replayable_days(db, "never") == [] and describe_days([]) == "none"


def test_many_ranges_list_the_newest() -> None:
    days = [date(2026, 1, 1) + timedelta(days=2 * i) for i in range(20)]
    text = describe_days(days, limit=3)
    assert text == "20 days in 20 ranges, the newest: 2026-02-04, 2026-02-06, 2026-02-08"


def test_backfilling_a_day_without_snapshot_says_which_days_can_be_replayed(
        db: psycopg.Connection, database: str, tmp_path) -> None:
    from dagster import DagsterInstance, materialize

    from jobpipe.orchestration.assets.ingest import raw_postings
    from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key
    from jobpipe.orchestration.resources import PostgresResource, SourcesResource

    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  - {name: acme, kind: greenhouse, board: acme, base_url: 'http://127.0.0.1:9'}\n")
    for days_ago in (5, 4, 2):
        _fetch(db, "acme", today() - timedelta(days=days_ago))
    missing = today() - timedelta(days=3)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(SOURCES_PARTITION, ["acme"])
    result = materialize([raw_postings], partition_key=partition_key("acme", missing), instance=instance,
                         resources={"postgres": PostgresResource(database_url=database),
                                    "sources": SourcesResource(path=str(sources))},
                         raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    text = failure.event_specific_data.user_failure_data.description
    d5, d4, d2 = (today() - timedelta(days=n) for n in (5, 4, 2))
    assert f"no raw snapshot of source 'acme' for {missing}" in text
    assert f"can be replayed: {d5} to {d4}, {d2} (3 days)" in text


def test_the_start_is_read_only_from_a_database_that_is_there(db: psycopg.Connection, tmp_path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded server is read when it runs (here: this session's) and never started."""
    from jobpipe.config import get_settings
    from jobpipe.db import server
    from jobpipe.db.connection import database_name, running_database_url

    monkeypatch.delenv("JOBPIPE_PARTITIONS_START", raising=False)
    session_url = get_settings().database_url
    assert session_url is not None
    assert running_database_url() == session_url                      # configured: as it is
    # the embedded default, running: its URL reaches it
    monkeypatch.delenv("JOBPIPE_DATABASE_URL")
    if server.status().running:
        url = running_database_url()
        assert url is not None and database_name(url) == "jobpipe"
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    # the embedded default in an empty home: nothing to read, nothing started or created
    monkeypatch.setenv("JOBPIPE_HOME", str(tmp_path / "home"))
    assert running_database_url() is None
    assert partitions_start() == today()
    assert not (tmp_path / "home").exists()
