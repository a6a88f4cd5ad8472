"""A database stopped in the middle of `jobpipe run`: one clear line, no traceback, a loud exit.
Its own embedded server (stopping the suite's would stop every other test)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jobpipe_tests.test_collisions import ROOT, _GatedBoard, _jobpipe_run

pytestmark = pytest.mark.slow


def test_a_database_stopped_mid_run_is_one_clear_line(tmp_path):
    env = {**os.environ, "JOBPIPE_HOME": str(tmp_path / "home")}
    env.pop("JOBPIPE_DATABASE_URL", None)
    env.pop("DAGSTER_HOME", None)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jobpipe.cli", *args], cwd=str(ROOT), env=env,
                              capture_output=True, text=True, timeout=300)

    started = cli("db", "start")
    assert started.returncode == 0, started.stderr[-3000:]
    board = _GatedBoard()
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - {{name: gated, kind: greenhouse, board: gated, base_url: \"{board.url}\", "
                       "rate_limit: 100}\n", encoding="utf-8")
    run = _jobpipe_run(env, sources)
    try:
        assert board.asked.wait(180), "the run never asked for the listing"
        assert cli("db", "stop").returncode == 0   # the database goes away while the source is fetched
        board.gate.set()
        out, err = run.communicate(timeout=300)
    finally:
        board.stop()
        if run.poll() is None:
            run.kill()
        cli("db", "stop")
    assert run.returncode == 4, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err and "Retrying" not in err and "Exception while writing" not in err, err[-3000:]
    assert lines[-1].startswith("jobpipe: the database is not answering (")
    assert lines[-1].endswith("Start it (`jobpipe db start` for the embedded one) and run again: a rerun repairs "
                              "what an interrupted run left.")
    assert out == ""
