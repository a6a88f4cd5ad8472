"""The suite against a PostgreSQL jobpipe did not start, reached as a managed one is (issue 16.2).

TCP on 127.0.0.1 with SCRAM passwords (no unix socket at all), pgvector created beforehand by
the superuser, jobpipe connecting as an ordinary owner role (no superuser, no CREATEDB, no
CREATEROLE), Dagster's storage in its own database, and the query service on its own login,
which the administrator created and ``jobpipe db service-role --no-create`` grants. Runs the
store, search, service and whole-graph tests there (in one existing database:
JOBPIPE_TEST_DATABASE_URL; the service's tests log in as JOBPIPE_TEST_SERVICE_DATABASE_URL), then
``jobpipe run``, ``jobpipe db service-role`` and ``jobpipe serve`` as a deployment runs them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from jobpipe.config import PROJECT_ROOT
from jobpipe_tests.deploy import external_pg

pytestmark = pytest.mark.slow

SUITES = ["jobpipe_tests/store", "jobpipe_tests/search", "jobpipe_tests/service", "jobpipe_tests/test_pipeline_e2e.py"]
#: Tests that are about creating roles or databases, or about jobpipe's own embedded server: an
#: owner without CREATEROLE/CREATEDB cannot run them, by design (the rest of the file runs).
NEEDS_ADMIN = [
    "jobpipe_tests/service/test_login.py::test_the_embedded_default_sets_the_login_up_itself",
    "jobpipe_tests/service/test_login.py::test_a_login_with_memberships_is_refused",
    "jobpipe_tests/service/test_login.py::test_an_operator_created_login_is_only_granted",
    "jobpipe_tests/service/test_login.py::test_migrating_creates_no_role_and_grants_follow_new_migrations",
    "jobpipe_tests/service/test_login.py::test_a_database_that_ran_the_old_0006_stays_current_and_loses_the_global_grants",
    "jobpipe_tests/service/test_login.py::test_the_opt_in_step_prints_the_services_url",
]
#: Tests that still hand the app the owner's URL and rely on the embedded server swapping it for
#: the service's login (on any other server the service rightly refuses it), and the candidate
#: writes, which need a second login (the candidate writer) the administrator would create.
#: Not yet run here; test_jobpipe_run_as_the_owner_and_the_service_on_its_own_login below serves
#: over HTTP as the service's login instead.
OWNER_URL_WIRED = [
    "jobpipe_tests/service/test_api.py", "jobpipe_tests/service/test_understood_text.py",
    "jobpipe_tests/service/test_body_limit.py", "jobpipe_tests/service/test_fuzz.py",
    "jobpipe_tests/service/test_health_states.py", "jobpipe_tests/service/test_mcp.py",
    "jobpipe_tests/service/test_page_browser.py", "jobpipe_tests/service/test_safety.py",
    "jobpipe_tests/service/test_candidates_api.py",
    "jobpipe_tests/search/test_rerank.py::test_http_api_reranks_when_asked_and_says_so",
]


@pytest.fixture(scope="module")
def server() -> Iterator[external_pg.ExternalPostgres]:
    # Not under pytest's tmp dir: the server runs as another OS user, which must reach its data.
    root = Path(tempfile.mkdtemp(prefix="jobpipe-external-pg-"))
    pg = external_pg.start(root)
    try:
        external_pg.provision(pg)
        yield pg
    finally:
        pg.stop()
        subprocess.run(["rm", "-rf", str(root)], check=False)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JOBPIPE_", "DAGSTER_"))}
    env.update(extra)
    return env


def test_the_server_is_reached_as_a_managed_one(server):
    assert external_pg.hba_methods(server) == {"scram-sha-256"}
    with psycopg.connect(server.owner_url) as conn:
        row = conn.execute("SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user")
        assert row.fetchone() == (False, False, False)
        assert conn.execute("SELECT inet_server_addr()::text").fetchone()[0] == "127.0.0.1/32"
    with psycopg.connect(server.superuser_url) as conn:
        assert conn.execute("SHOW unix_socket_directories").fetchone()[0] == ""   # no socket to fall back on
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(server.url(server.owner, "wrong-password", server.database), connect_timeout=5).close()


def test_store_search_service_and_whole_graph_tests_pass_there(server, tmp_path):
    env = _env(JOBPIPE_TEST_DATABASE_URL=server.owner_url, JOBPIPE_TEST_SERVICE_DATABASE_URL=server.service_url,
               JOBPIPE_HOME=str(tmp_path / "home"))
    deselect = [arg for test in NEEDS_ADMIN + OWNER_URL_WIRED for arg in ("--deselect", test)]
    proc = subprocess.run([sys.executable, "-m", "pytest", *SUITES, *deselect, "-q", "-p", "no:cacheprovider"],
                          env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=2400)
    assert proc.returncode == 0, (proc.stdout[-6000:] + proc.stderr[-3000:])
    assert " passed" in proc.stdout.splitlines()[-1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobpipe.cli", *args], env=env, cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _get(url: str, timeout: float = 60) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_jobpipe_run_as_the_owner_and_the_service_on_its_own_login(server, tmp_path):
    home = str(tmp_path / "home")
    owner_env = _env(JOBPIPE_DATABASE_URL=server.owner_url, JOBPIPE_HOME=home)
    proc = _cli("run", "--json", env=owner_env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["ok"] and summary["totals"]["fetched"] > 0
    with psycopg.connect(server.dagster_url) as conn:   # Dagster's storage: its own database
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] >= len(summary["sources"])
    with psycopg.connect(server.owner_url) as conn:
        assert conn.execute("SELECT to_regclass('runs')").fetchone()[0] is None   # none of it in jobpipe's
        # migrating created no role on the server: only the administrator's and the built-in ones
        roles = {r[0] for r in conn.execute("SELECT rolname FROM pg_roles WHERE rolname NOT LIKE 'pg\\_%'")}
        assert roles == {"postgres", server.owner, server.service_login}

    # The owner may not create roles: the opt-in step says what to ask the administrator for.
    refused = _cli("db", "service-role", "--role", "jobpipe_test_reader2", env=owner_env)
    assert refused.returncode == 1 and "may not create roles" in refused.stderr, refused.stderr
    assert "CREATE ROLE" in refused.stderr and "--no-create" in refused.stderr
    # The administrator's login, granted by the pipeline's login.
    granted = _cli("db", "service-role", "--role", server.service_login, "--no-create", env=owner_env)
    assert granted.returncode == 0, granted.stderr
    (line,) = [x for x in granted.stdout.splitlines() if "JOBPIPE_SERVICE_DATABASE_URL=" in x]
    assert f"{server.service_login}@127.0.0.1:{server.port}/{server.database}" in line
    assert server.owner_password not in granted.stdout + granted.stderr

    # Pointed at the owner's login, the service refuses to start and names the step.
    port = _free_port()
    wrong = _cli("serve", "--port", str(port), env=_env(JOBPIPE_SERVICE_DATABASE_URL=server.owner_url, JOBPIPE_HOME=home))
    assert wrong.returncode == 1 and "jobpipe db service-role" in wrong.stderr, wrong.stderr[-2000:]

    service = subprocess.Popen(
        [sys.executable, "-m", "jobpipe.cli", "serve", "--port", str(port)],
        env=_env(JOBPIPE_SERVICE_DATABASE_URL=server.service_url, JOBPIPE_HOME=home),
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                health = _get(f"http://127.0.0.1:{port}/health", timeout=5)
                break
            except OSError as exc:
                if service.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(service.stdout.read().decode(errors="replace")[-3000:]
                                         if service.stdout else "") from exc
                time.sleep(0.5)
        assert health["database"]["role"] == server.service_login
        request = urllib.request.Request(f"http://127.0.0.1:{port}/search", method="POST",
                                         data=json.dumps({"query": "大模型 算法 实习", "top_k": 5}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            results = json.loads(response.read())["results"]
        assert results
    finally:
        service.terminate()
        try:
            service.wait(timeout=20)
        except subprocess.TimeoutExpired:
            service.kill()

    with psycopg.connect(server.service_url, autocommit=True) as conn:   # the service's login only reads
        assert conn.execute("SELECT count(*) FROM serving_jobs").fetchone()[0] > 0
        for statement in ("DELETE FROM jobs", "CREATE TABLE intruder (x int)", "CREATE TEMP TABLE intruder (x int)",
                          f"SET ROLE {server.owner}", "SELECT count(*) FROM raw_postings"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with pytest.raises(psycopg.OperationalError):   # and Dagster's database is not its to open
        psycopg.connect(server.url(server.service_login, server.service_password, server.database + "_dagster"),
                        connect_timeout=5).close()
