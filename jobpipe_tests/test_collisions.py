"""Runs that cannot collide: stage locks per source and per whole-store stage, one `jobpipe run` per
home, one embedded-server start at a time, term workers that die with their parent, dead CLI runs
marked failed. Real database, real processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from datetime import date
from pathlib import Path

import psycopg
import pytest

from jobpipe.db import connect
from jobpipe.filelock import HomeBusy, exclusive
from jobpipe.pipeline import StageBusyError, embed_jobs, fetch_day
from jobpipe.store.locks import StageBusy, stage_lock
from jobpipe_tests.sources.helpers import make_config

ROOT = Path(__file__).resolve().parents[1]


def test_a_held_source_lock_stops_a_second_run_naming_the_holder(database):
    with connect(database) as a, connect(database) as b:
        with stage_lock(a, "source:acme", stage="curate", run_id="run-1234"):
            with pytest.raises(StageBusy) as info:
                with stage_lock(b, "source:acme", stage="fetch"):
                    pass
            message = str(info.value)
            assert "source acme is busy: curate of run run-1234" in message
            assert f"pid {os.getpid()} on {socket.gethostname()}" in message and "since" in message
            with stage_lock(b, "source:other", stage="fetch"):   # other sources are free
                pass
        with stage_lock(b, "source:acme", stage="fetch"):        # released: the next run gets it
            pass


def test_a_crashed_holder_leaves_no_stale_lock(database):
    a = connect(database)
    with connect(database) as b:
        lock = stage_lock(a, "embeddings", stage="embed", run_id="run-dead")
        lock.__enter__()
        a.close()   # the holder's session ends (a killed process) without releasing
        deadline = time.monotonic() + 5
        while True:
            try:
                with stage_lock(b, "embeddings", stage="embed"):
                    break
            except StageBusy:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def test_fetch_of_a_busy_source_changes_nothing(database, db):
    config = make_config("busy-src", "greenhouse", board="x", base_url="http://127.0.0.1:9")
    with connect(database) as holder_conn:
        with stage_lock(holder_conn, "source:busy-src", stage="curate", run_id="run-9"):
            with pytest.raises(StageBusyError, match="source busy-src is busy: curate of run run-9"):
                fetch_day(db, config, date.today(), run_id="run-10")
    assert db.execute("SELECT count(*) FROM fetch_runs WHERE source = 'busy-src'").fetchone()[0] == 0


def test_two_embedding_runs_at_once_never_embed_twice(database, db):
    from jobpipe_tests.service.support import HashEmbedder, insert_jobs

    insert_jobs(db)
    gate = threading.Event()

    class SlowEmbedder(HashEmbedder):
        def embed_documents(self, texts):
            gate.wait(10)
            return super().embed_documents(texts)

    results: dict[str, object] = {}

    def run(name: str) -> None:
        with connect(database) as conn:
            try:
                results[name] = embed_jobs(conn, SlowEmbedder())
            except StageBusyError as exc:
                results[name] = exc

    first = threading.Thread(target=run, args=("first",))
    first.start()
    time.sleep(1.0)   # the first run holds the embeddings lock, waiting in its embedder
    run("second")
    gate.set()
    first.join(30)
    assert isinstance(results["second"], StageBusyError) and "embeddings is busy" in str(results["second"])
    open_jobs = db.execute("SELECT count(*) FROM jobs WHERE closed_at IS NULL").fetchone()[0]
    assert results["first"].embedded == open_jobs > 0   # every open job once, by the one run that held the lock
    assert db.execute("SELECT count(*), count(DISTINCT job_id) FROM job_embeddings").fetchone() == (open_jobs,) * 2


def test_a_second_jobpipe_run_on_one_home_exits_at_once(tmp_path, monkeypatch, capsys):
    from jobpipe.cli import main

    monkeypatch.setenv("JOBPIPE_HOME", str(tmp_path))
    with exclusive(tmp_path / "run.lock", what="jobpipe run", wait=0):
        started = time.monotonic()
        assert main(["run"]) == 3
        assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pid {os.getpid()}" in err and "jobpipe run is already running" in err
    with pytest.raises(HomeBusy):   # and the lock really is exclusive
        with exclusive(tmp_path / "run.lock", what="jobpipe run", wait=0):
            with exclusive(tmp_path / "run.lock", what="jobpipe run", wait=0):
                pass


_POOL_PARENT = textwrap.dedent("""
    import sys, time
    from jobpipe.store.terms import worker_pool

    def sleep_and_report(_):
        import os
        time.sleep(60)
        return os.getpid()

    if __name__ == "__main__":
        with worker_pool(2) as pool:
            futures = [pool.submit(sleep_and_report, i) for i in range(2)]
            time.sleep(3)
            print(" ".join(str(p) for p in pool._processes), flush=True)
            time.sleep(60)
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_term_workers_die_with_their_parent(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(_POOL_PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], cwd=str(ROOT), stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(p) for p in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), "term workers outlived their killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_dead_cli_runs_dagster_run_is_marked_failed():
    from dagster import DagsterInstance, DagsterRunStatus

    from jobpipe.orchestration.runs import mark_dead_runs_failed, process_tags

    instance = DagsterInstance.ephemeral()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    tags_dead = {**process_tags(), "jobpipe/pid": str(dead.pid)}
    instance.add_run(_run("dead-run", tags_dead))
    instance.add_run(_run("live-run", process_tags()))
    failed = mark_dead_runs_failed(instance)
    assert failed == ["dead-run"]
    assert instance.get_run_by_id("dead-run").status == DagsterRunStatus.FAILURE
    assert instance.get_run_by_id("live-run").status == DagsterRunStatus.STARTED


def _run(run_id: str, tags: dict[str, str]):
    from dagster._core.storage.dagster_run import DagsterRun, DagsterRunStatus

    return DagsterRun(job_name="__ASSET_JOB", run_id=run_id, tags=tags, status=DagsterRunStatus.STARTED)


@pytest.mark.slow
def test_two_processes_starting_one_fresh_embedded_server_both_succeed(tmp_path):
    env = {**os.environ, "JOBPIPE_HOME": str(tmp_path / "home")}
    env.pop("JOBPIPE_DATABASE_URL", None)
    procs = [subprocess.Popen([sys.executable, "-m", "jobpipe.cli", "db", "start"], cwd=str(ROOT), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        outs = [p.communicate(timeout=300) for p in procs]
        for proc, (out, err) in zip(procs, outs):
            assert proc.returncode == 0 and "Traceback" not in err, err[-2000:]
            assert out.startswith("database ready")
    finally:
        subprocess.run([sys.executable, "-m", "jobpipe.cli", "db", "stop"], cwd=str(ROOT), env=env,
                       capture_output=True, timeout=120)
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(outs[0][0].split(": ", 1)[1].strip(), connect_timeout=3)


class _GatedBoard:
    """A Greenhouse board whose listing is answered only once ``gate`` is set (a slow night)."""

    def __init__(self) -> None:
        import json
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.gate = threading.Event()
        self.asked = threading.Event()
        board = (ROOT / "jobpipe_tests" / "sources" / "fixtures" / "greenhouse_jobs.json").read_bytes()
        robots = b"User-agent: *\nAllow: /\n"
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body, kind = (robots, "text/plain") if self.path == "/robots.txt" else (board, "application/json")
                if self.path.startswith("/v1/boards/"):
                    outer.asked.set()
                    outer.gate.wait(120)
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.jobs = len(json.loads(board)["jobs"])
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _jobpipe_run(env: dict[str, str], sources: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "jobpipe.cli", "run", "--sources", str(sources)], cwd=str(ROOT),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_real_runs_of_one_source_at_once(database, tmp_path):
    """Two `jobpipe run` processes on one database (two homes: a CLI run and, say, a backfill):
    the second stops at once on the busy source with one line naming the first run, no traceback;
    the first finishes; every posting is stored and embedded once. A third `jobpipe run` on the
    first's home exits at once naming the first's pid."""
    board = _GatedBoard()
    sources = tmp_path / "sources.yaml"
    name = f"gated-{os.getpid()}"
    sources.write_text(f"sources:\n  - {{name: {name}, kind: greenhouse, board: gated, base_url: \"{board.url}\", "
                       "rate_limit: 100}\n", encoding="utf-8")
    env = {**os.environ, "JOBPIPE_DATABASE_URL": database, "JOBPIPE_HOME": str(tmp_path / "home-a")}
    env.pop("DAGSTER_HOME", None)
    first = _jobpipe_run(env, sources)
    try:
        assert board.asked.wait(180), "the first run never asked for the listing"
        second = subprocess.run([sys.executable, "-m", "jobpipe.cli", "run", "--sources", str(sources)],
                                cwd=str(ROOT), env={**env, "JOBPIPE_HOME": str(tmp_path / "home-b")},
                                capture_output=True, text=True, timeout=300)
        third = subprocess.run([sys.executable, "-m", "jobpipe.cli", "run", "--sources", str(sources)],
                               cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120)
        board.gate.set()
        out, err = first.communicate(timeout=300)
    finally:
        board.stop()
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err[-3000:]
    assert second.returncode == 1 and "Traceback" not in second.stderr + second.stdout, second.stderr[-3000:]
    busy = [line for line in second.stdout.splitlines() if f"source {name} is busy" in line]
    assert len(busy) == 1, second.stdout
    assert f"pid {first.pid} on {socket.gethostname()}" in busy[0] and "of run " in busy[0]
    assert third.returncode == 3 and third.stdout == "" and third.stderr.count("\n") == 1
    assert f"pid {first.pid}" in third.stderr and "jobpipe run is already running" in third.stderr
    with connect(database) as conn:
        jobs = conn.execute("SELECT count(*) FROM jobs WHERE source = %s", (name,)).fetchone()[0]
        vectors = conn.execute("SELECT count(*), count(DISTINCT e.job_id) FROM job_embeddings e "
                               "JOIN jobs j USING (job_id) WHERE j.source = %s", (name,)).fetchone()
        fetches = conn.execute("SELECT count(*) FROM fetch_runs WHERE source = %s", (name,)).fetchone()[0]
    assert jobs == board.jobs and vectors == (jobs, jobs) and fetches == 1


def test_every_instance_jobpipe_ships_monitors_runs(database, tmp_path, monkeypatch):
    """Run monitoring (a run whose process died is failed, not left STARTED) is on in the default
    instance (`jobpipe run`, `jobpipe ui`) and in the deployment's."""

    import yaml
    from dagster import DagsterInstance

    from jobpipe.config import get_settings
    from jobpipe.orchestration.instance import prepare_dagster_home

    for name in ("DAGSTER_HOME", "JOBPIPE_DAGSTER_STORAGE_URL"):   # prepare_dagster_home sets them: restored after
        monkeypatch.setenv(name, os.environ.get(name, ""))
    prepare_dagster_home(get_settings().replace(database_url=database, dagster_database_url=None, home=tmp_path))
    with DagsterInstance.get() as instance:
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_max_resume_run_attempts == 0   # the default launcher cannot resume
    deployed = yaml.safe_load((ROOT / "deploy" / "dagster.yaml").read_text())
    assert deployed["run_monitoring"]["enabled"] is True
