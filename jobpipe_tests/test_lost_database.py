"""Which errors mean "the database is not answering" (jobpipe run turns them into one line)."""

from __future__ import annotations

import psycopg
import pytest

from jobpipe.db.connection import lost_database

UNREACHABLE = "postgresql://nobody@127.0.0.1:1/none"


def _raised(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("did not raise")


def test_a_refused_connection_is_a_lost_database():
    exc = _raised(lambda: psycopg.connect(UNREACHABLE, connect_timeout=3))
    assert "Connection refused" in lost_database(exc)


def test_dagster_storage_errors_are_seen_through_their_wrappers():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    from dagster_postgres.utils import DagsterPostgresException

    engine = sqlalchemy.create_engine(UNREACHABLE.replace("postgresql://", "postgresql+psycopg2://"))
    driver = _raised(lambda: engine.connect())

    def wrapped():
        try:
            raise driver
        except Exception as exc:
            raise DagsterPostgresException("too many retries for DB connection") from exc

    reason = lost_database(_raised(wrapped))
    assert reason is not None and "Connection refused" in reason and "\n" not in reason


def test_other_errors_are_not():
    assert lost_database(ValueError("bad value")) is None
    assert lost_database(psycopg.errors.UniqueViolation("duplicate key")) is None
    try:
        try:
            raise KeyError("x")
        except KeyError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as exc:
        assert lost_database(exc) is None
