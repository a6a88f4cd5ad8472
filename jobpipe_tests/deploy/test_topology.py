"""The production topology, each part its own process, running the nightly schedule (issue 16.1).

Started here, as a deployment runs them: Redis (Debian's ``redis-server``) as the Celery broker,
a gRPC code server (``dagster api grpc``) that the webserver and the daemon reach through
``deploy/workspace.yaml``, ``dagster-webserver``, ``dagster-daemon`` with the
QueuedRunCoordinator of ``deploy/dagster.yaml``, and two Celery workers
(``dagster-celery worker start``) that execute every step (``JOBPIPE_EXECUTOR=celery``).

The real ``nightly_ingest`` schedule is run by the daemon itself (its time of day set to two
minutes after the test starts):
it requests one run per source (23 sources: the demo's boards, mirrors of them, one missing
board), the daemon dequeues them, the code server starts their run workers, their steps go
through Redis to the workers; the automation sensor then runs the downstream stages. The tables
must end equal to those of ``jobpipe run`` (``run_pipeline``) on the same sources and day.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
import pytest
import yaml

from jobpipe.config import DEMO_SOURCES_FILE, PROJECT_ROOT, get_settings
from jobpipe.db import dagster_storage_url, migrate, with_database
from jobpipe.db.connection import database_name
from jobpipe_tests.deploy.tables import differences, empty_tables, snapshot

pytestmark = pytest.mark.slow

DEPLOY = PROJECT_ROOT / "deploy"
BIN = Path(sys.executable).parent


def _unsettled(instance, last_ingest: float) -> list[str]:
    """The unpartitioned assets not yet materialized after everything they depend on.

    "Each downstream asset materialized once since the source runs" is not enough: the automation
    sensor may run candidate_matches before job_embeddings has started (nothing upstream in
    progress yet), and then again after it; comparing tables between the two passes sees no matches.
    """
    from jobpipe.orchestration.definitions import defs

    graph = defs.resolve_asset_graph()
    keys = [k for k in graph.get_all_asset_keys() if not graph.get(k).is_partitioned]
    latest = {}
    for key in keys:
        event = instance.get_latest_materialization_event(key)
        latest[key] = event.timestamp if event is not None else None
    waiting = []
    for key in keys:
        parents = graph.get(key).parent_keys
        after = [last_ingest if graph.get(p).is_partitioned else latest.get(p) for p in parents]   # roots: exist
        if latest[key] is None or any(t is None or latest[key] <= t for t in after):
            waiting.append(key.to_user_string())
    return sorted(waiting)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise AssertionError(f"{what} did not listen on {port} within {timeout:.0f} s")


def _quiet_timezone(now: datetime) -> str:
    """An Etc/GMT zone where it is about noon on the same date as in UTC: the scheduled day can
    neither roll over mid-test nor differ from the date this process (UTC) computes."""
    offset = 12 - now.hour          # -11 .. +12, local time = 12:xx
    # POSIX-style names: Etc/GMT-8 is UTC+8.
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


class Topology:
    """The processes of one deployment; stops what it started (by process group) at the end."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root, self.env = root, env
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, *cmd: str) -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "wb")
        proc = subprocess.Popen(list(cmd), env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs.append((name, proc))
        return proc

    def stop(self, name: str) -> None:
        for label, proc in self.procs:
            if label == name:
                _stop(proc)

    def logs(self, tail: int = 4000) -> str:
        out = []
        for name, _ in self.procs:
            text = (self.root / f"{name}.log").read_bytes().decode(errors="replace")
            out.append(f"----- {name} (last {tail} chars)\n{text[-tail:]}")
        return "\n".join(out)

    def close(self) -> None:
        for _, proc in reversed(self.procs):
            _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    for sig, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue


def _sources_file(path: Path) -> int:
    """The demo's sources, mirrors of the first nine under other names, and one missing board."""
    demo = yaml.safe_load(DEMO_SOURCES_FILE.read_text(encoding="utf-8"))["sources"]
    mirrors = [{**s, "name": s["name"] + "-mirror"} for s in demo[:9]]
    missing = {"name": "missing-board", "kind": "greenhouse", "board": "does-not-exist",
               "base_url": "${JOBPIPE_DEMO_URL}", "rate_limit": 200}
    sources = demo + mirrors + [missing]
    path.write_text(yaml.safe_dump({"sources": sources}, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return len(sources)


@pytest.fixture
def reference_database(database: str) -> Iterator[str]:
    if os.environ.get("JOBPIPE_TEST_DATABASE_URL"):
        pytest.skip("JOBPIPE_TEST_DATABASE_URL: the topology test needs a second database to compare with")
    name = f"jobpipe_test_reference_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database, name)
    migrate(url)
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for db in (name, name + "_dagster"):
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def _graphql(port: int, query: str) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=json.dumps({"query": query}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_nightly_schedule_runs_through_the_production_topology(database, reference_database, tmp_path,
                                                                 monkeypatch):
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        pytest.skip("redis-server is not installed (make test installs Debian's redis-server)")
    pytest.importorskip("dagster_celery", reason="dagster-celery is not installed (make install)")
    from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

    from jobpipe.demo import DemoServer

    with psycopg.connect(database) as conn:
        empty_tables(conn)
    n_sources = _sources_file(tmp_path / "sources.yaml")
    zone = _quiet_timezone(datetime.now(timezone.utc))
    # The nightly schedule as deployed, its time of day set to a minute from now: the daemon
    # launches exactly one tick, the same way it does every night.
    at = (datetime.now(ZoneInfo(zone)) + timedelta(seconds=105)).replace(second=0, microsecond=0)
    cron = f"{at.minute} {at.hour} * * *"
    day = datetime.now(ZoneInfo(zone)).date()
    assert day == datetime.now(timezone.utc).date()
    dagster_home = tmp_path / "dagster_home"
    dagster_home.mkdir()
    shutil.copyfile(DEPLOY / "dagster.yaml", dagster_home / "dagster.yaml")
    # Dagster's storage of its own: the suite's instance (<database>_dagster) holds other tests' runs.
    dagster_database = with_database(database, f"jobpipe_test_topology_{uuid.uuid4().hex[:8]}_dagster")
    storage = dagster_storage_url(get_settings().replace(database_url=database, dagster_database_url=dagster_database))
    grpc_port, web_port, redis_port = _free_port(), _free_port(), _free_port()

    demo = DemoServer().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JOBPIPE_", "DAGSTER_"))}
    env.update({
        "DAGSTER_HOME": str(dagster_home), "JOBPIPE_DAGSTER_STORAGE_URL": storage,
        "JOBPIPE_DAGSTER_DATABASE_URL": dagster_database,
        "JOBPIPE_DATABASE_URL": database, "JOBPIPE_HOME": str(tmp_path / "home"),
        "JOBPIPE_SOURCES": str(tmp_path / "sources.yaml"), "JOBPIPE_DEMO_URL": demo.url,
        "JOBPIPE_EXECUTOR": "celery", "JOBPIPE_CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "JOBPIPE_SCHEDULE_CRON": cron, "JOBPIPE_SCHEDULE_TIMEZONE": zone,
        "JOBPIPE_CODE_SERVER_HOST": "127.0.0.1", "JOBPIPE_CODE_SERVER_PORT": str(grpc_port),
        "PYTHONUNBUFFERED": "1", "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    })
    topology = Topology(tmp_path, env)
    monkeypatch.setenv("JOBPIPE_DAGSTER_STORAGE_URL", storage)
    instance = None
    try:
        redis = topology.start("redis", redis_server, "--port", str(redis_port), "--bind", "127.0.0.1",
                               "--save", "", "--appendonly", "no")
        _wait_for_port(redis_port, redis, "redis-server")
        code = topology.start("code-server", str(BIN / "dagster"), "api", "grpc", "-m",
                              "jobpipe.orchestration.definitions", "-a", "defs", "-h", "127.0.0.1",
                              "-p", str(grpc_port), "--location-name", "jobpipe")
        _wait_for_port(grpc_port, code, "the gRPC code server")
        for worker in ("worker1", "worker2"):
            topology.start(worker, str(BIN / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app",
                           "-y", str(DEPLOY / "celery.yaml"), "-n", worker, "--", "--concurrency=1")
        web = topology.start("webserver", str(BIN / "dagster-webserver"), "-w", str(DEPLOY / "workspace.yaml"),
                             "-h", "127.0.0.1", "-p", str(web_port))
        _wait_for_port(web_port, web, "dagster-webserver")
        topology.start("daemon", str(BIN / "dagster-daemon"), "run", "-w", str(DEPLOY / "workspace.yaml"))

        instance = DagsterInstance.from_config(str(dagster_home))
        # 1. the daemon's scheduler requests one run per source; all but the missing board succeed
        # (generous deadlines: a loaded 2-core machine is several times slower than a quiet one)
        deadline = time.monotonic() + 1200
        while True:
            runs = instance.get_runs(RunsFilter(job_name="ingest_job"))
            done = [r for r in runs if r.status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE)]
            if len(runs) >= n_sources and len(done) == len(runs):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"{len(done)}/{len(runs)} of {n_sources} source runs finished in time\n{topology.logs()}")
            time.sleep(3)
        by_source = {r.tags["jobpipe/source"]: r for r in runs}
        described = "\n".join(f"{r.run_id[:8]} {r.status.value} {r.tags}" for r in runs)
        # one run each, no duplicate ticks
        assert len(runs) == n_sources and len(by_source) == n_sources, f"{described}\n{topology.logs()}"
        assert all(r.tags.get("dagster/schedule_name") == "nightly_ingest" for r in runs)
        assert {r.tags["dagster/partition/date"] for r in runs} == {day.isoformat()}
        failed = {name for name, r in by_source.items() if r.status == DagsterRunStatus.FAILURE}
        assert failed == {"missing-board"}, f"{failed}\n{topology.logs()}"
        last_ingest = max(instance.get_run_record_by_id(r.run_id).end_time for r in runs)

        # 2. the automation sensor runs the downstream stages after the source runs have landed,
        # each after everything it depends on
        deadline = time.monotonic() + 900
        while waiting := _unsettled(instance, last_ingest):
            if time.monotonic() > deadline:
                pytest.fail(f"not materialized after their upstream assets: {waiting}\n{topology.logs()}")
            time.sleep(3)

        # 3. every step ran on the Celery workers, spread over both
        workers = set()
        for r in runs[:8]:
            for entry in instance.all_logs(r.run_id):
                event = entry.dagster_event
                if event is not None and event.is_engine_event and "in celery worker" in (event.message or ""):
                    metadata = event.engine_event_data.metadata
                    workers |= {str(getattr(v, "text", v)) for k, v in metadata.items() if k == "Celery worker"}
        assert {w.split("@")[0] for w in workers} == {"worker1", "worker2"}, workers

        # 4. the webserver serves the same deployment (through the code server)
        answer = _graphql(web_port, "{ repositoriesOrError { ... on RepositoryConnection { nodes { name "
                                    "location { name } schedules { name scheduleState { status } } } } } }")
        nodes = answer["data"]["repositoriesOrError"]["nodes"]
        schedules = {s["name"]: s["scheduleState"]["status"] for n in nodes for s in n["schedules"]}
        assert schedules.get("nightly_ingest") == "RUNNING" and nodes[0]["location"]["name"] == "jobpipe"

        # 5. quiesce: no new runs, wait for in-flight ones
        topology.stop("daemon")
        deadline = time.monotonic() + 300
        while instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.QUEUED, DagsterRunStatus.STARTING,
                                                     DagsterRunStatus.STARTED, DagsterRunStatus.NOT_STARTED])):
            if time.monotonic() > deadline:
                pytest.fail(f"runs still in flight after the daemon stopped\n{topology.logs()}")
            time.sleep(2)
    finally:
        if instance is not None:
            instance.dispose()
        topology.close()
        with psycopg.connect(with_database(database, "postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database_name(dagster_database)}" WITH (FORCE)')

    # 6. the same sources and day through `jobpipe run`, into the reference database
    cli_env = {k: v for k, v in env.items() if not k.startswith(("JOBPIPE_EXECUTOR", "JOBPIPE_CELERY", "DAGSTER_"))}
    cli_env.update(JOBPIPE_DATABASE_URL=reference_database, JOBPIPE_HOME=str(tmp_path / "cli_home"))
    cli_env.pop("JOBPIPE_DAGSTER_STORAGE_URL", None)
    cli_env.pop("JOBPIPE_DAGSTER_DATABASE_URL", None)
    try:
        proc = subprocess.run([sys.executable, "-m", "jobpipe.cli", "run", "--date", day.isoformat(), "--json"],
                              env=cli_env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900)
    finally:
        demo.stop()
    assert proc.returncode == 1, proc.stderr[-3000:]          # non-zero: the missing board failed
    summary = json.loads(proc.stdout)
    assert {name for name, s in summary["sources"].items() if not s["ok"]} == {"missing-board"}

    through_topology, through_cli = snapshot(database), snapshot(reference_database)
    assert len(through_topology["jobs"]) >= 300 and len(through_topology["job_embeddings"]) >= 300
    problems = differences(through_topology, through_cli)
    assert not problems, "\n".join(problems)
