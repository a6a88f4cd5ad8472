"""Per-home file locks (``flock``): one embedded-server start at a time, one ``jobpipe run`` at a time.

The kernel drops an ``flock`` when its process dies, so a killed holder never leaves a stale
lock behind. The file holds the holder's pid, start time and command, so whoever finds it
taken can say who holds it.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


class HomeBusy(RuntimeError):
    """Another process holds this home's lock (the message names it)."""

    def __init__(self, message: str, holder: dict[str, Any]) -> None:
        super().__init__(message)
        self.holder = holder


def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return {}


@contextmanager
def exclusive(path: Path, *, what: str, wait: float | None = None) -> Iterator[None]:
    """Hold the lock file ``path`` for the block.

    ``wait=None`` waits as long as it takes (short critical sections: a server start);
    a number waits at most that many seconds, then raises :class:`HomeBusy` naming the holder
    (0: do not wait at all).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = None if wait is None else time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if deadline is None else fcntl.LOCK_NB))
                break
            except BlockingIOError:
                if deadline is not None and time.monotonic() >= deadline:
                    holder = _read(path)
                    who = (f"pid {holder.get('pid')}, started {holder.get('started')}: {holder.get('command')}"
                           if holder.get("pid") else "another process")
                    raise HomeBusy(f"{what} is already running on this home ({path.parent}): {who}. "
                                   "Wait for it to finish, or stop it if it is stuck.", holder) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(),
                                  "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                                  "command": " ".join(sys.argv)[:300]}).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
