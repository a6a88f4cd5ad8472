"""Shared fixtures: a real PostgreSQL + pgvector for every test session.

With ``JOBPIPE_DATABASE_URL`` set, tests use that server; otherwise the embedded server in
``$JOBPIPE_HOME``. Either way each test session gets its own fresh database (created,
migrated, dropped at the end), so concurrent sessions and the demo data never collide.

``JOBPIPE_TEST_DATABASE_URL`` instead names one existing database to run in, as on a managed
server where the login owns a database but may not create any: it is migrated and its tables
are emptied by the tests, never dropped (its name must contain ``test``, so that a production
database is never pointed at by mistake). The query service's tests log in as the service's own
reader (``service_database``): on such a server ``JOBPIPE_TEST_SERVICE_DATABASE_URL`` names a
login the administrator created, which the tests grant the serving objects.

Dagster: the session gets its own ``DAGSTER_HOME`` and the session database's own instance
(``<database>_dagster``); the operator's ``JOBPIPE_DAGSTER_*`` settings are hidden from the
tests, so nothing a test runs lands in the operator's instance.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from jobpipe.db import connect, migrate, with_database
from jobpipe.db.connection import DAGSTER_DATABASE_SUFFIX, database_name, database_url
from jobpipe.db.roles import drop_service_login

#: Variables that would point the tests at the operator's Dagster instance.
_DAGSTER_ENV = ("DAGSTER_HOME", "JOBPIPE_DAGSTER_DATABASE_URL", "JOBPIPE_DAGSTER_STORAGE_URL")
#: The environment the suite was started with: what "the operator's instance" is resolved from.
OPERATOR_ENV = {k: os.environ.get(k) for k in ("JOBPIPE_HOME", "JOBPIPE_DATABASE_URL", *_DAGSTER_ENV)}

# The daily partitions start at the deployment's first fetch, read when the definitions are
# imported, which happens at collection, before the session's database exists: a fixed start
# keeps collection away from any database (tests of the rule call partitions_start() themselves).
os.environ.setdefault("JOBPIPE_PARTITIONS_START", "2026-01-01")
# No step retries unless a test asks for them: a test's failing source fails at once.
os.environ.setdefault("JOBPIPE_STEP_RETRIES", "0")
os.environ.setdefault("JOBPIPE_RETRY_DELAY_SECONDS", "0")

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

#: Figures tests measure while they run (case counts, sizes), printed after the session.
_FIGURES: list[str] = []


@pytest.fixture(scope="session")
def report_figure():
    """``report_figure("...")`` adds a line to the "figures" section at the end of the run."""
    return _FIGURES.append


def pytest_terminal_summary(terminalreporter) -> None:
    if _FIGURES:
        terminalreporter.section("figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


def shared_data_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs ../shared/data/{'/'.join(parts)} (not present in this checkout)")
    return path


@pytest.fixture(scope="session", autouse=True)
def _own_dagster_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A Dagster home of the session's own; the operator's Dagster settings hidden meanwhile."""
    saved = {k: os.environ.pop(k, None) for k in _DAGSTER_ENV}
    home = tmp_path_factory.mktemp("dagster_home")
    os.environ["DAGSTER_HOME"] = str(home)
    try:
        yield home
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _given_test_database() -> str | None:
    url = os.environ.get("JOBPIPE_TEST_DATABASE_URL") or None
    if url and "test" not in database_name(url):
        raise pytest.UsageError(
            f"JOBPIPE_TEST_DATABASE_URL names database {database_name(url)!r}: the tests empty its tables, "
            "so its name must contain 'test'"
        )
    return url


@pytest.fixture(scope="session")
def database() -> Iterator[str]:
    """URL of a fresh, migrated database for this test session."""
    given = _given_test_database()
    previous = os.environ.get("JOBPIPE_DATABASE_URL")
    if given:
        url, admin_url, name = given, None, database_name(given)
    else:
        base_url = database_url()
        name = f"jobpipe_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        admin_url = with_database(base_url, "postgres")
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = with_database(base_url, name)
    migrate(url)
    os.environ["JOBPIPE_DATABASE_URL"] = url
    try:
        yield url
    finally:
        if previous is None:
            os.environ.pop("JOBPIPE_DATABASE_URL", None)
        else:
            os.environ["JOBPIPE_DATABASE_URL"] = previous
        if admin_url is not None:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                for db_name in (name, name + DAGSTER_DATABASE_SUFFIX):
                    conn.execute(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
            drop_service_login(admin_url, name)   # the session database's own service login


@pytest.fixture(scope="session")
def service_database(database: str) -> str:
    """The query service's own login for the session database: what JOBPIPE_SERVICE_DATABASE_URL holds.

    On the embedded server jobpipe creates it; elsewhere ``JOBPIPE_TEST_SERVICE_DATABASE_URL``
    names a login the server's administrator created (it is granted the serving objects here),
    else one is created with a random password when the tests' login may create roles.
    """
    from psycopg.conninfo import conninfo_to_dict

    from jobpipe.db.roles import ensure_service_login
    from jobpipe.db.server import serves

    given = os.environ.get("JOBPIPE_TEST_SERVICE_DATABASE_URL") or None
    if given:
        ensure_service_login(database, role=conninfo_to_dict(given)["user"], create=False)
        return given
    return ensure_service_login(database, password=not serves(database)).url


@pytest.fixture
def db(database: str) -> Iterator[psycopg.Connection]:
    """A connection to the session database, emptied before the test."""
    with connect(database) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'"
        )]
        if tables:
            conn.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
        # An empty store has no per-model HNSW index either (a whole-graph test builds them).
        for (index,) in conn.execute("SELECT quote_ident(indexname) FROM pg_indexes WHERE schemaname = 'public' "
                                     "AND (indexname LIKE 'job\\_embeddings\\_hnsw\\_%' "
                                     "OR indexname LIKE 'embeddings\\_half\\_hnsw\\_%')").fetchall():
            conn.execute(f"DROP INDEX IF EXISTS {index}")
        conn.commit()
        yield conn


@pytest.fixture(autouse=True)
def _fresh_robots_cache() -> Iterator[None]:
    """robots.txt rules are cached per process; a test server may reuse a port an earlier test's
    server had, so each test starts with an empty cache."""
    from jobpipe.sources.robots import shared_robots_cache

    shared_robots_cache().clear()
    yield
