"""Shared fixtures: a real PostgreSQL + pgvector for every test session.

With ``JOBPIPE_DATABASE_URL`` set, tests use that server; otherwise the embedded server in
``$JOBPIPE_HOME``. Either way each test session gets its own fresh database (created,
migrated, dropped at the end), so concurrent sessions and the demo data never collide.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from jobpipe.db import connect, migrate, with_database
from jobpipe.db.connection import database_url

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"



def shared_data_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs ../shared/data/{'/'.join(parts)} (not present in this checkout)")
    return path


@pytest.fixture(scope="session")
def database() -> Iterator[str]:
    """URL of a fresh, migrated database for this test session."""
    base_url = database_url()
    name = f"jobpipe_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin_url = with_database(base_url, "postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base_url, name)
    migrate(url)
    previous = os.environ.get("JOBPIPE_DATABASE_URL")
    os.environ["JOBPIPE_DATABASE_URL"] = url
    try:
        yield url
    finally:
        if previous is None:
            os.environ.pop("JOBPIPE_DATABASE_URL", None)
        else:
            os.environ["JOBPIPE_DATABASE_URL"] = previous
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def db(database: str) -> Iterator[psycopg.Connection]:
    """A connection to the session database, emptied before the test."""
    with connect(database) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'"
        )]
        if tables:
            conn.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
        conn.commit()
        yield conn
