"""A jobpipe home with history for the browser test: a database of its own, a local board
server, several days fetched, one source failing, and ``jobpipe ui`` serving it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from jobpipe.config import PROJECT_ROOT
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture

GOOD, BROKEN = "acme-gh", "broken-gh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Home:
    path: Path
    env: dict[str, str]
    server: FixtureServer
    days: list[date]          # the days with a snapshot of GOOD, oldest first (today last)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def graphql(self, query: str, variables: dict | None = None, timeout: float = 60) -> dict:
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(self.url + "/graphql", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read())
        if data.get("errors"):
            raise RuntimeError(data["errors"])
        return data["data"]


def board_server() -> FixtureServer:
    server = FixtureServer()
    server.route("/v1/boards/acme/jobs?content=true&pay_transparency=true", Reply(body=fixture("greenhouse_jobs.json")))
    server.route("/v1/boards/broken/jobs?content=true&pay_transparency=true",
                 Reply(status=500, body=b"upstream exploded", content_type="text/plain"))
    return server.start()


def build_history(path: Path, database: str, server: FixtureServer, days_back: int = 4) -> Home:
    """Fetch GOOD for ``days_back`` past days and today, BROKEN today (it fails), run the graph."""
    from jobpipe.cli import main
    from jobpipe.db import connect
    from jobpipe.sources import load_sources, run_source
    from jobpipe.sources.errors import SourceFetchError

    path.mkdir(parents=True, exist_ok=True)
    (path / "resumes").mkdir(exist_ok=True)
    sources = path / "sources.yaml"
    sources.write_text(
        "sources:\n"
        f"  - {{name: {GOOD}, kind: greenhouse, board: acme, base_url: '{server.base}', rate_limit: 100}}\n"
        f"  - {{name: {BROKEN}, kind: greenhouse, board: broken, base_url: '{server.base}', rate_limit: 100}}\n",
        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "JOBPIPE_PARTITIONS_START")}
    env.update(JOBPIPE_DATABASE_URL=database, JOBPIPE_HOME=str(path / "home"), JOBPIPE_SOURCES=str(sources),
               JOBPIPE_EMBEDDING_MODEL="token-hash-64", JOBPIPE_CANDIDATES=str(path / "resumes"),
               JOBPIPE_STEP_RETRIES="0", JOBPIPE_EXECUTOR="in_process")   # the runs, not the executor, are tested
    today = date.today()
    days = [today - timedelta(days=n) for n in range(days_back, 0, -1)]
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        configs = {c.name: c for c in load_sources(sources)}
        with connect(database) as conn:
            for day in days:                 # the nights before: fetched then (recorded as that day)
                run_source(conn, configs[GOOD], day)
                try:
                    run_source(conn, configs[BROKEN], day)
                except SourceFetchError:
                    pass
        for day in days:                     # each past day through the graph, replayed
            main(["run", "--date", day.isoformat(), "--json"])
        main(["run", "--json"])              # tonight: GOOD fetched, BROKEN fails with its HTTP error
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Home(path, env, server, days + [today])


@contextmanager
def dagster_ui(home: Home, timeout: float = 240) -> Iterator[Home]:
    """``jobpipe ui`` (webserver + daemon) on a free port until the code location has loaded."""
    home.port = free_port()
    log = open(home.path / "ui.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "jobpipe.cli", "ui", "--port", str(home.port)], env=home.env,
                            cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"jobpipe ui exited ({proc.returncode}): {(home.path / 'ui.log').read_text()[-2000:]}")
            try:
                data = home.graphql("{ workspaceOrError { ... on Workspace { locationEntries { "
                                    "locationOrLoadError { __typename ... on PythonError { message } } } } } }", timeout=10)
                entries = data["workspaceOrError"]["locationEntries"]
                if entries and entries[0]["locationOrLoadError"]["__typename"] == "RepositoryLocation":
                    break
                if entries and entries[0]["locationOrLoadError"]["__typename"] == "PythonError":
                    raise RuntimeError(entries[0]["locationOrLoadError"]["message"])
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"jobpipe ui not ready in {timeout:.0f} s: {(home.path / 'ui.log').read_text()[-2000:]}")
            time.sleep(1)
        yield home
    finally:
        os.killpg(proc.pid, signal.SIGTERM)       # jobpipe ui stops its process group on SIGTERM
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
