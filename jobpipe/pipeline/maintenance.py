"""Upkeep of the stored history: snapshot retention keeps the database bounded."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

import psycopg

from jobpipe.pipeline.errors import StageBusyError
from jobpipe.pipeline.locking import locked, source_lock
from jobpipe.pipeline.report import Report
from jobpipe.sources import PrunedSnapshots
from jobpipe.sources.retention import oldest_replayable_day, prune_source, sources_to_prune


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
    busy_sources: list[str] = field(default_factory=list)   # a run held them: pruned next time


def prune_history(conn: psycopg.Connection, *, keep_days: int, today: date | None = None,
                  run_id: str | None = None) -> RetentionOutcome:
    """Delete snapshot history older than ``keep_days`` (each source's latest run and every open
    posting's current payload are kept forever; see ``jobpipe.sources.retention``).

    Each source is pruned under its stage lock, so a replay of a day that is about to leave the
    window never finds its snapshot half gone. A source a run holds is skipped, not waited for:
    retention is not urgent, and the next pass prunes it.
    """
    pruned = PrunedSnapshots(keep_days=keep_days)
    busy: list[str] = []
    for source in sources_to_prune(conn, keep_days=keep_days, today=today):
        try:
            with locked(conn, source_lock(source), stage="retention", run_id=run_id):
                pruned = pruned + prune_source(conn, source, keep_days=keep_days, today=today)
        except StageBusyError:
            busy.append(source)
    pruned = replace(pruned, oldest_day=oldest_replayable_day(conn))
    return RetentionOutcome(keep_days=keep_days, fetch_runs_deleted=pruned.fetch_runs, spans_deleted=pruned.spans,
                            payloads_deleted=pruned.payloads, normalized_deleted=pruned.normalized,
                            quarantine_deleted=pruned.quarantined, payload_bytes_deleted=pruned.payload_bytes,
                            replayable_from=pruned.oldest_day.isoformat() if pruned.oldest_day else None,
                            busy_sources=busy)
