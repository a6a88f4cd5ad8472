"""Bulk loads into an empty table: build its secondary indexes once afterwards, not row by row.

Loading a large batch into an empty table is several times cheaper per row when the
secondary indexes (inverted GIN indexes above all, but also the b-trees) are built once
after the load, from sorted data, than when every inserted row updates them. Unique indexes
stay: they are what keeps a concurrent writer's duplicate out. The definitions are parked in ``jobs_deferred_indexes`` in the same transaction as the
drop, so a load that dies half-way leaves a note the next load acts on (it rebuilds whatever
is listed) instead of a silently index-less table.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from jobpipe.db.rows import one

#: A load that writes at least this many rows into an empty table defers its secondary indexes.
BULK_LOAD_ROWS = 20_000

_SECONDARY_INDEXES = """
SELECT c.relname, pg_get_indexdef(c.oid)
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = %s::regclass AND NOT i.indisunique AND NOT i.indisprimary
ORDER BY c.relname
"""


def defer_secondary_indexes(conn: psycopg.Connection, table: str) -> bool:
    """If ``table`` is empty, drop its non-unique indexes, parking their definitions; True if so.

    Only an empty table qualifies (checked under a lock that keeps other writers out until
    commit): a table with rows serves searches that need those indexes, and building them
    afresh would cost more than the load saves. A brief ``lock_timeout`` means a long reader
    holding the table makes the load skip the optimisation rather than queue everyone behind it.
    """
    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = '2s'")
            conn.execute(sql.SQL("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE").format(sql.Identifier(table)))
            empty = conn.execute(sql.SQL("SELECT NOT EXISTS (SELECT 1 FROM {})").format(sql.Identifier(table)))
            if not one(empty)[0]:
                return False
            indexes = conn.execute(_SECONDARY_INDEXES, (table,)).fetchall()
            for name, definition in indexes:
                conn.execute("INSERT INTO jobs_deferred_indexes (index_name, definition) VALUES (%s, %s) "
                             "ON CONFLICT (index_name) DO NOTHING", (name, definition))
                conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
    except psycopg.errors.LockNotAvailable:
        return False
    finally:
        if not conn.autocommit:
            conn.commit()
    return True


def restore_deferred_indexes(conn: psycopg.Connection) -> list[str]:
    """Build every index parked in ``jobs_deferred_indexes``; return their names.

    Runs at the end of a bulk load and at the start of every load, so a load that died
    half-way heals on the next run. Rows are locked, so two processes never build the same
    index: the second waits and then finds nothing left to do.
    """
    built = []
    with conn.transaction():
        rows = conn.execute("SELECT index_name, definition FROM jobs_deferred_indexes "
                            "ORDER BY index_name FOR UPDATE").fetchall()
        if rows:
            # PostgreSQL 18 builds b-tree and GIN indexes with parallel workers; give them room.
            conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
        for name, definition in rows:
            if one(conn.execute("SELECT to_regclass(%s) IS NULL", (name,)))[0]:
                conn.execute(definition)
                built.append(name)
            conn.execute("DELETE FROM jobs_deferred_indexes WHERE index_name = %s", (name,))
    if not conn.autocommit:
        conn.commit()
    return built
