"""Stage locks: one run at a time per source (and per whole-store stage), named when busy.

Two runs of one source at once -- a nightly run still going when an operator's backfill
starts, two ``jobpipe run`` against one database -- would fetch, upsert, close and embed the
same postings twice and race on the same rows. Each stage holds a PostgreSQL advisory lock for
its work: per database (advisory locks are), per process-crash safe (a session's locks go with
it, so a killed run never leaves a stale lock). A second run does not wait: it stops at once
with :class:`StageBusy`, whose message names the run holding the lock (from ``run_locks``, the
holder's own row, checked against the backend that really holds the lock).
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import psycopg

from jobpipe.db.rows import one

#: First half of every jobpipe stage lock's key (the second is the lock's name, hashed).
_NAMESPACE = 0x6A6F6270   # "jobp"


class StageBusy(RuntimeError):
    """Another run holds this stage's lock; nothing was changed by this one."""

    def __init__(self, message: str, *, lock: str, holder: Holder | None) -> None:
        super().__init__(message)
        self.lock = lock
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    stage: str | None
    run_id: str | None
    pid: int | None
    host: str | None
    since: datetime | None
    backend_pid: int

    def describe(self) -> str:
        if self.stage is None:   # a session that holds the lock without a row (not a jobpipe stage)
            return f"another database session (backend pid {self.backend_pid})"
        who = f"run {self.run_id}" if self.run_id else "a run outside Dagster"
        since = f" since {self.since:%Y-%m-%d %H:%M:%S %Z}" if self.since else ""
        return f"{self.stage} of {who} (pid {self.pid} on {self.host}){since}"


def lock_key(name: str) -> int:
    """The advisory lock's second key: 31 bits of the name's SHA-256 (stable across processes)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") & 0x7FFFFFFF


def holder(conn: psycopg.Connection, name: str) -> Holder | None:
    """Who holds lock ``name`` now (None if nobody)."""
    row = conn.execute(
        "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s::oid "
        "AND l.objid = %s::oid AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database "
        "WHERE datname = current_database())", (_NAMESPACE, lock_key(name))).fetchone()
    if row is None:
        return None
    backend = row[0]
    mine = conn.execute("SELECT stage, run_id, pid, host, acquired_at FROM run_locks WHERE lock = %s "
                        "AND backend_pid = %s", (name, backend)).fetchone()
    if mine is None:
        return Holder(None, None, None, None, None, backend)
    return Holder(mine[0], mine[1], mine[2], mine[3], mine[4], backend)


def _idle(conn: psycopg.Connection) -> None:
    if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
        conn.rollback()
    elif conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE and not conn.autocommit:
        conn.commit()


@contextmanager
def stage_lock(conn: psycopg.Connection, name: str, *, stage: str, run_id: str | None = None) -> Iterator[None]:
    """Hold lock ``name`` (e.g. ``source:acme``, ``embeddings``) on ``conn`` for the block, or raise StageBusy.

    Work the caller left uncommitted on ``conn`` is committed first (the lock's row must be
    visible to others at once); stages start on a fresh connection anyway.
    """
    _idle(conn)
    got = one(conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (_NAMESPACE, lock_key(name))))[0]
    if not got:
        held_by = holder(conn, name)
        _idle(conn)
        what = name.replace("source:", "source ", 1)
        by = held_by.describe() if held_by else "another run (it just finished: try again)"
        raise StageBusy(f"{what} is busy: {by} holds it. This run stopped before changing anything; "
                        "wait for that run to finish (or stop it if it is stuck) and run again.",
                        lock=name, holder=held_by)
    try:
        conn.execute(
            "INSERT INTO run_locks (lock, stage, run_id, pid, host, backend_pid, acquired_at) "
            "VALUES (%s, %s, %s, %s, %s, pg_backend_pid(), now()) ON CONFLICT (lock) DO UPDATE SET "
            "stage = EXCLUDED.stage, run_id = EXCLUDED.run_id, pid = EXCLUDED.pid, host = EXCLUDED.host, "
            "backend_pid = EXCLUDED.backend_pid, acquired_at = EXCLUDED.acquired_at",
            (name, stage, run_id, os.getpid(), socket.gethostname()))
        _idle(conn)
    except BaseException:
        _release(conn, name, failed=True)
        raise
    try:
        yield
    except BaseException:
        _release(conn, name, failed=True)
        raise
    _release(conn, name, failed=False)


def _release(conn: psycopg.Connection, name: str, *, failed: bool) -> None:
    """Unlock; a failed stage's uncommitted work is rolled back first, a finished one's committed."""
    try:
        if failed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        else:
            _idle(conn)
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_NAMESPACE, lock_key(name)))
        if not conn.autocommit:
            conn.commit()
    except psycopg.Error:
        pass   # the session is gone (database stopped): so is its lock
