"""Normalized postings and quarantined rejects in PostgreSQL, one (source, partition day) at a time.

Writing a partition replaces it whole in one transaction, so a rerun (after a parser fix, or a
retried Dagster run) yields exactly the rows a first run would have, and readers never see a
half-written day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from jobpipe.models import NormalizedPosting, Salary
from jobpipe.normalize.schema import ValidationResult

#: Default share of rejected postings above which a source's asset check fails.
DEFAULT_REJECT_THRESHOLD = 0.05

_COLUMNS = (
    "source", "partition_date", "external_id", "raw_id", "fetch_id", "title", "company", "location_raw", "cities",
    "country", "remote", "job_type", "seniority", "salary_min", "salary_max", "salary_currency", "salary_period",
    "salary_months", "salary_negotiable", "salary_annual_min", "salary_annual_max", "experience_min",
    "experience_max", "degree", "skills", "language", "description_text", "url", "posted_at", "valid_through",
    "content_hash",
)


@dataclass(frozen=True)
class NormalizeCounts:
    passed: int
    rejected: int

    @property
    def reject_rate(self) -> float:
        total = self.passed + self.rejected
        return self.rejected / total if total else 0.0


def _row(source: str, partition_date: date, p: NormalizedPosting) -> tuple[Any, ...]:
    s = p.salary
    return (
        source, partition_date, p.external_id, p.raw_id, p.fetch_id, p.title, p.company, p.location_raw,
        list(p.cities), p.country, p.remote, p.job_type, p.seniority, s.min, s.max, s.currency, s.period,
        s.months_per_year, bool(s.negotiable), p.salary_annual_min, p.salary_annual_max, p.experience_min,
        p.experience_max, p.degree, list(p.skills), p.language, p.description_text, p.url, p.posted_at,
        p.valid_through, p.content_hash,
    )


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
        conn.execute("DELETE FROM quarantine WHERE source = %s AND partition_date = %s", (source, partition_date))
        if latest:
            with conn.cursor() as cur:
                with cur.copy(f"COPY normalized_postings ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
                    for p in latest.values():
                        copy.write_row(_row(source, partition_date, p))
        if result.rejected:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO quarantine (source, partition_date, external_id, raw_id, fetch_id, failed_checks, dagster_run_id)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [(source, partition_date, r.external_id, r.raw_id, r.fetch_id, Jsonb(list(r.failed_checks)), dagster_run_id)
                     for r in result.rejected],
                )
    return NormalizeCounts(passed=len(latest), rejected=len(result.rejected))


def _num(v: Any) -> float | None:
    if v is None:
        return None
    return float(v) if isinstance(v, (Decimal, int, float)) else v


def load_normalized(conn: psycopg.Connection, source: str, partition_date: date) -> list[NormalizedPosting]:
    """The partition's normalized postings, ordered by external id."""
    rows = conn.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM normalized_postings WHERE source = %s AND partition_date = %s ORDER BY external_id",
        (source, partition_date),
    ).fetchall()
    out = []
    for r in rows:
        d = dict(zip(_COLUMNS, r))
        out.append(NormalizedPosting(
            source=d["source"], external_id=d["external_id"], title=d["title"], company=d["company"],
            location_raw=d["location_raw"], cities=list(d["cities"] or []), country=d["country"], remote=d["remote"],
            job_type=d["job_type"], seniority=d["seniority"],
            salary=Salary(min=_num(d["salary_min"]), max=_num(d["salary_max"]), currency=d["salary_currency"],
                          period=d["salary_period"], months_per_year=d["salary_months"],
                          negotiable=bool(d["salary_negotiable"])),
            salary_annual_min=_num(d["salary_annual_min"]), salary_annual_max=_num(d["salary_annual_max"]),
            experience_min=_num(d["experience_min"]), experience_max=_num(d["experience_max"]), degree=d["degree"],
            skills=list(d["skills"] or []), language=d["language"], description_text=d["description_text"],
            url=d["url"], posted_at=d["posted_at"], valid_through=d["valid_through"], content_hash=d["content_hash"],
            raw_id=d["raw_id"], fetch_id=d["fetch_id"],
        ))
    return out


def load_quarantine(conn: psycopg.Connection, source: str, partition_date: date) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT external_id, raw_id, fetch_id, failed_checks, dagster_run_id FROM quarantine"
        " WHERE source = %s AND partition_date = %s ORDER BY quarantine_id",
        (source, partition_date),
    ).fetchall()
    return [dict(zip(("external_id", "raw_id", "fetch_id", "failed_checks", "dagster_run_id"), r)) for r in rows]


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
