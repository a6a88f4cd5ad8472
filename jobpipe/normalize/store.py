"""Normalized postings and quarantined rejects in PostgreSQL, one (source, partition day) at a time.

Writing a partition replaces it whole in one transaction, so a rerun (after a parser fix, or a
retried Dagster run) yields exactly the rows a first run would have, and readers never see a
half-written day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from jobpipe.models import NormalizedPosting
from jobpipe.normalize.schema import ValidationResult
from jobpipe.rows import INGEST_ID_COLUMNS, PARTITION_COLUMN, POSTING_COLUMNS, Column, RowBuilder, names, posting_from_row

#: Default share of rejected postings above which a source's asset check fails.
DEFAULT_REJECT_THRESHOLD = 0.05

#: normalized_postings' columns, in COPY order: the partition day, the posting, its raw payload's ids.
_COLUMNS: tuple[Column, ...] = (PARTITION_COLUMN, *POSTING_COLUMNS, *INGEST_ID_COLUMNS)
_ROW = RowBuilder(_COLUMNS[1:])
_SOURCE_AT = _ROW.names.index("source")
_NAMES = ", ".join(names(_COLUMNS))


@dataclass(frozen=True)
class NormalizeCounts:
    passed: int
    rejected: int

    @property
    def reject_rate(self) -> float:
        total = self.passed + self.rejected
        return self.rejected / total if total else 0.0


def write_normalized(
    conn: psycopg.Connection,
    source: str,
    partition_date: date,
    result: ValidationResult,
    dagster_run_id: str | None = None,
) -> NormalizeCounts:
    """Replace the partition's normalized rows and quarantined rejects; return the counts written.

    A posting listed twice in one batch (same external id) is stored once, the last one winning:
    it is the same posting, not a loss.
    """
    latest: dict[str, NormalizedPosting] = {}
    for p in result.valid:
        latest[p.external_id] = p
    with conn.transaction():
        conn.execute("DELETE FROM normalized_postings WHERE source = %s AND partition_date = %s", (source, partition_date))
        # fetch-stage rows (lines, items that were not postings) belong to the fetch run: kept
        conn.execute("DELETE FROM quarantine WHERE source = %s AND partition_date = %s AND stage = 'normalize'",
                     (source, partition_date))
        if latest:
            with conn.cursor() as cur:
                with cur.copy(f"COPY normalized_postings ({_NAMES}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types([c.pg_type for c in _COLUMNS])
                    for p in latest.values():
                        row = _ROW(p)
                        row[_SOURCE_AT] = source   # the partition's source, whatever the posting says
                        copy.write_row([partition_date, *row])
        if result.rejected:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO quarantine (source, partition_date, external_id, raw_id, fetch_id, failed_checks, dagster_run_id)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [(source, partition_date, r.external_id, r.raw_id, r.fetch_id, Jsonb(list(r.failed_checks)), dagster_run_id)
                     for r in result.rejected],
                )
    return NormalizeCounts(passed=len(latest), rejected=len(result.rejected))


def load_normalized(conn: psycopg.Connection, source: str, partition_date: date) -> list[NormalizedPosting]:
    """The partition's normalized postings, ordered by external id."""
    cur = conn.execute(
        f"SELECT {_NAMES} FROM normalized_postings WHERE source = %s AND partition_date = %s ORDER BY external_id",
        (source, partition_date),
    )
    keys = [d.name for d in cur.description or ()]
    return [posting_from_row(dict(zip(keys, r))) for r in cur.fetchall()]


_QUARANTINE_KEYS = ("stage", "position", "external_id", "raw_id", "fetch_id", "failed_checks", "raw_text", "dagster_run_id")


def load_quarantine(conn: psycopg.Connection, source: str, partition_date: date) -> list[dict[str, Any]]:
    """Everything quarantined for a partition: items of the fetch that were not postings
    (``stage`` 'fetch', with ``position`` and ``raw_text``), then normalization rejects."""
    rows = conn.execute(
        f"SELECT {', '.join(_QUARANTINE_KEYS)} FROM quarantine"
        " WHERE source = %s AND partition_date = %s ORDER BY stage, quarantine_id",
        (source, partition_date),
    ).fetchall()
    return [dict(zip(_QUARANTINE_KEYS, r)) for r in rows]


def reject_rates(conn: psycopg.Connection, partition_date: date | None = None) -> dict[str, tuple[int, int, float]]:
    """{source: (passed, rejected, reject rate)} for one partition day, or over all days."""
    where = "WHERE partition_date = %s" if partition_date is not None else ""
    params = (partition_date,) if partition_date is not None else ()
    passed = dict(conn.execute(f"SELECT source, count(*) FROM normalized_postings {where} GROUP BY source", params).fetchall())
    rejected = dict(conn.execute(f"SELECT source, count(*) FROM quarantine {where} GROUP BY source", params).fetchall())
    out = {}
    for source in sorted(set(passed) | set(rejected)):
        p, r = int(passed.get(source, 0)), int(rejected.get(source, 0))
        out[source] = (p, r, r / (p + r) if p + r else 0.0)
    return out


def sources_over_threshold(rates: dict[str, tuple[int, int, float]], threshold: float = DEFAULT_REJECT_THRESHOLD) -> list[str]:
    """Sources whose reject rate passes the threshold (the asset check fails for these)."""
    return [source for source, (_, _, rate) in rates.items() if rate > threshold]
