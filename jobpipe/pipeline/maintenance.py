"""Upkeep of the stored history: snapshot retention keeps the database bounded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import psycopg

from jobpipe.pipeline.report import Report
from jobpipe.sources import prune_snapshots


@dataclass(frozen=True)
class RetentionOutcome(Report):
    """Snapshot history past the window, pruned; and how far back replay still reaches."""

    keep_days: int = 0
    fetch_runs_deleted: int = 0
    spans_deleted: int = 0
    payloads_deleted: int = 0
    normalized_deleted: int = 0
    quarantine_deleted: int = 0
    payload_bytes_deleted: int = 0
    replayable_from: str | None = None   # the oldest day any source can still be replayed from (ISO)


def prune_history(conn: psycopg.Connection, *, keep_days: int, today: date | None = None) -> RetentionOutcome:
    """Delete snapshot history older than ``keep_days`` (each source's latest run and every open
    posting's current payload are kept forever; see ``jobpipe.sources.retention``)."""
    pruned = prune_snapshots(conn, keep_days=keep_days, today=today)
    return RetentionOutcome(keep_days=keep_days, fetch_runs_deleted=pruned.fetch_runs, spans_deleted=pruned.spans,
                            payloads_deleted=pruned.payloads, normalized_deleted=pruned.normalized,
                            quarantine_deleted=pruned.quarantined, payload_bytes_deleted=pruned.payload_bytes,
                            replayable_from=pruned.oldest_day.isoformat() if pruned.oldest_day else None)
