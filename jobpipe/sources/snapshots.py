"""Raw snapshots: every distinct payload stored once, what every fetch run listed kept
compactly, so any past day inside the retention window can be normalized again from the
database with no refetch.

What a source lists is stored as *spans* (``listing_spans``, sql/0020): one row per posting
and payload for the consecutive runs that listed that payload. A night whose listing equals
the stored state -- the common case -- is recognized by one digest and writes nothing but its
``fetch_runs`` row: no payload row is touched, no per-posting row is added. A changed payload
stores the new payload, closes one span and opens one; a posting that left a confirmed listing
has its span closed. An incomplete or unconfirmed listing proves no absence: it closes no
span and records which open postings it did not list (``unlisted`` or, when shorter,
``listed_only``), so replaying it gives exactly what it saw.

Writes happen in one transaction per fetch run: either the run, its new payloads, its spans
and its conditional-request memory are all stored, or none is.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import psycopg
from psycopg import pq
from psycopg.types.json import Jsonb

from jobpipe.db.rows import one
from jobpipe.models import RawPosting
from jobpipe.sources.config import SourceConfig
from jobpipe.sources.errors import SourceFetchError
from jobpipe.sources.fetch import fetch_source
from jobpipe.sources.http import PoliteClient
from jobpipe.sources.payloads import clean_payload, payload_json
from jobpipe.sources.result import CachedPage, FetchResult, FetchState, PageOutput

log = logging.getLogger("jobpipe.sources")


@dataclass(frozen=True)
class FetchSummary:
    """What ``record_fetch`` / ``run_source`` report (also handy as Dagster metadata)."""

    fetch_id: int
    source: str
    fetched: int               # postings listed by this run
    new_payloads: int          # raw rows inserted (new postings or changed payloads)
    complete: bool
    error: str | None = None
    requests: int = 0
    not_modified: int = 0
    bytes: int = 0
    warnings: tuple[str, ...] = ()
    quarantined: int = 0        # listed items that were not postings (rows in ``quarantine``)
    quarantine_sample: tuple[str, ...] = ()   # "position: reason" of the first few
    listing_doubts: tuple[str, ...] = ()      # why the listing may be short (it then closes nothing)
    listed_new: int = 0         # postings listed for the first time (or again, after leaving)
    listed_changed: int = 0     # postings listed with another payload than before
    listed_removed: int = 0     # postings this (confirmed) listing no longer has
    unchanged: bool = False     # the listing equals the stored state: nothing but the run row written

    def as_metadata(self) -> dict[str, object]:
        return {"fetched": self.fetched, "new_payloads": self.new_payloads, "complete": self.complete,
                "fetch_id": self.fetch_id, "requests": self.requests, "not_modified": self.not_modified,
                "listed_new": self.listed_new, "listed_changed": self.listed_changed,
                "listed_removed": self.listed_removed, "listing_unchanged": self.unchanged}


@dataclass(frozen=True)
class Snapshot:
    """One fetch run as stored: its listing, with each payload's ``raw_id``.

    ``fetched_at`` of each RawPosting is when that exact payload was first fetched, the
    right anchor for relative dates ("3 days ago") it contains.
    """

    fetch_id: int
    source: str
    partition_date: date
    complete: bool
    error: str | None
    started_at: datetime
    items: list[tuple[int, RawPosting]] = field(default_factory=list)
    quarantined: int = 0

    @property
    def postings(self) -> list[RawPosting]:
        return [posting for _, posting in self.items]


@dataclass(frozen=True)
class FetchRun:
    """A ``fetch_runs`` row as the later stages need it (no payloads)."""

    fetch_id: int
    source: str
    partition_date: date
    started_at: datetime
    complete: bool
    postings_seen: int
    unlisted: tuple[str, ...] | None
    listed_only: tuple[str, ...] | None
    normalized_with: str | None
    curated_at: datetime | None
    latest: bool                 # no later fetch run of the source exists


# ---------------------------------------------------------------------------------- writing
class ListingReplayError(RuntimeError):
    """A fetch reused the last run's listing (an unchanged input) but the stored state moved since."""


_State = dict[str, tuple[int, str]]   # external id -> (raw_id, payload hash) of its open span


def state_digest(pairs: Iterable[tuple[str, str]]) -> bytes:
    """Digest of a set of (external id, payload hash): what a listing and a stored state are compared by."""
    return hashlib.sha256(b"listing-state-1" + marshal.dumps(sorted(pairs), 2)).digest()


def record_fetch(conn: psycopg.Connection, config: SourceConfig, partition_date: date | str,
                 result: FetchResult, dagster_run_id: str | None = None) -> FetchSummary:
    """Store a fetch run: its new payloads, the changes of its listing, in one transaction.

    Commits when the connection had no transaction open; otherwise it runs in a savepoint
    and the caller's commit decides.
    """
    now = result.finished_at or datetime.now(timezone.utc)
    # One posting per external id, the last payload winning (fetch_source already does this).
    latest: dict[str, RawPosting] = {}
    for posting in result.postings:
        latest.pop(posting.external_id, None)
        latest[posting.external_id] = posting
    texts: dict[str, str] = {}
    listing: dict[str, str] = {}
    for external_id, posting in latest.items():
        text = payload_json(posting.payload)
        texts[external_id] = text
        listing[external_id] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    listed_digest = state_digest(listing.items())
    with conn.transaction():
        fetch_id = one(conn.execute("SELECT nextval(pg_get_serial_sequence('fetch_runs', 'fetch_id'))"))[0]
        previous = conn.execute(
            "SELECT fetch_id, listing_digest, postings_seen, complete AND unlisted IS NULL AND listed_only IS NULL "
            "FROM fetch_runs WHERE source = %s ORDER BY fetch_id DESC LIMIT 1", (config.name,)).fetchone()
        open_spans = one(conn.execute(
            "SELECT count(*) FROM listing_spans WHERE source = %s AND until_fetch IS NULL", (config.name,)
        ))[0]
        state: _State | None = None
        listed = len(latest)
        if result.listing_unchanged:
            # the input is the last clean run's, byte for byte: so is the listing, if the state still is
            if previous is None or previous[1] is None or not previous[3] or open_spans != previous[2]:
                raise ListingReplayError(f"source {config.name!r}: the input is unchanged but the stored state is not "
                                         "the last run's listing")
            listed_digest, listed = bytes(previous[1]), previous[2]
        unchanged = (previous is not None and previous[1] is not None and bytes(previous[1]) == listed_digest
                     and open_spans == listed)
        new_payloads = listed_new = listed_changed = listed_removed = 0
        unlisted: list[str] | None = None
        listed_only: list[str] | None = None
        digest = listed_digest
        if not unchanged:
            state = _read_state(conn, config.name)
            confirmed = _confirmed(conn, config.name, result, len(latest))
            fresh = [eid for eid, h in listing.items() if state.get(eid, (0, ""))[1] != h]
            absent = [eid for eid in state if eid not in listing]
            listed_changed = sum(1 for eid in fresh if eid in state)
            listed_new = len(fresh) - listed_changed
            raw_ids, new_payloads = _store_payloads(conn, config.name, latest, texts, listing, fresh)
            closing = [eid for eid in fresh if eid in state]
            if confirmed:
                closing += absent
                listed_removed = len(absent)
            elif absent:
                if len(latest) < len(absent):
                    listed_only = sorted(latest)
                else:
                    unlisted = sorted(absent)
            _write_spans(conn, config.name, fetch_id, closing,
                         [(eid, raw_ids[eid], listing[eid]) for eid in fresh])
            for eid in closing:
                state.pop(eid, None)
            for eid in fresh:
                state[eid] = (raw_ids[eid], listing[eid])
            digest = state_digest((eid, h) for eid, (_, h) in state.items())
        conn.execute(
            """INSERT INTO fetch_runs (fetch_id, source, partition_date, kind, started_at, finished_at, complete, error,
                                       requests, not_modified, bytes_received, postings_seen, quarantined,
                                       listing_total, listing_doubts, ends_on_page_boundary, dagster_run_id,
                                       listing_digest, listed_new, listed_changed, listed_removed, unlisted,
                                       listed_only)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
            (fetch_id, config.name, partition_date, config.kind, result.started_at or now, now, result.complete,
             result.error, result.requests, result.not_modified, result.bytes, listed, len(result.quarantined),
             result.listing.total, Jsonb(list(result.listing.doubts)), result.listing.on_boundary, dagster_run_id,
             digest, listed_new, listed_changed, listed_removed, unlisted, listed_only),
        )
        _quarantine(conn, config.name, partition_date, fetch_id, result, dagster_run_id)
        by_object = {id(posting): listing[eid] for eid, posting in latest.items()}
        _remember_pages(conn, config, result, by_object,
                        lambda: state if state is not None else _read_state(conn, config.name))
    summary = FetchSummary(fetch_id=fetch_id, source=config.name, fetched=listed, new_payloads=new_payloads,
                           complete=result.complete, error=result.error, requests=result.requests,
                           not_modified=result.not_modified, bytes=result.bytes, warnings=tuple(result.warnings),
                           quarantined=len(result.quarantined),
                           quarantine_sample=tuple(f"{q.position}: {q.reason}" for q in result.quarantined[:5]),
                           listing_doubts=tuple(result.listing.doubts), listed_new=listed_new,
                           listed_changed=listed_changed, listed_removed=listed_removed, unchanged=unchanged)
    log.info("source %r: fetch %d recorded: %d postings (%d new, %d changed, %d removed), %d new payloads, "
             "complete=%s", config.name, fetch_id, summary.fetched, listed_new, listed_changed, listed_removed,
             new_payloads, result.complete)
    return summary


def _read_state(conn: psycopg.Connection, source: str) -> _State:
    """The source's open spans, from their index alone."""
    return {eid: (raw_id, h) for eid, raw_id, h in conn.execute(
        "SELECT external_id, raw_id, payload_hash FROM listing_spans WHERE source = %s AND until_fetch IS NULL",
        (source,))}


def _confirmed(conn: psycopg.Connection, source: str, result: FetchResult, postings: int) -> bool:
    """Whether this listing proves that the postings it lacks are gone (jobpipe.store.closing's rule)."""
    # here, not at the top: a cycle (jobpipe.store's package imports store.curate -> normalize.store -> this module)
    from jobpipe.store.closing import Listing, listing_verdict

    previous = conn.execute(
        "SELECT postings_seen + quarantined FROM fetch_runs WHERE source = %s AND complete "
        "ORDER BY fetch_id DESC LIMIT 1", (source,)).fetchone()
    verdict = listing_verdict(Listing(complete=result.complete, listed=postings + len(result.quarantined),
                                      doubts=tuple(result.listing.doubts), on_page_boundary=result.listing.on_boundary,
                                      previous_listed=previous[0] if previous else None))
    return verdict.confirmed


def _store_payloads(conn: psycopg.Connection, source: str, postings: dict[str, RawPosting], texts: dict[str, str],
                    hashes: dict[str, str], fresh: list[str]) -> tuple[dict[str, int], int]:
    """Insert the payloads not stored yet; return every fresh posting's raw_id and how many were inserted.

    A payload seen before (a posting that went back to an earlier version, or came back) keeps
    its row; it is locked (FOR KEY SHARE) so retention cannot delete it before its span exists.
    """
    if not fresh:
        return {}, 0
    ids: dict[str, int] = {}
    conn.execute("DROP TABLE IF EXISTS pg_temp.jobpipe_incoming")
    conn.execute("""CREATE TEMP TABLE jobpipe_incoming (external_id text, format text, payload text,
                    payload_hash text, url text, fetched_at timestamptz) ON COMMIT DROP""")
    with conn.cursor().copy("COPY jobpipe_incoming FROM STDIN") as copy:
        for eid in fresh:
            posting = postings[eid]
            copy.write_row((eid, posting.format, texts[eid], hashes[eid], posting.url, posting.fetched_at))
    for raw_id, eid in conn.execute(
            """SELECT r.raw_id, r.external_id FROM raw_postings r JOIN jobpipe_incoming i
               ON r.source = %s AND r.external_id = i.external_id AND r.payload_hash = i.payload_hash
               FOR KEY SHARE OF r""", (source,)):
        ids[eid] = raw_id
    inserted = 0
    if len(ids) < len(fresh):
        # ON CONFLICT still guards against a concurrent run of the same source
        for raw_id, eid in conn.execute(
                """INSERT INTO raw_postings (source, external_id, format, payload, payload_hash, url,
                                             first_fetched_at, last_fetched_at)
                   SELECT %s, i.external_id, i.format, i.payload::jsonb, i.payload_hash, i.url,
                          coalesce(i.fetched_at, now()), coalesce(i.fetched_at, now())
                   FROM jobpipe_incoming i
                   WHERE NOT (i.external_id = ANY(%s))
                   ON CONFLICT (source, external_id, payload_hash) DO NOTHING
                   RETURNING raw_id, external_id""", (source, list(ids))):
            ids[eid] = raw_id
            inserted += 1
        missing = [eid for eid in fresh if eid not in ids]
        if missing:   # inserted meanwhile by a concurrent run: take its row
            for raw_id, eid in conn.execute(
                    """SELECT r.raw_id, r.external_id FROM raw_postings r JOIN jobpipe_incoming i
                       ON r.source = %s AND r.external_id = i.external_id AND r.payload_hash = i.payload_hash
                       WHERE i.external_id = ANY(%s) FOR KEY SHARE OF r""", (source, missing)):
                ids[eid] = raw_id
    return ids, inserted


def _write_spans(conn: psycopg.Connection, source: str, fetch_id: int, closing: list[str],
                 opening: list[tuple[str, int, str]]) -> None:
    """Close the open spans of ``closing`` at this run, open spans for ``opening``."""
    if closing:
        conn.execute("UPDATE listing_spans SET until_fetch = %s WHERE source = %s AND until_fetch IS NULL "
                     "AND external_id = ANY(%s)", (fetch_id, source, closing))
    if opening:
        with conn.cursor().copy("COPY listing_spans (source, external_id, raw_id, payload_hash, from_fetch) "
                                "FROM STDIN") as copy:
            for eid, raw_id, digest in opening:
                copy.write_row((source, eid, raw_id, digest, fetch_id))


def _quarantine(conn: psycopg.Connection, source: str, partition_date: date | str, fetch_id: int,
                result: FetchResult, dagster_run_id: str | None) -> None:
    """The run's quarantined items replace the day's earlier fetch-stage rows: the day's
    snapshot is its latest fetch run, and so is what it quarantined."""
    conn.execute("DELETE FROM quarantine WHERE source = %s AND partition_date = %s AND stage = 'fetch'",
                 (source, partition_date))
    if not result.quarantined:
        return
    with conn.cursor() as cur:
        cur.executemany(
            """INSERT INTO quarantine (source, partition_date, external_id, fetch_id, failed_checks, stage, position,
                                       raw_text, dagster_run_id)
               VALUES (%s, %s, %s, %s, %s, 'fetch', %s, %s, %s)""",
            [(source, partition_date, item.external_id, fetch_id, Jsonb([clean_payload(item.reason)]),
              clean_payload(item.position), clean_payload(item.raw), dagster_run_id) for item in result.quarantined])


def _remember_pages(conn: psycopg.Connection, config: SourceConfig, result: FetchResult,
                    hashes: dict[int, str], read_state: Any) -> None:
    """Save the validators and outputs of the pages that changed; a complete run also forgets
    pages it no longer visits. A page answered with 304, or re-served identically, writes nothing."""
    stored = {row[0]: row[1:] for row in conn.execute(
        """SELECT url, config_hash, etag, last_modified, raw_ids, links, next_links, items, total
           FROM http_cache WHERE source = %s""", (config.name,))}
    rows = []
    state: _State | None = None
    for url, page in result.pages.items():
        raw_ids = []
        for posting in page.output.postings:
            if id(posting) not in hashes:
                break  # a duplicate replaced by a later payload: do not trust this page's memory
            if state is None:
                state = read_state()
            raw_ids.append(state[posting.external_id][0])
        else:
            row = (config.fingerprint, page.etag, page.last_modified, raw_ids, list(page.output.links),
                   list(page.output.next_links), page.output.items, page.output.total)
            old = stored.get(url)
            if old is None or tuple(old[:3]) + (list(old[3]), list(old[4]), list(old[5]), old[6], old[7]) != row:
                rows.append((config.name, url, *row))
    if result.complete:
        gone = [url for url in stored if url not in result.pages]
        if gone:
            conn.execute("DELETE FROM http_cache WHERE source = %s AND url = ANY(%s)", (config.name, gone))
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO http_cache (source, url, config_hash, etag, last_modified, raw_ids, links, next_links,
                                          items, total)
                   VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                   ON CONFLICT (source, url) DO UPDATE SET config_hash = EXCLUDED.config_hash, etag = EXCLUDED.etag,
                       last_modified = EXCLUDED.last_modified, raw_ids = EXCLUDED.raw_ids, links = EXCLUDED.links,
                       next_links = EXCLUDED.next_links, items = EXCLUDED.items, total = EXCLUDED.total,
                       updated_at = now()""",
                rows)


# ---------------------------------------------------------------------------------- reading
def load_fetch_state(conn: psycopg.Connection, config: SourceConfig) -> FetchState:
    """The pages remembered for ``config`` (ignored when its kind or options changed since)."""
    pages = conn.execute(
        """SELECT url, etag, last_modified, raw_ids, links, next_links, items, total FROM http_cache
           WHERE source = %s AND config_hash = %s""", (config.name, config.fingerprint)).fetchall()
    if not pages:
        return {}
    wanted = sorted({raw_id for page in pages for raw_id in page[3]})
    postings = {
        raw_id: RawPosting(source=config.name, external_id=external_id, format=format_, payload=payload,
                           url=url, fetched_at=first_fetched_at)
        for raw_id, external_id, format_, payload, url, first_fetched_at in conn.execute(
            """SELECT raw_id, external_id, format, payload, url, first_fetched_at FROM raw_postings
               WHERE raw_id = ANY(%s)""", (wanted,))
    }
    state: FetchState = {}
    for url, etag, last_modified, raw_ids, links, next_links, items, total in pages:
        if all(r in postings for r in raw_ids):
            state[url] = CachedPage(url, etag, last_modified,
                                    PageOutput(tuple(postings[r] for r in raw_ids), tuple(links), tuple(next_links),
                                               items=items, total=total))
    return state


_RUN_COLUMNS = ("fetch_id, source, partition_date, started_at, complete, postings_seen, unlisted, listed_only, "
                "normalized_with, curated_at")


def _fetch_run(conn: psycopg.Connection, row: tuple[Any, ...] | None) -> FetchRun | None:
    if row is None:
        return None
    later = one(conn.execute("SELECT EXISTS (SELECT 1 FROM fetch_runs WHERE source = %s AND fetch_id > %s)",
                             (row[1], row[0])))[0]
    return FetchRun(row[0], row[1], row[2], row[3], row[4], row[5],
                    tuple(row[6]) if row[6] is not None else None, tuple(row[7]) if row[7] is not None else None,
                    row[8], row[9], not later)


def fetch_run(conn: psycopg.Connection, source: str, partition_date: date | str, *,
              complete_only: bool = False) -> FetchRun | None:
    """The latest fetch run of a source on a partition day (None if that day was never fetched,
    or its runs were pruned by retention)."""
    row = conn.execute(
        f"""SELECT {_RUN_COLUMNS} FROM fetch_runs WHERE source = %s AND partition_date = %s
            {'AND complete' if complete_only else ''} ORDER BY fetch_id DESC LIMIT 1""",
        (source, partition_date)).fetchone()
    return _fetch_run(conn, row)


def fetch_run_by_id(conn: psycopg.Connection, fetch_id: int) -> FetchRun | None:
    return _fetch_run(conn, conn.execute(f"SELECT {_RUN_COLUMNS} FROM fetch_runs WHERE fetch_id = %s",
                                         (fetch_id,)).fetchone())


def state_condition(run: FetchRun, alias: str = "s") -> tuple[str, dict[str, Any]]:
    """SQL condition (on ``listing_spans`` as ``alias``) for the spans open at ``run``: the
    postings the store believes the source listed then, listed by the run itself or not."""
    if run.latest:
        return (f"{alias}.source = %(span_source)s AND {alias}.until_fetch IS NULL", {"span_source": run.source})
    return (f"{alias}.source = %(span_source)s AND {alias}.from_fetch <= %(span_fetch)s "
            f"AND ({alias}.until_fetch IS NULL OR {alias}.until_fetch > %(span_fetch)s)",
            {"span_source": run.source, "span_fetch": run.fetch_id})


def listing_condition(run: FetchRun, alias: str = "s") -> tuple[str, dict[str, Any]]:
    """SQL condition for the postings ``run`` listed itself (its state minus what it did not list)."""
    where, params = state_condition(run, alias)
    if run.unlisted:
        where += f" AND NOT ({alias}.external_id = ANY(%(span_unlisted)s))"
        params["span_unlisted"] = list(run.unlisted)
    if run.listed_only is not None:
        where += f" AND {alias}.external_id = ANY(%(span_only)s)"
        params["span_only"] = list(run.listed_only)
    return where, params


def listed_external_ids(conn: psycopg.Connection, run: FetchRun) -> list[str]:
    """External ids of the postings ``run`` listed."""
    where, params = listing_condition(run)
    return [eid for (eid,) in conn.execute(f"SELECT s.external_id FROM listing_spans s WHERE {where}", params)]


def load_snapshot(conn: psycopg.Connection, source_name: str, partition_date: date | str, *,
                  complete_only: bool = False) -> Snapshot | None:
    """The latest fetch run of a source on a partition day, with its payloads; None if never
    fetched (or pruned: replay reaches the retention window, see ``jobpipe.sources.retention``)."""
    run = fetch_run(conn, source_name, partition_date, complete_only=complete_only)
    if run is None:
        return None
    row = conn.execute("SELECT complete, error, quarantined FROM fetch_runs WHERE fetch_id = %s",
                       (run.fetch_id,)).fetchone()
    assert row is not None
    where, params = listing_condition(run)
    items = [
        (raw_id, RawPosting(source=source_name, external_id=external_id, format=format_, payload=payload,
                            url=url, fetched_at=first_fetched_at))
        for raw_id, external_id, format_, payload, url, first_fetched_at in conn.execute(
            f"""SELECT r.raw_id, r.external_id, r.format, r.payload, r.url, r.first_fetched_at
                FROM listing_spans s JOIN raw_postings r ON r.raw_id = s.raw_id
                WHERE {where} ORDER BY r.raw_id""", params)
    ]
    return Snapshot(fetch_id=run.fetch_id, source=source_name, partition_date=run.partition_date, complete=row[0],
                    error=row[1], started_at=run.started_at, items=items, quarantined=row[2])


def first_fetch_day(conn: psycopg.Connection) -> date | None:
    """The first partition day anything was fetched for (None before the first fetch)."""
    return one(conn.execute("SELECT min(partition_date) FROM fetch_runs"))[0]


def replayable_days(conn: psycopg.Connection, source_name: str) -> list[date]:
    """The days of ``source_name`` whose latest fetch run stored a listing (its error is NULL).

    These are the days a backfill can replay; the others were never fetched, or failed.
    """
    return [day for (day,) in conn.execute(
        """SELECT partition_date FROM (
               SELECT DISTINCT ON (partition_date) partition_date, error FROM fetch_runs
               WHERE source = %s ORDER BY partition_date, fetch_id DESC) latest
           WHERE error IS NULL ORDER BY partition_date""", (source_name,))]


def describe_days(days: list[date], *, limit: int = 6) -> str:
    """``days`` as ranges, oldest first: '2026-11-20 to 2026-11-28, 2026-11-30 (10 days)'.

    Past ``limit`` ranges only the newest are listed: '40 days in 9 ranges, the newest: ...'.
    """
    if not days:
        return "none"
    ranges: list[list[date]] = []
    for day in sorted(set(days)):
        if ranges and (day - ranges[-1][1]).days == 1:
            ranges[-1][1] = day
        else:
            ranges.append([day, day])
    text = [a.isoformat() if a == b else f"{a.isoformat()} to {b.isoformat()}" for a, b in ranges]
    count = len(set(days))
    plural = "s" if count != 1 else ""
    if len(text) > limit:
        return f"{count} day{plural} in {len(text)} ranges, the newest: " + ", ".join(text[-limit:])
    return ", ".join(text) + f" ({count} day{plural})"


def run_source(conn: psycopg.Connection, config: SourceConfig, partition_date: date | str, *,
               client: PoliteClient | None = None, dagster_run_id: str | None = None) -> FetchSummary:
    """Fetch a source and record the run; raise :class:`SourceFetchError` if it failed.

    The failed run is committed before raising, so the error is in ``fetch_runs`` even though
    the partition fails. Call it with no transaction open on ``conn`` (the usual case): no
    transaction is held open during the HTTP fetch.
    """
    owns_transaction = conn.info.transaction_status == pq.TransactionStatus.IDLE
    state = load_fetch_state(conn, config)
    if owns_transaction and not conn.autocommit:
        conn.commit()
    result = fetch_source(config, client, state=state)
    try:
        summary = record_fetch(conn, config, partition_date, result, dagster_run_id)
    except ListingReplayError as exc:   # read the input again, without the memory
        log.warning("%s: fetching again without the remembered input", exc)
        if not conn.autocommit and conn.info.transaction_status == pq.TransactionStatus.INERROR:
            conn.rollback()
        result = fetch_source(config, client, state={})
        summary = record_fetch(conn, config, partition_date, result, dagster_run_id)
    if result.error is not None:
        raise SourceFetchError(config.name, result.error, fetch_id=summary.fetch_id)
    return summary
