"""Pooled, read-only, time-boxed database connections for the query service.

Connections log in as the service's own reader (``jobpipe.service.login``); each one, when the
pool opens it, also makes every transaction read-only and caps statements at
``statement_timeout``: one slow or hostile query can neither write nor hold a worker for long.
"""

from __future__ import annotations

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from jobpipe.service.login import resolve_login
from jobpipe.service.settings import ServiceSettings


def configure_connection(conn: psycopg.Connection, settings: ServiceSettings) -> None:
    """Session settings for one service connection (also used by the tests and the MCP server)."""
    # Server-side prepared plans would be generic: the per-model partial HNSW indexes need
    # the model literal at plan time.
    conn.prepare_threshold = None
    conn.execute("SELECT set_config('statement_timeout', %s, false)", (f"{int(settings.statement_timeout_ms)}ms",))
    conn.execute("SET default_transaction_read_only = on")
    conn.execute("SET idle_in_transaction_session_timeout = '30s'")
    has_vector = conn.execute("SELECT 1 FROM pg_type WHERE typname = 'vector'").fetchone()
    conn.commit()
    if has_vector:
        register_vector(conn)


def open_pool(url: str, settings: ServiceSettings, *, wait: bool = False) -> ConnectionPool:
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=max(1, settings.pool_max_size),
        kwargs={"autocommit": False},
        configure=lambda conn: configure_connection(conn, settings),
        timeout=settings.pool_timeout_s,
        name="jobpipe-service",
        open=False,
    )
    pool.open(wait=wait, timeout=settings.pool_timeout_s)
    return pool


def connect_service(url: str, settings: ServiceSettings) -> psycopg.Connection:
    """One configured connection as the service's login for ``url`` (CLI one-shots, tests)."""
    conn = psycopg.connect(resolve_login(url), autocommit=False)
    configure_connection(conn, settings)
    return conn
