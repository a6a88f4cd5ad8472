"""How many groups of duplicate open postings the dedupe key finds (for run metadata)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from jobpipe.db.rows import one


@dataclass(frozen=True)
class DuplicateStats:
    groups: int          # dedupe keys shared by more than one open posting
    postings: int        # open postings in those groups
    largest: int         # size of the largest group


def duplicate_stats(conn: psycopg.Connection) -> DuplicateStats:
    row = one(conn.execute(
        "SELECT count(*), coalesce(sum(postings), 0), coalesce(max(postings), 0) FROM job_duplicate_groups"))
    return DuplicateStats(int(row[0]), int(row[1]), int(row[2]))


def duplicate_groups(conn: psycopg.Connection) -> int:
    """Number of dedupe groups with more than one open posting (search shows one per group)."""
    return duplicate_stats(conn).groups
