"""Dagster runs whose process died are marked failed, not left STARTED forever.

Runs launched by the daemon or the UI run in a code server's subprocess; the code server marks
them failed when that process dies, and run monitoring (``dagster.yaml``) fails runs stuck
starting or cancelling. ``jobpipe run`` executes its runs in its own process instead, where
nothing watches them: each is tagged with the process (pid, host, start time), and the next
``jobpipe run`` or ``jobpipe ui`` on the host marks those whose process is gone as failed.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from dagster import DagsterRunStatus, RunsFilter

PID_TAG = "jobpipe/pid"
HOST_TAG = "jobpipe/host"
START_TAG = "jobpipe/process_start"


def _process_start(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (clock ticks since boot), to tell a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None   # a zombie: dead, only not reaped yet
    return fields[19]


def process_tags() -> dict[str, str]:
    """Tags naming this process, for the runs it executes in-process."""
    tags = {PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}
    start = _process_start(os.getpid())
    if start:
        tags[START_TAG] = start
    return tags


def _alive(pid: int, start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    now = _process_start(pid)
    if now is None:
        return not os.path.exists("/proc/self/stat")   # no /proc: trust kill(0)
    return start is None or now == start


def mark_dead_runs_failed(instance: Any) -> list[str]:
    """Fail this host's in-process runs (``jobpipe run``) whose process is gone; returns their ids."""
    host = socket.gethostname()
    runs = instance.get_runs(filters=RunsFilter(statuses=[DagsterRunStatus.STARTED, DagsterRunStatus.STARTING],
                                                tags={HOST_TAG: host}))
    failed = []
    for run in runs:
        pid_text = run.tags.get(PID_TAG, "")
        if not pid_text.isdigit() or _alive(int(pid_text), run.tags.get(START_TAG)):
            continue
        instance.report_run_failed(run, f"the process that ran it (pid {pid_text} on {host}) is gone: it was "
                                        "killed or crashed. Run the partition again; a rerun repairs what it left.")
        failed.append(run.run_id)
    return failed
