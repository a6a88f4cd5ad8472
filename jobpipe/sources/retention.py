"""Snapshot retention: keep a window of daily history, and the current payload of every posting forever.

Replay (``load_snapshot``, normalizing or curating a past day) reads what is stored. What is
kept, per source:

* every fetch run of the last ``keep_days`` days (default 30, ``JOBPIPE_SNAPSHOT_RETENTION_DAYS``),
  and always the source's latest run, however old;
* every listing span that covers a kept run, and every open span (the postings the source lists
  now) -- so the latest payload of every open posting is never pruned;
* every payload such a span, or the conditional-request memory (``http_cache``), refers to.

Older runs, the spans that only covered them, and payloads nothing refers to any more are
deleted, with their normalized rows and normalization rejects (foreign keys cascade) and the
fetch-stage quarantine rows of the deleted days. A day outside the window can no longer be
replayed (``load_snapshot`` returns None, normalizing it fails loudly); a posting that left its
source more than ``keep_days`` ago keeps its curated row in ``jobs`` (closed), not its payloads.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import date, datetime, timedelta, timezone

import psycopg

from jobpipe.db.rows import one

DEFAULT_KEEP_DAYS = 30


@dataclass(frozen=True)
class PrunedSnapshots:
    fetch_runs: int = 0
    spans: int = 0
    payloads: int = 0
    normalized: int = 0           # normalized rows deleted with their payloads
    quarantined: int = 0          # quarantine rows deleted (fetch-stage of pruned days, rejects of pruned payloads)
    payload_bytes: int = 0        # stored size of the deleted payloads (jsonb, as PostgreSQL counts it)
    oldest_day: date | None = None   # the oldest day any source can still be replayed from
    keep_days: int = DEFAULT_KEEP_DAYS

    def __add__(self, other: PrunedSnapshots) -> PrunedSnapshots:
        """Counts summed (the days and window stay this one's)."""
        counts = {f.name: getattr(self, f.name) + getattr(other, f.name)
                  for f in fields(self) if f.name not in ("oldest_day", "keep_days")}
        return replace(self, **counts)

    def as_metadata(self) -> dict[str, object]:
        return {"fetch_runs_deleted": self.fetch_runs, "spans_deleted": self.spans,
                "payloads_deleted": self.payloads, "normalized_deleted": self.normalized,
                "quarantine_deleted": self.quarantined, "payload_bytes_deleted": self.payload_bytes,
                "replayable_from": self.oldest_day.isoformat() if self.oldest_day else None,
                "keep_days": self.keep_days}


def _cutoff(keep_days: int, today: date | None) -> date:
    if keep_days < 1:
        raise ValueError(f"keep_days must be at least 1 (got {keep_days}): the current day is always replayable")
    today = today or datetime.now(timezone.utc).date()
    return today - timedelta(days=keep_days - 1)   # the oldest kept day


def sources_to_prune(conn: psycopg.Connection, *, keep_days: int = DEFAULT_KEEP_DAYS,
                     today: date | None = None) -> list[str]:
    """The sources with history older than the window (the others have nothing to prune)."""
    cutoff = _cutoff(keep_days, today)
    sources = [r[0] for r in conn.execute(
        "SELECT source FROM fetch_runs GROUP BY source HAVING min(partition_date) < %s ORDER BY source", (cutoff,))]
    if not conn.autocommit:
        conn.commit()
    return sources


def prune_snapshots(conn: psycopg.Connection, *, keep_days: int = DEFAULT_KEEP_DAYS,
                    today: date | None = None) -> PrunedSnapshots:
    """Delete snapshot history older than ``keep_days`` (see the module docstring). Commits.

    One transaction per source, so a failure keeps what was pruned before it. Deleting nothing
    writes nothing. Takes no stage lock: ``jobpipe.pipeline.prune_history`` prunes each source
    under its lock, skipping one a run is busy with.
    """
    totals = PrunedSnapshots(keep_days=keep_days)
    for source in sources_to_prune(conn, keep_days=keep_days, today=today):
        totals = totals + prune_source(conn, source, keep_days=keep_days, today=today)
    return replace(totals, oldest_day=oldest_replayable_day(conn))


def oldest_replayable_day(conn: psycopg.Connection) -> date | None:
    oldest = one(conn.execute("SELECT min(partition_date) FROM fetch_runs"))[0]
    if not conn.autocommit:
        conn.commit()
    return oldest


def prune_source(conn: psycopg.Connection, source: str, *, keep_days: int = DEFAULT_KEEP_DAYS,
                 today: date | None = None) -> PrunedSnapshots:
    """Prune one source's history older than the window, in one transaction (committed)."""
    cutoff = _cutoff(keep_days, today)
    totals: dict[str, int] = dict(fetch_runs=0, spans=0, payloads=0, normalized=0, quarantined=0, payload_bytes=0)
    if not conn.autocommit:
        conn.commit()
    with conn.transaction():
        # the first kept run: the oldest inside the window, else the latest run
        first_kept = one(conn.execute(
            """SELECT coalesce(min(fetch_id) FILTER (WHERE partition_date >= %s), max(fetch_id))
               FROM fetch_runs WHERE source = %s""", (cutoff, source)))[0]
        deleted = [r[0] for r in conn.execute(
            "DELETE FROM listing_spans WHERE source = %s AND until_fetch IS NOT NULL AND until_fetch <= %s "
            "RETURNING raw_id", (source, first_kept))]
        totals["spans"] += len(deleted)
        released = sorted(set(deleted))
        runs = [r[0] for r in conn.execute(
            "DELETE FROM fetch_runs WHERE source = %s AND fetch_id < %s RETURNING partition_date",
            (source, first_kept))]
        totals["fetch_runs"] += len(runs)
        if runs:
            totals["quarantined"] += conn.execute(
                "DELETE FROM quarantine WHERE source = %s AND stage = 'fetch' AND partition_date < %s "
                "AND NOT EXISTS (SELECT 1 FROM fetch_runs f WHERE f.source = quarantine.source "
                "AND f.partition_date = quarantine.partition_date)", (source, max(runs) + timedelta(days=1))).rowcount
        # Payloads nothing refers to any more (of those the deleted spans held). Locked first: a fetch that reuses one locks it
        # too (FOR KEY SHARE), so either it waits for this delete or this skips that row.
        orphans = [r[0] for r in conn.execute(
            """SELECT r.raw_id FROM raw_postings r
               WHERE r.raw_id = ANY(%s) AND r.source = %s
                 AND NOT EXISTS (SELECT 1 FROM listing_spans s WHERE s.raw_id = r.raw_id)
                 AND NOT EXISTS (SELECT 1 FROM http_cache h WHERE h.source = r.source AND r.raw_id = ANY(h.raw_ids))
               FOR UPDATE SKIP LOCKED""", (released, source))] if released else []
        if orphans:
            normalized, quarantined = one(conn.execute(
                """SELECT (SELECT count(*) FROM normalized_postings WHERE raw_id = ANY(%(ids)s)),
                          (SELECT count(*) FROM quarantine WHERE raw_id = ANY(%(ids)s))""",
                {"ids": orphans}))
            size = one(conn.execute("SELECT coalesce(sum(pg_column_size(payload)), 0) FROM raw_postings "
                                    "WHERE raw_id = ANY(%s)", (orphans,)))[0]
            totals["payloads"] += conn.execute("DELETE FROM raw_postings WHERE raw_id = ANY(%s)", (orphans,)).rowcount
            totals["normalized"] += int(normalized)
            totals["quarantined"] += int(quarantined)
            totals["payload_bytes"] += int(size)
    if not conn.autocommit:
        conn.commit()
    return PrunedSnapshots(fetch_runs=totals["fetch_runs"], spans=totals["spans"], payloads=totals["payloads"],
                           normalized=totals["normalized"], quarantined=totals["quarantined"],
                           payload_bytes=totals["payload_bytes"], keep_days=keep_days)
