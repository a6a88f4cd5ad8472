from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from jobpipe.db import connect
from jobpipe.service.api import create_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.service.support import HashEmbedder, add_fetch_run, embed_jobs, insert_jobs


def _truncate_all(conn) -> None:
    tables = [r[0] for r in conn.execute(
        "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'")]
    conn.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
    conn.commit()


@pytest.fixture(scope="module")
def seeded(database: str) -> dict[str, int]:
    """Fixture jobs with vectors of the active test model, seeded once per module (tests only read).

    Returns external_id -> job_id. Modules using it must not also use the per-test ``db``
    fixture, which empties every table.
    """
    with connect(database) as conn:
        _truncate_all(conn)
        ids = insert_jobs(conn)
        embed_jobs(conn, HashEmbedder())
        add_fetch_run(conn, "demo", complete=True, days_ago=1)
        add_fetch_run(conn, "board", complete=False)
    return ids


@pytest.fixture(scope="module")
def client(database: str, seeded: dict[str, int]) -> Iterator[TestClient]:
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    with TestClient(app) as c:
        yield c
