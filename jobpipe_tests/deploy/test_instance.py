"""One Dagster instance per deployment (issue 17 item 1).

Dagster's storage belongs to the jobpipe database it runs with, so two jobpipe databases on one
server never share runs, events or partitions, and the test suite never writes into the
operator's instance.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from dagster import AssetKey, DagsterInstance, asset, materialize

from jobpipe.config import PROJECT_ROOT, get_settings
from jobpipe.db import dagster_database_url, with_database
from jobpipe.db.connection import DatabaseSetupError, database_name, ensure_database
from jobpipe.orchestration.instance import prepare_dagster_home
from jobpipe_tests.conftest import OPERATOR_ENV


@asset
def probe() -> int:
    return 1


def _instance(database: str, home: Path) -> DagsterInstance:
    settings = get_settings().replace(database_url=database, dagster_database_url=None, home=home)
    prepare_dagster_home(settings)
    return DagsterInstance.get()


@pytest.fixture
def second_database(database: str) -> Iterator[str]:
    if os.environ.get("JOBPIPE_TEST_DATABASE_URL"):
        pytest.skip("JOBPIPE_TEST_DATABASE_URL: this login may not create a second database")
    name = f"jobpipe_test_second_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(database, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for db in (name, name + "_dagster"):
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def test_the_dagster_database_is_named_after_the_jobpipe_database(database):
    settings = get_settings().replace(database_url=database, dagster_database_url=None)
    assert database_name(dagster_database_url(settings)) == database_name(database) + "_dagster"
    explicit = with_database(database, "somewhere_else")
    assert dagster_database_url(settings.replace(dagster_database_url=explicit)) == explicit


def test_two_jobpipe_databases_on_one_server_do_not_share_runs_events_or_partitions(
        database, second_database, tmp_path):
    first = _instance(database, tmp_path / "a")
    second = _instance(second_database, tmp_path / "b")
    try:
        partition = f"only-in-first-{uuid.uuid4().hex[:6]}"
        first.add_dynamic_partitions("sources", [partition])
        result = materialize([probe], instance=first)
        assert result.success
        assert first.get_run_by_id(result.run_id) is not None
        assert first.get_latest_materialization_event(AssetKey("probe")) is not None

        assert second.get_run_by_id(result.run_id) is None
        assert second.get_runs_count() == 0
        assert second.get_latest_materialization_event(AssetKey("probe")) is None
        assert partition not in second.get_dynamic_partitions("sources")
    finally:
        first.dispose()
        second.dispose()


def test_a_missing_database_the_login_may_not_create_is_one_clear_error(database):
    role = f"jobpipe_test_nocreatedb_{uuid.uuid4().hex[:6]}"
    try:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(f'CREATE ROLE "{role}" LOGIN NOCREATEDB')
    except psycopg.errors.InsufficientPrivilege:
        pytest.skip("this login may not create roles")
    try:
        parts = urlsplit(with_database(database, f"jobpipe_test_missing_{uuid.uuid4().hex[:6]}"))
        host = parts.netloc.rsplit("@", 1)[-1]
        as_role = urlunsplit((parts.scheme, f"{role}@{host}", parts.path, parts.query, ""))
        with pytest.raises(DatabaseSetupError) as info:
            ensure_database(as_role)
        message = str(info.value)
        assert "does not exist" in message and "CREATE DATABASE" in message and role in message
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def _run_count(url: str) -> int | None:
    """Runs stored in the Dagster database at ``url``; None when it (or its tables) do not exist."""
    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            if conn.execute("SELECT to_regclass('runs')").fetchone()[0] is None:
                return None
            return conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    except psycopg.OperationalError as exc:
        if "does not exist" in str(exc):
            return None
        raise


def _operator_dagster_url(monkeypatch: pytest.MonkeyPatch) -> str:
    """The instance `jobpipe ui` would open in the environment the suite was started from."""
    with monkeypatch.context() as m:
        for key, value in OPERATOR_ENV.items():
            if value is None:
                m.delenv(key, raising=False)
            else:
                m.setenv(key, value)
        return dagster_database_url()


@pytest.mark.slow
def test_a_jobpipe_run_from_the_suite_lands_in_its_own_instance_not_the_operators(
        database, tmp_path, monkeypatch):
    operator_url = _operator_dagster_url(monkeypatch)
    own_url = with_database(database, database_name(database) + "_dagster")
    assert database_name(operator_url) != database_name(own_url) or operator_url != own_url
    before_operator, before_own = _run_count(operator_url), _run_count(own_url) or 0

    drop = tmp_path / "postings.jsonl"
    drop.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in [
        {"id": "a1", "title": "Data Engineer", "company": "Probe Co", "location": "Berlin, Germany",
         "description": "Build pipelines in Python and SQL.", "url": "https://probe.example/a1"},
        {"id": "a2", "title": "数据工程师", "company": "Probe Co", "location": "上海",
         "description": "负责数据管道开发，熟悉 Python。", "url": "https://probe.example/a2"},
    ]) + "\n", encoding="utf-8")
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  - {name: probe-drop, kind: file, path: postings.jsonl, format: jsonl}\n",
                       encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME",)}
    env.update(JOBPIPE_DATABASE_URL=database, JOBPIPE_HOME=str(tmp_path / "home"))
    proc = subprocess.run([sys.executable, "-m", "jobpipe.cli", "run", "--sources", str(sources), "--json"],
                          env=env, capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["totals"]["inserted"] == 2

    assert (_run_count(own_url) or 0) >= before_own + 2   # the source's run and the downstream run
    assert _run_count(operator_url) == before_operator   # untouched (None stays None: not even created)
