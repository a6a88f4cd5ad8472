"""Where the database is and how to connect to it."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from pgvector.psycopg import register_vector

from jobpipe.config import Settings, get_settings

#: The database that holds jobpipe's tables on the embedded server.
EMBEDDED_DATABASE = "jobpipe"
#: The database that holds Dagster's run and event storage on the same server.
DAGSTER_DATABASE = "dagster"


def with_database(url: str, database: str) -> str:
    """Return ``url`` pointing at another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "postgres"


def _ensure_database(server_url: str, database: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if not exists:
            try:
                conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(database)))
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it between our check and our CREATE


def database_url(settings: Settings | None = None) -> str:
    """The URL of jobpipe's database, starting the embedded server when none is configured."""
    settings = settings or get_settings()
    if settings.database_url:
        return settings.database_url
    from jobpipe.db import server

    server_url = server.start(settings)
    _ensure_database(server_url, EMBEDDED_DATABASE)
    return with_database(server_url, EMBEDDED_DATABASE)


def dagster_storage_url(settings: Settings | None = None) -> str:
    """A SQLAlchemy URL for Dagster's instance storage (``dagster`` database, same server).

    dagster-postgres goes through SQLAlchemy, whose default psycopg 3 dialect breaks Dagster's
    ``NOTIFY``; the ``+psycopg2`` scheme selects the driver that works.
    """
    settings = settings or get_settings()
    url = database_url(settings)
    server_url = with_database(url, "postgres")
    _ensure_database(server_url, DAGSTER_DATABASE)
    parts = urlsplit(with_database(url, DAGSTER_DATABASE))
    query = dict(parse_qsl(parts.query))
    scheme = "postgresql+psycopg2"
    return urlunsplit((scheme, parts.netloc, parts.path, urlencode(query), ""))


def connect(url: str | None = None, *, autocommit: bool = False) -> psycopg.Connection:
    """Open a connection with pgvector's types registered.

    The ``vector`` extension must exist (the first migration creates it) before types can be
    registered, so registration is skipped on a database that has not been migrated yet.
    """
    conn = psycopg.connect(url or database_url(), autocommit=autocommit)
    has_vector = conn.execute("SELECT 1 FROM pg_type WHERE typname = 'vector'").fetchone()
    if not autocommit:
        conn.commit()
    if has_vector:
        register_vector(conn)
    return conn
