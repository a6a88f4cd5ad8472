"""A scratch database migrated only up to some migration: the "before" of an upgrade test."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from jobpipe.config import SQL_DIR
from jobpipe.db import migrate, with_database
from jobpipe.db.connection import database_url


@contextmanager
def database_before(migration: int, folder: Path) -> Iterator[str]:
    """URL of a new database migrated with every ``sql/NNNN_*.sql`` numbered below ``migration``.

    ``migrate(url)`` afterwards applies the rest, as an upgrade would. The database is dropped
    on exit; ``folder`` (a test's tmp_path) holds the copied migrations.
    """
    before = folder / "sql"
    before.mkdir()
    for path in SQL_DIR.glob("*.sql"):
        if path.name[:4].isdigit() and int(path.name[:4]) < migration:
            shutil.copy(path, before / path.name)
    base = database_url()
    name = f"jobpipe_test_mig_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = with_database(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    try:
        migrate(url, before)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
