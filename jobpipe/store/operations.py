"""What the operator reads and acknowledges: per source and day what the stages did, the
problems that need a person, and accepted mass closes.

The stages record their results here whichever way they ran (``jobpipe run``, a Dagster run
from the UI, a backfill), so ``jobpipe status`` and ``jobpipe run``'s exit status read one
place, the jobpipe database, and need no Dagster instance.

A *problem* is one line naming the source, the figure and what to do: it is what the CLI
prints and what the failing Dagster check says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from jobpipe.db.rows import one

#: The check names the problems are filed under (the Dagster asset checks carry the same names).
REJECT_RATE = "reject_rate_below_threshold"
CLOSE_GUARD = "close_guard"


def reject_rate_problem(source: str, rejected: int, total: int, threshold: float) -> str | None:
    """The line for a reject rate above ``threshold`` (None when it is not)."""
    rate = rejected / total if total else 0.0
    if rate <= threshold:
        return None
    return (f"{source}: {rejected} of {total} postings rejected ({rate:.1%} > threshold {threshold:.0%}): the site "
            f"or its scraper changed; read why in the quarantine table (source = '{source}'), fix the source, "
            "then re-run the day")


def close_guard_problem(source: str, would_close: int, open_before: int, max_share: float) -> str:
    share = would_close / open_before if open_before else 1.0
    return (f"{source}: close guard refused to close {would_close} of {open_before} open postings ({share:.0%} > "
            f"{max_share:.0%}); nothing was closed. If they are really gone: `jobpipe sources accept-close {source}` "
            f"(the next run closes them), or set close_guard_share for {source} in the sources file")


def record_normalized(conn: psycopg.Connection, source: str, day: date, *, passed: int, rejected: int,
                      threshold: float, run_id: str | None = None) -> str | None:
    """Record the normalize stage's counts; returns the reject-rate problem, if any."""
    total = passed + rejected
    line = reject_rate_problem(source, rejected, total, threshold)
    conn.execute(
        """INSERT INTO source_days AS d (source, partition_date, normalized_at, passed, rejected, reject_rate,
                                         problems, dagster_run_id)
           VALUES (%(source)s, %(day)s, now(), %(passed)s, %(rejected)s, %(rate)s, %(problems)s, %(run)s)
           ON CONFLICT (source, partition_date) DO UPDATE SET
               normalized_at = now(), passed = EXCLUDED.passed, rejected = EXCLUDED.rejected,
               reject_rate = EXCLUDED.reject_rate, dagster_run_id = EXCLUDED.dagster_run_id,
               problems = (d.problems - %(check)s) || EXCLUDED.problems""",
        {"source": source, "day": day, "passed": passed, "rejected": rejected,
         "rate": rejected / total if total else 0.0, "problems": Jsonb({REJECT_RATE: line} if line else {}),
         "run": run_id, "check": REJECT_RATE})
    return line


def record_curated(conn: psycopg.Connection, source: str, day: date, *, inserted: int, updated: int,
                   unchanged: int, closed: int, would_close: int, refused: bool, reason: str | None,
                   open_before: int, max_share: float, run_id: str | None = None) -> str | None:
    """Record the curate stage's counts; returns the close-guard problem, if any."""
    line = close_guard_problem(source, would_close, open_before, max_share) if refused else None
    conn.execute(
        """INSERT INTO source_days AS d (source, partition_date, curated_at, inserted, updated, unchanged, closed,
                                         would_close, close_refused, close_reason, problems, dagster_run_id)
           VALUES (%(source)s, %(day)s, now(), %(inserted)s, %(updated)s, %(unchanged)s, %(closed)s,
                   %(would_close)s, %(refused)s, %(reason)s, %(problems)s, %(run)s)
           ON CONFLICT (source, partition_date) DO UPDATE SET
               curated_at = now(), inserted = EXCLUDED.inserted, updated = EXCLUDED.updated,
               unchanged = EXCLUDED.unchanged, closed = EXCLUDED.closed, would_close = EXCLUDED.would_close,
               close_refused = EXCLUDED.close_refused, close_reason = EXCLUDED.close_reason,
               dagster_run_id = EXCLUDED.dagster_run_id,
               problems = (d.problems - %(check)s) || EXCLUDED.problems""",
        {"source": source, "day": day, "inserted": inserted, "updated": updated, "unchanged": unchanged,
         "closed": closed, "would_close": would_close, "refused": refused, "reason": reason or None,
         "problems": Jsonb({CLOSE_GUARD: line} if line else {}), "run": run_id, "check": CLOSE_GUARD})
    return line


def day_problems(conn: psycopg.Connection, source: str, day: date) -> dict[str, str]:
    """The problems recorded for one source and day: check name -> line."""
    row = conn.execute("SELECT problems FROM source_days WHERE source = %s AND partition_date = %s",
                       (source, day)).fetchone()
    return dict(row[0]) if row else {}


# ----------------------------------------------------------------------------- accept-close
@dataclass(frozen=True)
class Acceptance:
    source: str
    accepted_at: datetime
    note: str | None


def accept_close(conn: psycopg.Connection, source: str, note: str | None = None) -> Acceptance:
    """Let the next confirmed listing of ``source`` close past the close guard, once. Commits."""
    row = one(conn.execute(
        """INSERT INTO close_acceptances (source, note) VALUES (%s, %s)
           ON CONFLICT (source) DO UPDATE SET accepted_at = now(), note = EXCLUDED.note
           RETURNING source, accepted_at, note""", (source, note)))
    conn.commit()
    return Acceptance(*row)


def pending_acceptance(conn: psycopg.Connection, source: str) -> Acceptance | None:
    row = conn.execute("SELECT source, accepted_at, note FROM close_acceptances WHERE source = %s",
                       (source,)).fetchone()
    return Acceptance(*row) if row else None


def consume_acceptance(conn: psycopg.Connection, source: str) -> None:
    """The accepted close happened: the next mass close needs a new acceptance (no commit)."""
    conn.execute("DELETE FROM close_acceptances WHERE source = %s", (source,))


def withdraw_acceptance(conn: psycopg.Connection, source: str) -> bool:
    deleted = conn.execute("DELETE FROM close_acceptances WHERE source = %s", (source,)).rowcount
    conn.commit()
    return bool(deleted)


def as_jsonable(value: Any) -> Any:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


@dataclass(frozen=True)
class StatusFacts:
    """What ``jobpipe status`` reads, per source: its last fetch run, last successful fetch, the
    stages' record of each day, and how many of its postings were embedded since its last curate."""

    last_runs: dict[str, tuple[Any, ...]]          # source -> (day, at, error, fetched, dagster_run_id)
    last_success: dict[str, datetime]
    days: dict[tuple[str, date], tuple[Any, ...]]   # (source, day) -> (rejected, inserted, updated,
                                                    #   unchanged, closed, problems, curated_at)
    embedded: dict[str, int]


def status_facts(conn: psycopg.Connection) -> StatusFacts:
    last = {r[0]: tuple(r[1:]) for r in conn.execute(
        """SELECT DISTINCT ON (source) source, partition_date, coalesce(finished_at, started_at), error,
                  postings_seen, dagster_run_id
           FROM fetch_runs ORDER BY source, fetch_id DESC""")}
    success: dict[str, datetime] = dict(conn.execute(
        "SELECT source, max(coalesce(finished_at, started_at)) FROM fetch_runs WHERE error IS NULL GROUP BY source"
    ).fetchall())
    days = {(r[0], r[1]): tuple(r[2:]) for r in conn.execute(
        """SELECT source, partition_date, rejected, inserted, updated, unchanged, closed, problems, curated_at
           FROM source_days""")}
    embedded: dict[str, int] = {}
    for source, day in {(s, v[0]) for s, v in last.items()}:
        curated_at = days.get((source, day), (None,) * 7)[6]
        if curated_at is not None:
            embedded[source] = one(conn.execute(
                """SELECT count(*) FROM job_embeddings e JOIN jobs j USING (job_id)
                   WHERE j.source = %s AND e.embedded_at >= %s""", (source, curated_at)))[0]
    return StatusFacts(last, success, days, embedded)


def fetched_sources(conn: psycopg.Connection) -> set[str]:
    """The sources this database has fetch runs of."""
    return {r[0] for r in conn.execute("SELECT DISTINCT source FROM fetch_runs")}


def last_refused_close(conn: psycopg.Connection, source: str) -> tuple[int, date] | None:
    """(postings it would have closed, day) when the source's last recorded day refused a close."""
    row = conn.execute("SELECT would_close, close_refused, partition_date FROM source_days WHERE source = %s "
                       "ORDER BY partition_date DESC LIMIT 1", (source,)).fetchone()
    return (row[0], row[2]) if row and row[1] else None
