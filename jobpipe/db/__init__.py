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


def ready_url() -> str:
    """The database URL, with the server started (if embedded) and the schema up to date."""
    url = database_url()
    migrate(url)
    return url


__all__ = [
    "DatabaseSetupError", "MigrationError", "connect", "dagster_database_url", "dagster_storage_url", "database_url",
    "migrate", "ready_url", "with_database",
]
