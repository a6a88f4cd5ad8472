"""sql/schema.sql is the schema the migrations produce (it is generated: `make schema`)."""

from __future__ import annotations

import difflib

from jobpipe.db.connection import database_url
from jobpipe.db.schema import SCHEMA_FILE, fresh_schema


def test_checked_in_schema_matches_a_freshly_migrated_database(database):
    fresh = fresh_schema(database_url())
    stored = SCHEMA_FILE.read_text(encoding="utf-8")
    if fresh != stored:
        diff = "".join(difflib.unified_diff(stored.splitlines(True), fresh.splitlines(True),
                                            "sql/schema.sql", "migrated", n=1))
        raise AssertionError(f"sql/schema.sql is stale: run `make schema`.\n{diff[:4000]}")
