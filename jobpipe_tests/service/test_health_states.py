"""/health when things are missing or down (each test starts from an empty database)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from jobpipe.service.api import create_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.service.support import HashEmbedder


def test_health_is_degraded_without_an_active_model(database, db):
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    with TestClient(app) as c:
        body = c.get("/health").json()
    assert body["status"] == "degraded" and body["index"]["active_model"] is None
    assert body["embedder"]["matches_active_model"] is False


def test_health_reports_an_unreachable_database_as_503(db):
    app = create_app(ServiceSettings(pool_timeout_s=0.5),
                     database_url="postgresql://nobody@127.0.0.1:1/none?connect_timeout=1",
                     embedder=HashEmbedder())
    with TestClient(app) as c:
        response = c.get("/health")
    assert response.status_code == 503 and response.json()["database"]["ok"] is False


def test_queries_follow_the_active_model_when_the_configured_one_differs(database, db, monkeypatch):
    from jobpipe.embedding import TokenHashEmbedder
    from jobpipe.service.context import ServiceContext
    from jobpipe_tests.service.support import embed_jobs, insert_jobs

    insert_jobs(db)
    embed_jobs(db, TokenHashEmbedder(32))           # the pipeline's active model: token-hash-32
    monkeypatch.setenv("JOBPIPE_EMBEDDER", "local")
    monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "token-hash-16")
    ctx = ServiceContext(ServiceSettings(), database_url=database)
    try:
        assert ctx.embedder.model == "token-hash-32" and ctx.embedder.dims == 32
    finally:
        ctx.close()
