"""Ordered SQL migrations from ``sql/``, each applied exactly once.

Files are named ``NNNN_description.sql``; ``NNNN`` is the version. Every migration runs in
its own transaction and is recorded in ``schema_migrations``. A session advisory lock makes
concurrent starts (CLI, webserver, daemon, service, tests) safe: the second process waits,
then finds nothing left to do.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

from jobpipe.config import SQL_DIR

# Any fixed 64-bit number works; it only has to be the same in every jobpipe process.
MIGRATION_LOCK_ID = 0x6A6F6270_69706501
_NAME_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    """The database cannot be brought to the schema this code expects."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


#: Released texts of a migration that a later release replaced, by version: a database that ran
#: one of them is as current as one that ran today's text (a later migration reconciles them).
#: Only for migrations whose old text did something that must stop for new databases.
SUPERSEDED: dict[int, frozenset[str]] = {
    # 0006 created the cluster-wide jobpipe_reader role and 0009 granted it serving_jobs;
    # 0017 takes back what they granted (the service has its own login: jobpipe.db.roles).
    6: frozenset({"9cf2e9777fbc41885b34fff6ea6a021d7cb364c66530cc84c212a20155b14bd2"}),
    9: frozenset({"6d0c41f156eb21a6341fd89f0ad2ad2989491df81e9a2f610640434c60000056"}),
}

#: The generated current schema that lives beside the migrations (see jobpipe.db.schema).
SCHEMA_FILE_NAME = "schema.sql"


def load_migrations(sql_dir: Path = SQL_DIR) -> list[Migration]:
    migrations = []
    for path in sorted(sql_dir.glob("*.sql")):
        if path.name == SCHEMA_FILE_NAME:
            continue   # the generated picture of the result, not a step (jobpipe.db.schema)
        match = _NAME_RE.match(path.name)
        if not match:
            raise MigrationError(f"{path.name}: migration files must be named NNNN_description.sql")
        migrations.append(Migration(int(match.group(1)), match.group(2), path.read_text(encoding="utf-8")))
    versions = [m.version for m in migrations]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"duplicate migration versions in {sql_dir}")
    return migrations


def _ensure_table(conn: psycopg.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer PRIMARY KEY,
            name       text NOT NULL,
            checksum   text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )


def applied_versions(conn: psycopg.Connection) -> list[int]:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return []
    return [row[0] for row in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]


def migrate(url: str, sql_dir: Path = SQL_DIR) -> list[Migration]:
    """Apply pending migrations; return those applied by this call.

    Raises :class:`MigrationError` when the database has a version this code does not know
    (it was migrated by a newer jobpipe): running old code on a newer schema could corrupt it.
    """
    migrations = load_migrations(sql_dir)
    known = {m.version for m in migrations}
    applied_now: list[Migration] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_ID,))
        try:
            _ensure_table(conn)
            recorded: dict[int, str] = dict(conn.execute("SELECT version, checksum FROM schema_migrations").fetchall())
            done = set(recorded)
            unknown = sorted(done - known)
            if unknown:
                raise MigrationError(
                    f"the database is at schema version {max(done)}, ahead of this jobpipe "
                    f"(latest known: {max(known) if known else 0}; unknown versions: {unknown}). "
                    "Upgrade jobpipe, or point JOBPIPE_DATABASE_URL at another database."
                )
            edited = [m for m in migrations if m.version in recorded and recorded[m.version] != m.checksum
                      and recorded[m.version] not in SUPERSEDED.get(m.version, ())]
            if edited:
                names = ", ".join(f"{m.version:04d}_{m.name}.sql" for m in edited)
                raise MigrationError(
                    f"{names} changed after it was applied to this database; a migration must never be "
                    "edited once released (add a new one instead). Recreate this database, or restore the file."
                )
            for migration in migrations:
                if migration.version in done:
                    continue
                with conn.transaction():
                    conn.execute(migration.sql)
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                        (migration.version, migration.name, migration.checksum),
                    )
                applied_now.append(migration)
            if applied_now:
                # here, not at the top: a cycle (roles imports MIGRATION_LOCK_ID from this module)
                from jobpipe.db.roles import refresh_grants

                refresh_grants(conn)   # registered service logins read the serving objects added now
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_ID,))
    return applied_now
