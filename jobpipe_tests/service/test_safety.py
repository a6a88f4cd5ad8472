"""Auth, bind rules, the read-only role and the statement timeout, against the real server and database."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import psycopg
import pytest
import uvicorn
from fastapi.testclient import TestClient

from jobpipe.service.api import create_app
from jobpipe.service.pool import connect_service
from jobpipe.service.server import serve
from jobpipe.service.settings import ServiceConfigError, ServiceSettings, check_bind, is_loopback
from jobpipe_tests.service.support import HashEmbedder

TOKEN = "test-token-3f9a"


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.5.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.10", False), ("example.com", False),
])
def test_loopback_detection(host, loopback):
    assert is_loopback(host) is loopback


def test_non_loopback_bind_requires_a_token():
    with pytest.raises(ServiceConfigError, match="JOBPIPE_API_TOKEN"):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", TOKEN)
    check_bind("127.0.0.1", None)


def test_serve_refuses_to_start_off_loopback_without_token(monkeypatch):
    monkeypatch.delenv("JOBPIPE_API_TOKEN", raising=False)
    with pytest.raises(ServiceConfigError, match="refusing to listen on '0.0.0.0'"):
        serve(host="0.0.0.0", port=1, database_url="postgresql:///unused", migrate=False)


def test_token_is_enforced_on_every_data_endpoint(database, seeded):
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder(), token=TOKEN)
    with TestClient(app) as c:
        assert c.get("/openapi.json").status_code == 200   # the contract is public, the data is not
        for method, path, body in [("GET", "/health", None), ("POST", "/search", {"query": "python"}),
                                   ("GET", f"/jobs/{seeded['py-bj']}", None),
                                   ("POST", "/match", {"resume_text": "python"})]:
            assert c.request(method, path, json=body).status_code == 401
            wrong = c.request(method, path, json=body, headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
            right = c.request(method, path, json=body, headers={"Authorization": f"Bearer {TOKEN}"})
            assert right.status_code == 200, right.text
        doc = c.get("/openapi.json").json()
        assert "HTTPBearer" in doc["components"]["securitySchemes"]


def test_token_from_environment(monkeypatch, database, seeded):
    monkeypatch.setenv("JOBPIPE_API_TOKEN", TOKEN)
    app = create_app(database_url=database, embedder=HashEmbedder())
    with TestClient(app) as c:
        assert c.get("/health").status_code == 401
        assert c.get("/health", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_real_http_server_on_loopback(database, seeded):
    port = _free_port()
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder(), token=TOKEN)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10.0) as http:
            assert http.post("/search", json={"query": "python"}).status_code == 401
            response = http.post("/search", json={"query": "python 后端", "city": "Beijing"},
                                 headers={"Authorization": f"Bearer {TOKEN}"})
            assert response.status_code == 200
            assert seeded["py-bj"] in [r["job_id"] for r in response.json()["results"]]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_service_transactions_are_read_only_by_default(service_database, seeded):
    with connect_service(service_database, ServiceSettings()) as conn:
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
        with pytest.raises((psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.InsufficientPrivilege)):
            conn.execute("UPDATE jobs SET title = 'pwned'")
        conn.rollback()


def test_statement_timeout_cancels_slow_queries(database):
    with connect_service(database, ServiceSettings(statement_timeout_ms=150)) as conn:   # the embedded default
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "150ms"
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("SELECT pg_sleep(2)")
        assert time.monotonic() - started < 1.5
        conn.rollback()
    with connect_service(database, ServiceSettings()) as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "2s"


def test_a_search_cut_by_the_statement_timeout_answers_503_and_the_service_recovers(database, seeded, monkeypatch):
    import jobpipe.service.context as context_module  # where the service looks search up

    real_search = context_module.search
    slow = {"on": True}

    def search_that_runs_long(conn, *args, **kwargs):
        if slow["on"]:   # a query the database takes too long over (real server, real timeout)
            conn.execute("SELECT pg_sleep(2)")
        return real_search(conn, *args, **kwargs)

    monkeypatch.setattr(context_module, "search", search_that_runs_long)
    app = create_app(ServiceSettings(statement_timeout_ms=100), database_url=database, embedder=HashEmbedder())
    with TestClient(app) as client:
        started = time.monotonic()
        response = client.post("/search", json={"query": "后端 Go"})
        assert response.status_code == 503 and time.monotonic() - started < 1.5
        assert "statement timeout" in response.json()["detail"]
        slow["on"] = False   # the pooled connection that timed out serves the next request
        again = client.post("/search", json={"query": "后端 Go"})
        assert again.status_code == 200 and again.json()["results"]
