"""One source, one day: fetch (or replay) -> normalize -> curate (upsert, keyword terms, close).

Each stage reads what the previous one stored, never an in-memory hand-over, so any stage of
any (source, day) can be re-run alone: a Dagster partition retried, a past day backfilled,
``jobpipe.sync`` run twice. Each takes an open connection and returns a typed result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

from jobpipe.config import get_settings
from jobpipe.models import RawPosting
from jobpipe.normalize import NotNormalizedError, normalize_fetch
from jobpipe.pipeline.errors import NoSnapshotError, SourceFailedError
from jobpipe.pipeline.locking import locked, source_lock
from jobpipe.pipeline.report import Report
from jobpipe.sources import (
    SourceConfig,
    SourceFetchError,
    describe_days,
    fetch_run,
    record_fetch,
    replayable_days,
    run_source,
)
from jobpipe.sources.fetch import dedupe_postings
from jobpipe.sources.hostslots import host_slot, source_host
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.kinds.file import mapped_row
from jobpipe.sources.payloads import payload_json
from jobpipe.sources.result import FetchResult, Quarantined
from jobpipe.store import curate_fetch
from jobpipe.store.operations import record_curated, record_normalized

#: The checks a source's day can fail; the Dagster asset checks carry these names.
REJECT_RATE_CHECK = "reject_rate_below_threshold"   # normalized_postings: too many postings rejected
CLOSE_GUARD_CHECK = "close_guard"                   # curated_jobs: a mass close was refused
LISTING_CHECK = "listing_confirmed"                 # curated_jobs: the listing was not trusted to close


#: ``fetch_runs.kind`` of a listing handed over by a caller (``record_day``, ``jobpipe.sync``).
RECORDS_KIND = "records"


def partition_today() -> date:
    """The day a fetch made now belongs to: today in the partitions' time zone, the schedule's
    (JOBPIPE_SCHEDULE_TIMEZONE, UTC by default), so a 02:00 run in Shanghai is of its own day."""
    return datetime.now(ZoneInfo(get_settings().schedule_timezone)).date()


#: The former name, kept while branches written against it land; new code calls partition_today.
utc_today = partition_today


@dataclass(frozen=True)
class FetchOutcome(Report):
    """What the fetch (or the replay of a past day) stored for one source and day."""

    fetch_id: int = 0
    fetched: int = 0          # postings in the listing
    complete: bool = False    # every listing page fetched: closing may act on it
    new_payloads: int = 0     # raw payloads stored for the first time
    requests: int = 0
    not_modified: int = 0     # conditional requests answered 304
    replayed: bool = False    # a past day: read from the stored snapshot, nothing fetched
    quarantined: int = 0      # listed items that were not postings (``quarantine`` rows, stage 'fetch')
    quarantine_sample: list[str] = field(default_factory=list)   # "position: reason" of the first few
    listed_new: int = 0       # postings listed for the first time (or again, after leaving)
    listed_changed: int = 0   # postings listed with another payload than before
    listed_removed: int = 0   # postings a confirmed listing no longer has
    listing_unchanged: bool = False   # the listing equals the stored state: only the run's row was written


def _fetched(summary: Any) -> FetchOutcome:
    return FetchOutcome(fetch_id=summary.fetch_id, fetched=summary.fetched, complete=summary.complete,
                        new_payloads=summary.new_payloads, requests=summary.requests,
                        not_modified=summary.not_modified, quarantined=summary.quarantined,
                        quarantine_sample=list(summary.quarantine_sample), listed_new=summary.listed_new,
                        listed_changed=summary.listed_changed, listed_removed=summary.listed_removed,
                        listing_unchanged=summary.unchanged)


def fetch_day(conn: psycopg.Connection, config: SourceConfig, day: date, *,
              run_id: str | None = None, slots_url: str | None = None) -> FetchOutcome:
    """Fetch ``config`` over HTTP (politely, conditionally) and store the run as ``day``'s snapshot.

    With ``slots_url`` (the database's URL) the fetch holds one of the host's
    ``JOBPIPE_HOST_CONCURRENCY`` slots meanwhile (``jobpipe.sources.hostslots``). A failed fetch
    is recorded (``fetch_runs.error``) before :class:`SourceFailedError` is raised. A source
    another run is working on raises :class:`StageBusyError` before anything is fetched.
    """
    host = source_host(config) if slots_url else None
    with locked(conn, source_lock(config.name), stage="fetch", run_id=run_id):
        try:
            with host_slot(slots_url or "", host, get_settings().host_concurrency):
                summary = run_source(conn, config, day, dagster_run_id=run_id)
        except SourceFetchError as exc:
            raise SourceFailedError(f"source {config.name!r} failed: {exc}", source=config.name,
                                    error=str(exc)) from exc
    return _fetched(summary)


def replay_day(conn: psycopg.Connection, source: str, day: date) -> FetchOutcome:
    """Confirm ``day`` has a stored snapshot of ``source``: past days are replayed, never refetched
    (and only inside the snapshot retention window, ``JOBPIPE_SNAPSHOT_RETENTION_DAYS``)."""
    run = fetch_run(conn, source, day)
    row = conn.execute("SELECT quarantined, error FROM fetch_runs WHERE fetch_id = %s",
                       (run.fetch_id,)).fetchone() if run is not None else None
    if run is None or row is None or row[1]:
        # A day whose fetch failed has no listing to replay (replaying it would report a failed
        # night as a successful one, with whatever the source listed before).
        days = describe_days(replayable_days(conn, source))
        what = (f"the fetch of source {source!r} for {day} failed ({row[1]})" if row is not None
                else f"no raw snapshot of source {source!r} for {day}")
        raise NoSnapshotError(f"{what}: past days are replayed from stored payloads and cannot be fetched "
                              "again (snapshot history is kept for JOBPIPE_SNAPSHOT_RETENTION_DAYS days); days of "
                              f"{source!r} that can be replayed: {days}", source=source, day=day.isoformat(),
                              replayable_days=days)
    return FetchOutcome(fetch_id=run.fetch_id, fetched=run.postings_seen, complete=run.complete,
                        replayed=True, quarantined=row[0])


def ingest_day(conn: psycopg.Connection, source: str, day: date, *, config: Callable[[str], SourceConfig],
               run_id: str | None = None, today: date | None = None, slots_url: str | None = None) -> FetchOutcome:
    """Today's day is fetched; a past day is replayed (the web no longer shows that day).

    ``config`` looks a source up by name; it is only called for a fetch, so a source removed
    from the sources file can still be replayed.
    """
    if day < (today or partition_today()):
        return replay_day(conn, source, day)
    return fetch_day(conn, config(source), day, run_id=run_id, slots_url=slots_url)


#: What ``record_day`` accepts as one record: a posting as a source delivered it, or a plain mapping
#: of posting fields (``external_id`` or ``id``, ``title``, ``company``, ``location``, ``salary``,
#: ``description``, ``url``, ``posted_at``...; other keys are kept under ``extra``), read like a
#: row of a file drop.
Record = RawPosting | Mapping[str, Any]


def as_postings(source: str, records: Iterable[Record]) -> tuple[list[RawPosting], list[Quarantined]]:
    """``records`` as the source's postings; one that cannot be (no id, not a mapping) is quarantined."""
    postings: list[RawPosting] = []
    bad: list[Quarantined] = []
    for index, record in enumerate(records, start=1):
        position = f"record {index}"
        if isinstance(record, RawPosting):
            if record.source != source:
                bad.append(Quarantined(position, f"a posting of source {record.source!r}, not {source!r}",
                                       payload_json(record.payload), record.external_id))
                continue
            postings.append(record)
            continue
        if not isinstance(record, Mapping):
            bad.append(Quarantined(position, f"expected a mapping of posting fields, got {type(record).__name__}",
                                   repr(record)[:2000]))
            continue
        try:
            row = _plain(dict(record))
            text = payload_json(row)
        except (TypeError, ValueError) as exc:
            bad.append(Quarantined(position, f"not JSON data: {exc}", repr(record)[:2000]))
            continue
        payload = mapped_row(row)
        ident = as_text(payload.get("external_id"))
        if ident is None:
            bad.append(Quarantined(position, "no 'external_id' or 'id'", text))
            continue
        postings.append(RawPosting(source=source, external_id=ident, format="file", payload=payload,
                                   url=as_text(payload.get("url"))))
    return dedupe_postings(postings)[0], bad


def _plain(value: Any) -> Any:
    """Dates and times as ISO text, tuples as lists: what a record's JSON payload can hold."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def record_day(conn: psycopg.Connection, source: str, day: date, records: Iterable[Record], *,
               complete: bool = True, run_id: str | None = None) -> FetchOutcome:
    """Store records fetched elsewhere (your own scraper, an export) as ``day``'s snapshot of ``source``.

    ``complete``: the records are the source's whole listing, so its open postings missing from
    them may be closed (behind the guard). Records that are not postings are quarantined.
    """
    postings, bad = as_postings(source, records)
    now = datetime.now(timezone.utc)
    result = FetchResult(source=source, kind=RECORDS_KIND, postings=postings, complete=complete,
                         quarantined=bad, started_at=now, finished_at=now)
    with locked(conn, source_lock(source), stage="record", run_id=run_id):
        summary = record_fetch(conn, SourceConfig(name=source, kind=RECORDS_KIND), day, result, run_id)
    return _fetched(summary)


@dataclass(frozen=True)
class NormalizeOutcome(Report):
    """The run's new and changed payloads normalized and validated: rows stored, the rest quarantined."""

    passed: int = 0           # normalized by this stage and valid
    rejected: int = 0         # normalized by this stage and quarantined
    reject_rate: float = 0.0  # over every posting of the run (not only tonight's)
    threshold: float = 1.0
    #: failed check -> postings that failed it (of those normalized by this stage)
    failed_checks: dict[str, int] = field(default_factory=dict)
    normalized: int = 0       # payloads run through the normalizer: new or changed since the last run of its version
    rows_written: int = 0     # normalized rows inserted or rewritten (their output differed)
    mode: str = ""            # "current" (nothing to do) | "incremental" | "full" (first load, new normalizer)
    postings: int = 0         # postings of the run
    rejected_postings: int = 0   # of those, quarantined by the normalizer
    normalizer_version: str = ""
    #: above the threshold: one line naming the source, the share and what to do
    problem: str = ""

    @property
    def within_threshold(self) -> bool:
        """False when so many postings failed that the source's scraper or site probably changed."""
        return self.reject_rate <= self.threshold

    @property
    def summary(self) -> str:
        return (f"{self.rejected_postings} of {self.postings} postings rejected ({self.reject_rate:.1%}; "
                f"threshold {self.threshold:.0%}); normalized now: {self.normalized} ({self.mode})")


def normalize_day(conn: psycopg.Connection, source: str, day: date, *, threshold: float,
                  run_id: str | None = None) -> NormalizeOutcome:
    """Normalize the day's new and changed payloads (``jobpipe.normalize.normalize_fetch``): none
    on an unchanged night or a replay under the same normalizer, all once after it changed."""
    try:
        with locked(conn, source_lock(source), stage="normalize", run_id=run_id):
            counts = normalize_fetch(conn, source, day, dagster_run_id=run_id)
    except NotNormalizedError as exc:
        raise NoSnapshotError(str(exc), source=source, day=day.isoformat()) from exc
    failed: dict[str, int] = {}
    for rejection in counts.rejections:
        for check in rejection.failed_checks:
            key = check.split(":")[0][:80]
            failed[key] = failed.get(key, 0) + 1
    # the day's figures over every posting of the run (tonight's normalizer may have seen none)
    problem = record_normalized(conn, source, day, passed=counts.listed - counts.rejected_listed,
                                rejected=counts.rejected_listed, threshold=threshold, run_id=run_id)
    return NormalizeOutcome(passed=counts.passed, rejected=counts.rejected, reject_rate=round(counts.reject_rate, 4),
                            threshold=threshold, failed_checks=failed, normalized=counts.normalized,
                            rows_written=counts.written, mode=counts.mode, postings=counts.listed,
                            rejected_postings=counts.rejected_listed, normalizer_version=counts.version,
                            problem=problem or "")


@dataclass(frozen=True)
class CurateOutcome(Report):
    """What changed in the run upserted into ``jobs``, its keyword terms refreshed, vanished ones closed."""

    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    reopened: int = 0
    terms_computed: int = 0
    terms_workers: int = 0
    closed: int = 0               # vanished and expired postings closed
    would_close: int = 0          # open postings missing from the listing
    close_refused: bool = False   # the mass-close guard refused: nothing closed
    listing_confirmed: bool = True   # False: the listing was not trusted to close anything
    close_reason: str = "ok"      # why nothing (or not everything missing) was closed
    max_share: float = 0.0
    considered: bool = True       # False: not the source's latest day (a replay closes nothing)
    candidates: int = 0           # postings handed to the upsert: changed since the last curated run
    older: int = 0                # left alone: the store holds content observed later (a replay)
    expired: int = 0              # closed because their valid_through passed
    mode: str = ""                # "changes" | "full" (the source's first curated run)
    open_before: int = 0          # the source's open postings before closing
    accepted: bool = False        # an operator's accept-close lifted the guard for this close
    #: a refused mass close: one line naming the source, the share and what to do
    problem: str = ""


def curate_day(conn: psycopg.Connection, source: str, day: date, *, max_share: float,
               run_id: str | None = None) -> CurateOutcome:
    """Upsert what changed since the source's last curated run, re-tokenize it, close what vanished
    or expired (``jobpipe.store.curate_fetch``).

    Postings carry the run's observation time: a replay or backfill of an older day never
    overwrites newer content. Keyword terms are computed before closing, so the vanished postings
    keep theirs for ``include_closed`` searches. Whether anything closes is
    ``jobpipe.store.close_vanished``'s decision (only the latest run's confirmed listing, behind
    the mass-close guard).
    """
    try:
        with locked(conn, source_lock(source), stage="curate", run_id=run_id):
            counts = curate_fetch(conn, source, day, max_share=max_share)
            closing = counts.closing
            problem = record_curated(conn, source, day, inserted=counts.upsert.inserted,
                                     updated=counts.upsert.updated, unchanged=counts.unchanged, closed=counts.closed,
                                     would_close=closing.would_close if closing else 0,
                                     refused=bool(closing and closing.refused),
                                     reason=closing.reason if closing else None,
                                     open_before=closing.open_before if closing else 0, max_share=max_share,
                                     run_id=run_id)
    except NotNormalizedError as exc:
        raise NoSnapshotError(str(exc), source=source, day=day.isoformat()) from exc
    return CurateOutcome(inserted=counts.upsert.inserted, updated=counts.upsert.updated, unchanged=counts.unchanged,
                         reopened=counts.upsert.reopened, terms_computed=counts.terms.computed,
                         terms_workers=counts.terms.workers, closed=counts.closed,
                         would_close=closing.would_close if closing else 0,
                         close_refused=bool(closing and closing.refused),
                         listing_confirmed=closing.confirmed if closing else True,
                         close_reason=(closing.reason if closing else "not the latest day's listing: nothing closed")
                         or "ok", max_share=max_share, considered=closing.considered if closing else False,
                         candidates=counts.candidates, older=counts.upsert.older, expired=counts.expired.closed,
                         mode=counts.mode, open_before=closing.open_before if closing else 0,
                         accepted=bool(closing and closing.accepted), problem=problem or "")
