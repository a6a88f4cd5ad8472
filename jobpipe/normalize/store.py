"""Normalized postings and quarantined rejects in PostgreSQL: one row per stored payload.

``normalized_postings`` holds what the normalizer made of each payload (keyed by ``raw_id``),
``quarantine`` (stage 'normalize') the payloads it rejected and why. ``normalize_fetch`` brings
one fetch run up to date:

* when the run was already normalized by this normalizer version (``fetch_runs.normalized_with``),
  nothing runs -- a replay of a past day whose normalizer is unchanged costs two queries;
* otherwise only the payloads that appeared after the source's last run normalized by this
  version are normalized (the new and changed postings of a night: its spans opened since);
* with no such run -- the first load, or the normalizer changed (``jobpipe.normalize.version``)
  -- every payload of the run's state is normalized once (a full re-normalization);

and writes only rows whose output differs from the stored one (by ``record_hash``), so an
unchanged posting's row is never rewritten, even by a full re-normalization.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from jobpipe.db.rows import one
from jobpipe.hashing import content_hash, record_digest
from jobpipe.models import NormalizedPosting, RawPosting
from jobpipe.normalize.batch import normalize_batch
from jobpipe.normalize.schema import Rejection, ValidationResult
from jobpipe.normalize.version import normalizer_version
from jobpipe.rows import INGEST_ID_COLUMNS, POSTING_COLUMNS, Column, RowBuilder, names, posting_from_row
from jobpipe.sources.extract import extract
from jobpipe.sources.snapshots import fetch_run, fetch_run_by_id, listing_condition, state_condition

#: Default share of rejected postings above which a source's asset check fails.
DEFAULT_REJECT_THRESHOLD = 0.05

#: normalized_postings' columns, in COPY order: the posting, its payload's and run's ids, its record hash.
_RECORD = Column("record_hash", "text", (), False, str)
_COLUMNS: tuple[Column, ...] = (*POSTING_COLUMNS, *INGEST_ID_COLUMNS, _RECORD)
_ROW = RowBuilder((*POSTING_COLUMNS, *INGEST_ID_COLUMNS))
_SOURCE_AT = _ROW.names.index("source")
_NAMES = ", ".join(names(_COLUMNS))
_READ_NAMES = ", ".join("n." + name for name in names((*POSTING_COLUMNS, *INGEST_ID_COLUMNS)))


class NotNormalizedError(RuntimeError):
    """A stage needs a fetch run normalized first."""


@dataclass(frozen=True)
class NormalizeCounts:
    """What ``write_normalized`` / ``normalize_fetch`` did."""

    passed: int                  # normalized payloads that passed validation
    rejected: int                # normalized payloads that were quarantined
    written: int = 0             # normalized rows inserted or rewritten (their output differed)
    normalized: int = 0          # payloads run through the normalizer by this call
    mode: str = "batch"          # "current" | "incremental" | "full" (normalize_fetch), "batch" (write_normalized)
    listed: int = 0              # postings of the run's state
    rejected_listed: int = 0     # of those, quarantined by the normalizer
    version: str = ""
    fetch_id: int | None = None
    rejections: tuple[Rejection, ...] = field(default=(), repr=False)

    @property
    def reject_rate(self) -> float:
        """Share of the run's postings the normalizer rejects (all of them, not only this call's)."""
        if self.listed:
            return self.rejected_listed / self.listed
        total = self.passed + self.rejected
        return self.rejected / total if total else 0.0

    def as_metadata(self) -> dict[str, object]:
        return {"normalized": self.normalized, "passed": self.passed, "rejected": self.rejected,
                "rows_written": self.written, "mode": self.mode, "postings": self.listed,
                "rejected_postings": self.rejected_listed, "reject_rate": round(self.reject_rate, 4),
                "normalizer_version": self.version}


def _record_hash(posting: NormalizedPosting) -> str:
    return record_digest(posting, posting.content_hash or content_hash(posting))


def write_normalized(conn: psycopg.Connection, source: str, partition_date: date, result: ValidationResult,
                     dagster_run_id: str | None = None, *, fetch_id: int | None = None) -> NormalizeCounts:
    """Store a validation result: each valid posting's row (by ``raw_id``) where it is new or its
    output differs, each rejection in ``quarantine``; a payload that now passes leaves the
    quarantine and one that now fails loses its row. Commits (in a savepoint if a transaction is open).

    Every posting must carry the ``raw_id`` of its stored payload: a row is what the normalizer
    made of one payload. ``partition_date`` is the day a rejection is filed under.
    """
    latest: dict[int, NormalizedPosting] = {}
    for p in result.valid:
        if p.raw_id is None:
            raise ValueError(f"posting {p.source}/{p.external_id} has no raw_id: normalized rows are per stored payload")
        latest[p.raw_id] = p
    rejected = {r.raw_id: r for r in result.rejected if r.raw_id is not None}
    ids = list(latest) + [raw_id for raw_id in rejected if raw_id not in latest]
    written = 0
    with conn.transaction():
        stored: dict[int, str] = dict(conn.execute(
            "SELECT raw_id, record_hash FROM normalized_postings WHERE raw_id = ANY(%s)", (ids,)).fetchall()) if ids else {}
        hashes = {raw_id: _record_hash(p) for raw_id, p in latest.items()}
        changed = [raw_id for raw_id, h in hashes.items() if stored.get(raw_id) != h]
        gone = [raw_id for raw_id in rejected if raw_id in stored]
        stale = [raw_id for raw_id in changed if raw_id in stored] + gone
        if stale:
            conn.execute("DELETE FROM normalized_postings WHERE raw_id = ANY(%s)", (stale,))
        if changed:
            with conn.cursor() as cur:
                with cur.copy(f"COPY normalized_postings ({_NAMES}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types([c.pg_type for c in _COLUMNS])
                    for raw_id in changed:
                        p = latest[raw_id]
                        row = _ROW(p)
                        row[_SOURCE_AT] = source   # the run's source, whatever the posting says
                        if fetch_id is not None:
                            row[-1] = fetch_id
                        copy.write_row([*row, hashes[raw_id]])
        written = len(changed)
        _write_rejections(conn, source, partition_date, rejected, list(latest), dagster_run_id, fetch_id)
    return NormalizeCounts(passed=len(latest), rejected=len(result.rejected), written=written,
                           normalized=len(latest) + len(result.rejected), rejections=tuple(result.rejected))


def _write_rejections(conn: psycopg.Connection, source: str, partition_date: date, rejected: dict[int, Rejection],
                      passed: list[int], dagster_run_id: str | None, fetch_id: int | None) -> None:
    """Quarantine rows per payload: inserted, replaced when the failed checks differ, deleted when it passes now."""
    if passed:
        conn.execute("DELETE FROM quarantine WHERE stage = 'normalize' AND raw_id = ANY(%s)", (passed,))
    if not rejected:
        return
    stored = {raw_id: checks for raw_id, checks in conn.execute(
        "SELECT raw_id, failed_checks FROM quarantine WHERE stage = 'normalize' AND raw_id = ANY(%s)",
        (list(rejected),))}
    fresh = [r for raw_id, r in rejected.items() if stored.get(raw_id) != list(r.failed_checks)]
    if not fresh:
        return
    conn.execute("DELETE FROM quarantine WHERE stage = 'normalize' AND raw_id = ANY(%s)",
                 ([r.raw_id for r in fresh if r.raw_id in stored],))
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO quarantine (source, partition_date, external_id, raw_id, fetch_id, failed_checks, dagster_run_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [(source, partition_date, r.external_id, r.raw_id, fetch_id if fetch_id is not None else r.fetch_id,
              Jsonb(list(r.failed_checks)), dagster_run_id) for r in fresh],
        )


def normalize_fetch(conn: psycopg.Connection, source: str, partition_date: date | str, *,
                    fetch_id: int | None = None, dagster_run_id: str | None = None,
                    version: str | None = None) -> NormalizeCounts:
    """Bring the normalized rows of one fetch run (the day's latest, or ``fetch_id``) up to date.

    See the module docstring for which payloads run. Raises :class:`NotNormalizedError` when the
    day has no stored fetch run (never fetched, or pruned by retention). Commits.
    """
    version = version or normalizer_version()
    run = fetch_run_by_id(conn, fetch_id) if fetch_id is not None else fetch_run(conn, source, partition_date)
    if run is None:
        # (never fetched, or older than the snapshot retention window: docs/sources.md)
        raise NotNormalizedError(f"no raw snapshot of source {source!r} for {partition_date}")
    where, params = state_condition(run)
    if run.normalized_with == version:
        counts = NormalizeCounts(0, 0, mode="current", version=version, fetch_id=run.fetch_id)
    else:
        since = one(conn.execute(
            "SELECT max(fetch_id) FROM fetch_runs WHERE source = %s AND fetch_id < %s AND normalized_with = %s",
            (run.source, run.fetch_id, version)))[0]
        mode = "full" if since is None else "incremental"
        query = (f"SELECT r.raw_id, r.external_id, r.format, r.payload, r.url, r.first_fetched_at "
                 f"FROM listing_spans s JOIN raw_postings r ON r.raw_id = s.raw_id WHERE {where}"
                 + (" AND s.from_fetch > %(since)s" if since is not None else "") + " ORDER BY r.raw_id")

        items = [(raw_id, RawPosting(source=run.source, external_id=eid, format=fmt, payload=payload, url=url,
                                     fetched_at=fetched_at))
                 for raw_id, eid, fmt, payload, url, fetched_at in conn.execute(query, params | {"since": since})]
        if not conn.autocommit:
            conn.commit()   # no snapshot held while the normalizer works
        result = normalize_batch(items, extract, fetch_id=run.fetch_id)
        with conn.transaction():
            written = write_normalized(conn, run.source, run.partition_date, result, dagster_run_id,
                                       fetch_id=run.fetch_id)
            conn.execute("UPDATE fetch_runs SET normalized_with = %s WHERE fetch_id = %s", (version, run.fetch_id))
        counts = NormalizeCounts(written.passed, written.rejected, written.written, len(items), mode,
                                 version=version, fetch_id=run.fetch_id, rejections=written.rejections)
    listed, rejected = one(conn.execute(
        f"""SELECT count(*), count(q.raw_id) FROM listing_spans s
            LEFT JOIN quarantine q ON q.raw_id = s.raw_id AND q.stage = 'normalize' WHERE {where}""",
        params))
    if not conn.autocommit:
        conn.commit()
    return NormalizeCounts(counts.passed, counts.rejected, counts.written, counts.normalized, counts.mode,
                           listed, rejected, version, run.fetch_id, counts.rejections)


def load_normalized(conn: psycopg.Connection, source: str, partition_date: date | str, *,
                    listed_only: bool = True) -> list[NormalizedPosting]:
    """The normalized postings of the day's latest fetch run, ordered by external id (what the
    run listed; ``listed_only=False``: its whole state, including postings an incomplete run
    did not list but that were not shown to be gone)."""
    run = fetch_run(conn, source, partition_date)
    if run is None:
        return []
    where, params = (listing_condition if listed_only else state_condition)(run)
    return load_normalized_where(conn, where, params)


def load_normalized_where(conn: psycopg.Connection, where: str, params: dict[str, Any]) -> list[NormalizedPosting]:
    """Normalized postings of the spans (``listing_spans s``) matching ``where``, by external id."""
    cur = conn.execute(f"SELECT {_READ_NAMES} FROM listing_spans s JOIN normalized_postings n ON n.raw_id = s.raw_id "
                       f"WHERE {where} ORDER BY n.external_id", params)
    keys = [d.name for d in cur.description or ()]
    return [posting_from_row(dict(zip(keys, r))) for r in cur.fetchall()]


_QUARANTINE_KEYS = ("stage", "position", "external_id", "raw_id", "fetch_id", "failed_checks", "raw_text", "dagster_run_id")


def load_quarantine(conn: psycopg.Connection, source: str, partition_date: date) -> list[dict[str, Any]]:
    """Everything quarantined for a day: items of its fetch that were not postings (``stage``
    'fetch', with ``position`` and ``raw_text``), then the payloads of its listing that the
    normalizer rejects (``stage`` 'normalize', whichever day first rejected them)."""
    rows = conn.execute(
        f"SELECT {', '.join(_QUARANTINE_KEYS)} FROM quarantine"
        " WHERE source = %s AND partition_date = %s AND stage = 'fetch' ORDER BY quarantine_id",
        (source, partition_date),
    ).fetchall()
    run = fetch_run(conn, source, partition_date)
    if run is not None:
        where, params = listing_condition(run)
        rows += conn.execute(
            f"SELECT {', '.join('q.' + k for k in _QUARANTINE_KEYS)} FROM quarantine q"
            f" JOIN listing_spans s ON s.raw_id = q.raw_id WHERE q.stage = 'normalize' AND {where}"
            " ORDER BY q.quarantine_id", params).fetchall()
    return [dict(zip(_QUARANTINE_KEYS, r)) for r in rows]


def reject_rates(conn: psycopg.Connection, partition_date: date | None = None) -> dict[str, tuple[int, int, float]]:
    """{source: (passed, rejected, reject rate)} over the postings each source lists now (its
    latest run), or, with ``partition_date``, over that day's latest fetch run of each source;
    items of the fetch that were not postings (quarantined at fetch time) count as rejected."""
    if partition_date is None:
        sources = [r[0] for r in conn.execute("SELECT DISTINCT source FROM listing_spans WHERE until_fetch IS NULL")]
        runs = [one(conn.execute("SELECT max(partition_date) FROM fetch_runs WHERE source = %s",
                                 (s,)))[0]
                for s in sources]
        pairs = list(zip(sources, runs))
    else:
        pairs = [(r[0], partition_date) for r in conn.execute(
            "SELECT DISTINCT source FROM fetch_runs WHERE partition_date = %s", (partition_date,))]
    out = {}
    for source, day in sorted(pairs):
        run = fetch_run(conn, source, day) if day is not None else None
        if run is None:
            continue
        where, params = state_condition(run)
        p, r = one(conn.execute(
            f"""SELECT count(n.raw_id), count(q.raw_id) FROM listing_spans s
                    LEFT JOIN normalized_postings n ON n.raw_id = s.raw_id
                    LEFT JOIN quarantine q ON q.raw_id = s.raw_id AND q.stage = 'normalize' WHERE {where}""",
            params))
        r += one(conn.execute("SELECT count(*) FROM quarantine WHERE stage = 'fetch' AND source = %s AND partition_date = %s",
                              (source, run.partition_date)))[0]
        out[source] = (int(p), int(r), r / (p + r) if p + r else 0.0)
    return out


def sources_over_threshold(rates: dict[str, tuple[int, int, float]], threshold: float = DEFAULT_REJECT_THRESHOLD) -> list[str]:
    """Sources whose reject rate passes the threshold (the asset check fails for these)."""
    return [source for source, (_, _, rate) in rates.items() if rate > threshold]
