"""At most N fetches of one host at once, however the runs were launched.

A backfill of 50 sources on one ATS host (50 Greenhouse boards) becomes 50 Dagster runs, and
the run queue admits several at once; the asset backfills Dagster launches from the UI carry no
tag that names the host, so no ``tag_concurrency_limits`` entry can hold them. The cap is
therefore taken where the fetch happens: a fetch holds one of ``limit`` slots of its host,
PostgreSQL advisory locks on a connection of its own (``(host key, slot)``), for as long as it
fetches. Runs on any machine against the same database share the slots; a process that dies
drops its connection and so its slot. Waiting fetches poll for a free slot.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import psycopg

from jobpipe.db.rows import one
from jobpipe.sources.options import SourceConfig


def source_host(config: SourceConfig) -> str | None:
    """The host a source fetches from (``host:port``), or None for a source that reads files."""
    for option in ("base_url", "start_url", "url"):
        value = getattr(config, option, None)
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            return urlsplit(value).netloc.lower() or None
    return None


def _host_key(host: str) -> int:
    # advisory locks take two int4 keys: the host's (stable across processes) and the slot
    return int.from_bytes(hashlib.blake2b(host.encode(), digest_size=4).digest(), "big", signed=True)


@contextmanager
def host_slot(url: str, host: str | None, limit: int, *, poll_seconds: float = 0.5,
              timeout_seconds: float | None = None) -> Iterator[int | None]:
    """Hold one of ``limit`` fetch slots of ``host`` meanwhile (yields the slot; None: no cap).

    Raises ``TimeoutError`` naming the host when no slot freed up within ``timeout_seconds``.
    """
    if host is None or limit <= 0:
        yield None
        return
    key = _host_key(host)
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    conn = psycopg.connect(url, autocommit=True)
    try:
        while True:
            for slot in range(limit):
                if one(conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (key, slot)))[0]:
                    try:
                        yield slot
                    finally:
                        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (key, slot))
                    return
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"no fetch slot of host {host} freed up within {timeout_seconds:g} s "
                                   f"({limit} fetches of it at once: JOBPIPE_HOST_CONCURRENCY)")
            time.sleep(poll_seconds)
    finally:
        conn.close()
