"""One fetch run into the curated store: what changed since the last curated run, and nothing else.

``curate_fetch`` takes a fetch run whose payloads are normalized and upserts into ``jobs`` only
the postings that may differ from what the store took in last time: payloads the source listed
after the source's last curated run (new, changed, or back), and rows the normalizer rewrote
after it (a new normalizer version, a replay). An unchanged night therefore upserts nothing,
tokenizes nothing and writes nothing but the run's ``curated_at``. A first run, or a run of a
source never curated, takes the whole listing (the upsert compares hashes, so it is still
idempotent).

Every upserted posting carries the run's observation time (``fetch_runs.started_at``): a replay
or backfill of a past day never overwrites newer content and never reopens a posting closed
after that day (``jobpipe.store.upsert``). Only the source's latest run closes postings: those
its confirmed listing no longer has (``close_vanished``) and those past their ``valid_through``
(``close_expired``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import psycopg

from jobpipe.db.rows import one
from jobpipe.normalize.store import NotNormalizedError, load_normalized_where
from jobpipe.sources.snapshots import fetch_run, fetch_run_by_id, state_condition
from jobpipe.store.closing import CloseResult, ExpiredResult, close_expired, close_vanished
from jobpipe.store.pending import merge_gin_pending
from jobpipe.store.terms import TermCounts, sync_job_terms
from jobpipe.store.upsert import UpsertCounts, upsert_jobs


@dataclass(frozen=True)
class CurateCounts:
    fetch_id: int
    candidates: int                       # postings handed to the upsert
    mode: str                             # "changes" (since the last curated run) | "full"
    upsert: UpsertCounts = field(default_factory=UpsertCounts)
    terms: TermCounts = field(default_factory=TermCounts)
    closing: CloseResult | None = None    # None: not the source's latest run (nothing closed)
    expired: ExpiredResult = field(default_factory=lambda: ExpiredResult(0))
    latest: bool = True
    unchanged: int = 0                    # postings of the run (normalized, not rejected) left as they were

    @property
    def closed(self) -> int:
        return (self.closing.closed if self.closing else 0) + self.expired.closed

    def as_metadata(self) -> dict[str, object]:
        return {"candidates": self.candidates, "mode": self.mode, **self.upsert.as_metadata(),
                "unchanged": self.unchanged,
                **self.terms.as_metadata(), "closed": self.closed, "expired": self.expired.closed,
                "latest_run": self.latest}


def curate_fetch(conn: psycopg.Connection, source: str, partition_date: date | str, *, fetch_id: int | None = None,
                 max_share: float = 0.3) -> CurateCounts:
    """Upsert what changed in one fetch run (the day's latest, or ``fetch_id``), tokenize it, close
    what vanished or expired when it is the latest run, and mark the run curated. Commits.

    Raises ``NotNormalizedError`` when the run has not been normalized (``normalize_fetch`` first).
    """
    run = fetch_run_by_id(conn, fetch_id) if fetch_id is not None else fetch_run(conn, source, partition_date)
    if run is None:
        raise NotNormalizedError(f"no raw snapshot of source {source!r} for {partition_date}")
    if run.normalized_with is None:
        raise NotNormalizedError(f"fetch run {run.fetch_id} of source {source!r} ({run.partition_date}) is not "
                                 "normalized yet: normalize it first")
    since = one(conn.execute(
        "SELECT max(fetch_id) FROM fetch_runs WHERE source = %s AND fetch_id < %s AND curated_at IS NOT NULL",
        (run.source, run.fetch_id)))[0]
    where, params = state_condition(run)   # postings an incomplete run did not list are kept, so they count
    if since is None:
        postings = load_normalized_where(conn, where, params)
    else:
        # two index-driven halves: spans opened since, rows (re)normalized since
        params = params | {"since": since}
        postings = load_normalized_where(conn, f"{where} AND s.from_fetch > %(since)s", params)
        seen = {p.raw_id for p in postings}
        postings += [p for p in load_normalized_where(
            conn, f"{where} AND n.source = %(span_source)s AND n.fetch_id > %(since)s", params) if p.raw_id not in seen]
    if not conn.autocommit:
        conn.commit()
    upsert = upsert_jobs(conn, postings, observed_at=run.started_at) if postings else UpsertCounts()
    # Keyword terms for exactly the postings whose search text changed (before closing, so the
    # vanished ones keep theirs for include_closed searches).
    terms = sync_job_terms(conn, source=run.source)
    closing = close_vanished(conn, run.source, run.partition_date, max_share=max_share) if run.latest else None
    expired = close_expired(conn, run.source) if run.latest else ExpiredResult(0)
    if upsert.inserted or upsert.updated or terms.computed or (closing and closing.closed) or expired.closed:
        # The upsert's and the closings' GIN entries (jobs' own indexes, and job_terms' through
        # the filter-copy trigger), so the night's first searches do not scan them.
        merge_gin_pending(conn, ["jobs", "job_terms"])
    conn.execute("UPDATE fetch_runs SET curated_at = now() WHERE fetch_id = %s", (run.fetch_id,))
    where, params = state_condition(run)
    postings_now, rejected = one(conn.execute(
        f"""SELECT (SELECT count(*) FROM listing_spans s WHERE {where}),
                   (SELECT count(*) FROM quarantine q JOIN listing_spans s ON s.raw_id = q.raw_id
                    WHERE q.stage = 'normalize' AND {where})""", params))
    if not conn.autocommit:
        conn.commit()
    unchanged = max(0, postings_now - rejected - upsert.inserted - upsert.updated)
    return CurateCounts(run.fetch_id, len(postings), "full" if since is None else "changes", upsert, terms, closing,
                        expired, run.latest, unchanged)
