"""The comparison of two runs' tables (tables.py) does not depend on the wall clock: the same
sources fetched on either side of Beijing midnight compare equal, relative dates and all, while a
relative date stored wrong, or any other difference, is still found."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest

import jobpipe.sources.fetch
from jobpipe.db import connect, migrate, with_database
from jobpipe.normalize.store import normalize_fetch
from jobpipe.sources import run_source
from jobpipe.store.curate import curate_fetch
from jobpipe_tests.clock import set_wall_clock
from jobpipe_tests.deploy.tables import differences, empty_tables, snapshot
from jobpipe_tests.sources.helpers import make_config

DAY = date(2026, 3, 10)
POSTINGS = [
    {"external_id": "zh", "title": "数据分析师", "location": "上海", "posted_at": "3天前"},
    {"external_id": "en", "title": "Data Analyst", "location": "London", "posted_at": "3 days ago"},
    {"external_id": "abs", "title": "后端工程师", "location": "北京", "posted_at": "2026-03-01"},
]


@pytest.fixture
def second_database(database: str) -> Iterator[str]:
    if os.environ.get("JOBPIPE_TEST_DATABASE_URL"):
        pytest.skip("JOBPIPE_TEST_DATABASE_URL: comparing needs a second database")
    name = f"jobpipe_test_tables_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database, name)
    migrate(url)
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _load(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fetched: datetime) -> None:
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in POSTINGS),
                                      encoding="utf-8")
    set_wall_clock(monkeypatch, fetched, jobpipe.sources.fetch)
    with connect(url) as conn:
        empty_tables(conn)
        run_source(conn, make_config("drop", "file", tmp_path, path="p.jsonl"), DAY)
        normalize_fetch(conn, "drop", DAY)
        curate_fetch(conn, "drop", DAY)


def test_runs_on_either_side_of_beijing_midnight_compare_equal(database, second_database, tmp_path, monkeypatch):
    before = datetime(2026, 3, 10, 15, 55, tzinfo=timezone.utc)     # 23:55 in Beijing
    after = before + timedelta(minutes=10)                           # 00:05 the next day in Beijing
    _load(database, tmp_path, monkeypatch, before)
    _load(second_database, tmp_path, monkeypatch, after)
    left, right = snapshot(database), snapshot(second_database)
    with connect(database) as a, connect(second_database) as b:
        query = "SELECT external_id, posted_at FROM jobs ORDER BY 1"
        stored_a, stored_b = dict(a.execute(query).fetchall()), dict(b.execute(query).fetchall())
    assert stored_b["zh"] - stored_a["zh"] == timedelta(days=1)       # both right: a day apart
    assert stored_a["en"] == stored_b["en"] and stored_a["abs"] == stored_b["abs"]
    assert len(left["jobs"]) == 3 and len(left["normalized_postings"]) == 3
    problems = differences(left, right)
    assert problems == [], "\n".join(problems)


def test_a_relative_date_stored_wrong_or_an_absolute_one_moved_is_still_a_difference(
        database, second_database, tmp_path, monkeypatch):
    fetched = datetime(2026, 3, 10, 9, tzinfo=timezone.utc)
    _load(database, tmp_path, monkeypatch, fetched)
    _load(second_database, tmp_path, monkeypatch, fetched)
    assert differences(snapshot(database), snapshot(second_database)) == []
    with connect(second_database) as conn:
        conn.execute("UPDATE jobs SET posted_at = posted_at + interval '1 day' WHERE external_id IN ('zh', 'abs')")
        conn.commit()
    problems = differences(snapshot(database), snapshot(second_database))
    assert any(p.startswith("right: ") and "relative dates not resolved" in p for p in problems), problems
    assert any(p.startswith("jobs:") and "'abs'" in p for p in problems), "\n".join(problems)
