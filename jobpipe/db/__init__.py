"""Database location, connections and schema migrations."""

from jobpipe.db.connection import (
    DatabaseSetupError,
    connect,
    dagster_database_url,
    dagster_storage_url,
    database_url,
    with_database,
)
from jobpipe.db.migrate import MigrationError, migrate


def ready_url(url: str | None = None) -> str:
    """``url`` (default: the configured database, the embedded server started if it is the one)
    with its schema brought up to date."""
    url = url or database_url()
    migrate(url)
    return url


__all__ = [
    "DatabaseSetupError", "MigrationError", "connect", "dagster_database_url", "dagster_storage_url", "database_url",
    "migrate", "ready_url", "with_database",
]
