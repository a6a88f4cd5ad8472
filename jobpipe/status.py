"""``jobpipe status``: per source, its last run, the outcome and counts, freshness, failing checks.

Read from jobpipe's own database (``fetch_runs``, ``source_days``, ``jobs``; the queries are
``jobpipe.store.operations.status_facts``), so it answers the
same whether the runs came from ``jobpipe run``, the Dagster UI or a backfill. A source is
*stale* when its last successful fetch is older than its ``freshness_hours`` (sources file) or
``JOBPIPE_FRESHNESS_HOURS`` (36 h); the Dagster ``sources_fresh`` check reports the same verdict.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import psycopg

from jobpipe.sources import SourceConfig
from jobpipe.store.operations import status_facts

FRESHNESS_CHECK = "sources_fresh"
FETCH_CHECK = "fetch"


@dataclass(frozen=True)
class SourceStatus:
    source: str
    in_sources_file: bool
    last_day: date | None = None            # partition day of the last fetch run
    last_run_at: datetime | None = None     # when it finished (or started, if it never finished)
    dagster_run_id: str | None = None
    outcome: str = "never run"              # ok | failed | problems | never run
    error: str | None = None                # the last fetch's error
    counts: dict[str, int] = field(default_factory=dict)
    last_success_at: datetime | None = None
    hours_since_success: float | None = None
    freshness_hours: float = 36.0
    fresh: bool = False
    failing: dict[str, str] = field(default_factory=dict)   # check -> the line saying what to do

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("last_day", "last_run_at", "last_success_at"):
            if out[key] is not None:
                out[key] = out[key].isoformat()
        if out["hours_since_success"] is not None:
            out["hours_since_success"] = round(out["hours_since_success"], 2)
        return out


def source_status(conn: psycopg.Connection, configs: list[SourceConfig], *, default_freshness_hours: float = 36.0,
                  now: datetime | None = None) -> list[SourceStatus]:
    """One :class:`SourceStatus` per enabled source of ``configs``, then any other source the database holds."""
    now = now or datetime.now(timezone.utc)
    limits = {c.name: (c.freshness_hours or default_freshness_hours) for c in configs if c.enabled}
    facts = status_facts(conn)
    last, success, days, embedded = facts.last_runs, facts.last_success, facts.days, facts.embedded
    names = list(limits) + sorted(set(last) - set(limits))
    out = []
    for name in names:
        limit = limits.get(name, default_freshness_hours)
        if name not in last:
            out.append(SourceStatus(name, name in limits, freshness_hours=limit,
                                    failing={FRESHNESS_CHECK: f"{name}: never fetched; run `jobpipe run` or "
                                                              "wait for the nightly schedule"}))
            continue
        day, at, error, fetched, run_id = last[name]
        rejected, inserted, updated, unchanged, closed, problems, _curated = days.get((name, day), (None,) * 7)
        counts = {"fetched": fetched or 0, "inserted": inserted or 0, "updated": updated or 0,
                  "unchanged": unchanged or 0, "rejected": rejected or 0, "closed": closed or 0,
                  "embedded": embedded.get(name, 0)}
        failing = dict(problems or {})
        if error:
            failing[FETCH_CHECK] = f"{name}: the last fetch ({day}) failed: {error}"
        last_ok = success.get(name)
        hours = (now - last_ok).total_seconds() / 3600 if last_ok else None
        fresh = hours is not None and hours <= limit
        if not fresh:
            since = f"{hours:.0f} h ago" if hours is not None else "never"
            failing[FRESHNESS_CHECK] = (f"{name}: stale: last successful fetch {since} (limit {limit:g} h); "
                                        "see the failed runs, or raise freshness_hours for it in the sources file")
        outcome = "failed" if error else ("problems" if problems else "ok")
        out.append(SourceStatus(name, name in limits, day, at, run_id, outcome, error, counts, last_ok, hours,
                                limit, fresh, failing))
    return out


def format_status(rows: list[SourceStatus]) -> str:
    cols = ("fetched", "inserted", "updated", "unchanged", "rejected", "closed", "embedded")
    width = max([len("source")] + [len(r.source) for r in rows]) + 2
    lines = ["source".ljust(width) + "last day    " + "outcome   " + "".join(c.rjust(10) for c in cols)
             + "  fresh"]
    for r in rows:
        fresh = ("yes" if r.fresh else "STALE") + (f" ({r.hours_since_success:.1f} h / {r.freshness_hours:g} h)"
                                                   if r.hours_since_success is not None else "")
        lines.append(r.source.ljust(width) + (r.last_day.isoformat() if r.last_day else "-").ljust(12)
                     + r.outcome.ljust(10) + "".join(str(r.counts.get(c, 0)).rjust(10) for c in cols) + "  " + fresh)
    problems = [line for r in rows for line in r.failing.values()]
    if problems:
        lines.append("")
        lines.append(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}:")
        lines.extend(f"  {line}" for line in problems)
    return "\n".join(lines)
