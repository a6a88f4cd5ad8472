"""Merge the GIN indexes' pending lists after a write, so the next searches do not scan them.

GIN indexes are created with ``fastupdate`` on (PostgreSQL's default): an insert appends its
entries to the index's unsorted pending list, merged into the main tree only by VACUUM (auto or
not), autoanalyze, ``gin_clean_pending_list()`` or an insert that finds the list over
``gin_pending_list_limit`` (4 MB). Every index scan reads the whole list meanwhile. A night that
re-tokenizes 5% of 100,000 postings leaves ~590 pending pages, and that many updates stay under
autovacuum's thresholds (20% of the table dead; the store's own ANALYZE resets the change count
autoanalyze reads), so the lists stay for several nights. Measured (docs/search.md, "Speed"):
keyword search ~2.5x slower right after such a sync; merging right after the write costs ~0.2 s,
paid once by the writer instead of by every search.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import psycopg

from jobpipe.db.rows import one

log = logging.getLogger("jobpipe.store")

_GIN_INDEXES = """
SELECT c.oid::regclass::text
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam
WHERE a.amname = 'gin' AND i.indrelid = ANY(%s::regclass[]) AND i.indisvalid
ORDER BY 1
"""


def merge_gin_pending(conn: psycopg.Connection, tables: Sequence[str]) -> int:
    """Merge the pending list of every GIN index on ``tables``; return the pages it held.

    Commits; searches keep reading the indexes meanwhile. A login that may not maintain the tables (no ``MAINTAIN`` privilege) skips it with a warning:
    autovacuum still merges the lists later.
    """
    if not conn.autocommit:
        conn.commit()
    pages = 0
    for (index,) in conn.execute(_GIN_INDEXES, (list(tables),)).fetchall():
        try:
            with conn.transaction():
                pages += one(conn.execute("SELECT gin_clean_pending_list(%s::regclass)", (index,)))[0]
        except psycopg.errors.InsufficientPrivilege:
            log.warning("cannot merge the pending list of GIN index %s (not its owner); autovacuum will", index)
    if not conn.autocommit:
        conn.commit()
    return pages
