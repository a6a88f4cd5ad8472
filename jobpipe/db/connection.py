"""Where the database is and how to connect to it."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
from pgvector.psycopg import register_vector

from jobpipe.config import Settings, get_settings
from jobpipe.db import server

#: The database that holds jobpipe's tables on the embedded server.
EMBEDDED_DATABASE = "jobpipe"
#: Dagster's instance storage lives in a database named after jobpipe's, with this suffix.
DAGSTER_DATABASE_SUFFIX = "_dagster"


class DatabaseSetupError(RuntimeError):
    """A database jobpipe needs is missing and cannot be created with the configured login."""


def with_database(url: str, database: str) -> str:
    """Return ``url`` pointing at another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "postgres"


def redacted_url(url: str) -> str:
    """``url`` without its password and query (safe to print)."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username
    return urlunsplit((parts.scheme, f"{user}@{netloc}" if user else netloc, parts.path, "", ""))


def lost_database(exc: BaseException) -> str | None:
    """The first line of the database error behind ``exc`` when the database stopped answering
    (a stopped or unreachable server, a dropped connection), else None.

    Looks through the exception's causes: Dagster's storage wraps the driver's error (psycopg2 via
    SQLAlchemy, then ``DagsterPostgresException`` after its retries).
    """
    seen: set[int] = set()
    found: BaseException | None = None
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = type(current)
        names = {f"{k.__module__}.{k.__qualname__}" for k in kind.__mro__}
        if isinstance(current, psycopg.OperationalError) or names & _LOST_ERRORS:
            found = current
            if isinstance(current, psycopg.OperationalError) or "psycopg2.OperationalError" in names:
                break   # the driver's own words
        current = current.__cause__ or current.__context__
    if found is None:
        return None
    orig = getattr(found, "orig", None)   # SQLAlchemy keeps the driver's error here
    text = str(orig if orig is not None else found).strip()
    return text.splitlines()[0] if text else type(found).__name__


#: Errors (by qualified name: the modules need not be imported) that mean the database is gone.
_LOST_ERRORS = frozenset({"psycopg2.OperationalError", "sqlalchemy.exc.OperationalError",
                          "dagster_postgres.utils.DagsterPostgresException"})


def ensure_database(url: str) -> None:
    """Create the database ``url`` names when it does not exist yet.

    It connects to the database itself first, so a login that may not create databases (as on a
    managed server, where an administrator creates them) works as long as they exist; only a
    missing one is created, through the server's ``postgres`` database.
    """
    try:
        psycopg.connect(url, connect_timeout=10).close()
        return
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            raise
    name = database_name(url)
    try:
        with psycopg.connect(with_database(url, "postgres"), autocommit=True, connect_timeout=10) as conn:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
    except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
        # another process created it between our check and our CREATE (two CREATEs at the very
        # same time collide on the catalog's unique index instead of DuplicateDatabase)
        pass
    except (psycopg.errors.InsufficientPrivilege, psycopg.OperationalError) as exc:
        raise DatabaseSetupError(
            f"database {name!r} does not exist at {redacted_url(url)} and this login cannot create it "
            f"({str(exc).strip().splitlines()[0]}). Ask an administrator to run: CREATE DATABASE \"{name}\" OWNER "
            f"\"{urlsplit(url).username or 'your_login'}\"; or point the setting at an existing database."
        ) from exc


def database_url(settings: Settings | None = None) -> str:
    """The URL of jobpipe's database, starting the embedded server when none is configured."""
    settings = settings or get_settings()
    if settings.database_url:
        return settings.database_url

    url = with_database(server.start(settings), EMBEDDED_DATABASE)
    ensure_database(url)
    return url


def running_database_url(settings: Settings | None = None) -> str | None:
    """The URL of jobpipe's database when it can be reached without starting anything: the
    configured one, or the embedded server's when it already runs; otherwise None.

    For what merely reads the database when it is there (the code location's partition start):
    loading or validating the Dagster definitions must never start a server or create a data
    directory (``dagster definitions validate`` in an image build would leave one running).
    """
    settings = settings or get_settings()
    if settings.database_url:
        return settings.database_url
    state = server.status(settings)
    if not state.running or not state.socket_dir:
        return None
    return f"postgresql://postgres:@/{EMBEDDED_DATABASE}?host={quote(state.socket_dir, safe='/')}"


def dagster_database_url(settings: Settings | None = None) -> str:
    """Where this deployment's Dagster instance keeps runs, events, schedules and partitions.

    ``JOBPIPE_DAGSTER_DATABASE_URL`` when set; otherwise the database ``<jobpipe database>_dagster``
    on jobpipe's server (``jobpipe_dagster`` on the embedded default). Deriving it from jobpipe's
    database keeps one instance per deployment: a test database, a second deployment on the same
    server and the operator's own never share runs or partitions.
    """
    settings = settings or get_settings()
    if settings.dagster_database_url:
        return settings.dagster_database_url
    url = database_url(settings)
    return with_database(url, database_name(url) + DAGSTER_DATABASE_SUFFIX)


def sqlalchemy_url(url: str) -> str:
    """``url`` with the ``postgresql+psycopg2`` scheme dagster-postgres needs.

    dagster-postgres goes through SQLAlchemy, whose default psycopg 3 dialect breaks Dagster's
    ``NOTIFY``; the ``+psycopg2`` scheme selects the driver that works.
    """
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    return urlunsplit(("postgresql+psycopg2", parts.netloc, parts.path, urlencode(query), ""))


def dagster_storage_url(settings: Settings | None = None) -> str:
    """A SQLAlchemy URL of :func:`dagster_database_url`, the database created if missing."""
    url = dagster_database_url(settings)
    ensure_database(url)
    return sqlalchemy_url(url)


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
