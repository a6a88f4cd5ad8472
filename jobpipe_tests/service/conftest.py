from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient

from jobpipe.service.api import create_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.service.support import HashEmbedder, add_fetch_run, embed_jobs, insert_jobs


@pytest.fixture
def seeded(db: psycopg.Connection) -> dict[str, int]:
    """Fixture jobs with vectors of the active test model; returns external_id -> job_id."""
    ids = insert_jobs(db)
    embed_jobs(db, HashEmbedder())
    add_fetch_run(db, "demo", complete=True, days_ago=1)
    add_fetch_run(db, "board", complete=False)
    return ids


@pytest.fixture
def client(database: str, seeded: dict[str, int]) -> Iterator[TestClient]:
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    with TestClient(app) as c:
        yield c
