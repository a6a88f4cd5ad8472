"""The command line's own manners: a version, one clear line for a bad database URL, a clean MCP stdout."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess

import pytest

from jobpipe import __version__
from jobpipe.cli import main
from jobpipe.config import PROJECT_ROOT
from jobpipe.demo import DemoServer


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"jobpipe {__version__}"
    assert __version__[0].isdigit()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://someone:s3cret@127.0.0.1:1/jobpipe", "Connection refused"),
        ("not-a-url", "connection info"),
    ],
)
def test_wrong_database_url_is_one_line(url: str, expected: str, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("JOBPIPE_DATABASE_URL", url)
    code = main(["jobs", "show", "any-source", "1"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("jobpipe: cannot use the database (JOBPIPE_DATABASE_URL=")
    assert expected in err
    assert "s3cret" not in err          # the password is never printed
    assert "Traceback" not in err


def test_demo_server_falls_back_when_its_port_is_taken() -> None:
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    try:
        with pytest.raises(OSError):
            DemoServer(port=taken).start()
        server = DemoServer(port=taken).start(fallback_to_free_port=True)
        try:
            assert server.moved and not server.url.endswith(f":{taken}")
        finally:
            server.stop()
    finally:
        blocker.close()
    # Free again: the asked-for port is used, so a second run finds its conditional-request cache.
    server = DemoServer(port=taken).start(fallback_to_free_port=True)
    try:
        assert not server.moved and server.url.endswith(f":{taken}")
    finally:
        server.stop()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_mcp_stdout_carries_only_the_protocol(database: str) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "test", "version": "0"}}}
    env = {**os.environ, "JOBPIPE_DATABASE_URL": database}
    proc = subprocess.run(["make", "--no-print-directory", "mcp"], cwd=PROJECT_ROOT, env=env,
                          input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=120)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines, f"no answer on stdout; stderr: {proc.stderr[-2000:]}"
    for line in lines:
        message = json.loads(line)          # anything else (an echoed command, a log line) fails here
        assert message["jsonrpc"] == "2.0"
    assert lines and json.loads(lines[0])["id"] == 1


def test_the_bundled_demo_checks_and_reports_outside_a_run(db, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """After `make run` the demo's boards are gone, and so is the address its sources file names:
    `jobpipe sources check` and `jobpipe status` still read it (names and settings only)."""
    from jobpipe.config import DEMO_SOURCES_FILE
    from jobpipe.demo import DEMO_URL_ENV

    monkeypatch.delenv("JOBPIPE_SOURCES", raising=False)
    monkeypatch.setenv(DEMO_URL_ENV, "")    # unset as after a run; restored (unset) after the test
    assert main(["sources", "check"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed and all(": " in line for line in listed)
    code = main(["status", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and {r["source"] for r in report["sources"]} == {line.split(":")[0] for line in listed}
    assert all("never" in r["failing"]["sources_fresh"] for r in report["sources"])   # never run here
    assert main(["sources", "check", str(DEMO_SOURCES_FILE)]) == 0
