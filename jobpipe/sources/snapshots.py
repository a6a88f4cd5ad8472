"""Raw snapshots: every distinct payload stored once, every fetch run's listing recorded, so
any past day can be normalized again from the database with no refetch.

Writes happen in one transaction per fetch run: either the run, its new payloads, its
listing and its conditional-request memory are all stored, or none is.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any
import psycopg
from psycopg import pq
from psycopg.types.json import Jsonb

from jobpipe.models import RawPosting
from jobpipe.sources.config import SourceConfig
from jobpipe.sources.errors import SourceFetchError
from jobpipe.sources.fetch import fetch_source
from jobpipe.sources.http import PoliteClient
from jobpipe.sources.payloads import clean_payload, payload_hash, payload_json
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


def record_fetch(conn: psycopg.Connection, config: SourceConfig, partition_date: date | str,
                 result: FetchResult, dagster_run_id: str | None = None) -> FetchSummary:
    """Store a fetch run, its new payloads and its listing, in one transaction.

    Commits when the connection had no transaction open; otherwise it runs in a savepoint
    and the caller's commit decides.
    """
    now = result.finished_at or datetime.now(timezone.utc)
    rows = []
    hashes: dict[int, str] = {}   # id(posting) -> payload hash, reused for the page memory
    for posting in result.postings:
        text = payload_json(posting.payload)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        hashes[id(posting)] = digest
        rows.append((posting.external_id, posting.format, text, digest,
                     posting.url, posting.fetched_at or result.started_at or now))
    with conn.transaction():
        fetch_id = conn.execute(
            """INSERT INTO fetch_runs (source, partition_date, kind, started_at, finished_at, complete, error,
                                       requests, not_modified, bytes_received, postings_seen, quarantined,
                                       listing_total, listing_doubts, ends_on_page_boundary, dagster_run_id)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING fetch_id""",
            (config.name, partition_date, config.kind, result.started_at or now, now, result.complete,
             result.error, result.requests, result.not_modified, result.bytes, len(rows), len(result.quarantined),
             result.listing.total, Jsonb(list(result.listing.doubts)), result.listing.on_boundary, dagster_run_id),
        ).fetchone()[0]  # type: ignore[index]
        _quarantine(conn, config.name, partition_date, fetch_id, result, dagster_run_id)
        ids: dict[tuple[str, str], int] = {}
        new_payloads = 0
        if rows:
            ids, new_payloads = _store_payloads(conn, config.name, rows, now)
            with conn.cursor().copy("COPY fetch_run_items (fetch_id, raw_id) FROM STDIN") as copy:
                for raw_id in sorted(set(ids.values())):
                    copy.write_row((fetch_id, raw_id))
        _remember_pages(conn, config, result, ids, hashes)
    summary = FetchSummary(fetch_id=fetch_id, source=config.name, fetched=len(rows), new_payloads=new_payloads,
                           complete=result.complete, error=result.error, requests=result.requests,
                           not_modified=result.not_modified, bytes=result.bytes, warnings=tuple(result.warnings),
                           quarantined=len(result.quarantined),
                           quarantine_sample=tuple(f"{q.position}: {q.reason}" for q in result.quarantined[:5]),
                           listing_doubts=tuple(result.listing.doubts))
    log.info("source %r: fetch %d recorded: %d postings, %d new payloads, complete=%s",
             config.name, fetch_id, summary.fetched, new_payloads, result.complete)
    return summary


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


def _store_payloads(conn: psycopg.Connection, source: str, rows: list[tuple[Any, ...]],
                    now: datetime) -> tuple[dict[tuple[str, str], int], int]:
    """Insert payloads not stored yet; bump ``last_fetched_at`` of those that are.

    Known payloads are matched by hash first, so an unchanged listing -- the nightly common
    case -- sends only ids and hashes, not megabytes of JSON.
    """
    ids: dict[tuple[str, str], int] = {}
    conn.execute("DROP TABLE IF EXISTS pg_temp.jobpipe_seen")
    conn.execute("CREATE TEMP TABLE jobpipe_seen (external_id text, payload_hash text) ON COMMIT DROP")
    with conn.cursor().copy("COPY jobpipe_seen FROM STDIN") as copy:
        for row in rows:
            copy.write_row((row[0], row[3]))
    for raw_id, external_id, hash_ in conn.execute(
            """UPDATE raw_postings r SET last_fetched_at = GREATEST(r.last_fetched_at, %s)
               FROM jobpipe_seen s
               WHERE r.source = %s AND r.external_id = s.external_id AND r.payload_hash = s.payload_hash
               RETURNING r.raw_id, r.external_id, r.payload_hash""", (now, source)):
        ids[(external_id, hash_)] = raw_id
    fresh = [row for row in rows if (row[0], row[3]) not in ids]
    new_payloads = 0
    if fresh:
        conn.execute("DROP TABLE IF EXISTS pg_temp.jobpipe_incoming")
        conn.execute("""CREATE TEMP TABLE jobpipe_incoming (external_id text, format text, payload text,
                        payload_hash text, url text, fetched_at timestamptz) ON COMMIT DROP""")
        with conn.cursor().copy("COPY jobpipe_incoming FROM STDIN") as copy:
            for row in fresh:
                copy.write_row(row)
        # ON CONFLICT still guards against a concurrent run of the same source
        for raw_id, external_id, hash_, inserted in conn.execute(
                """INSERT INTO raw_postings (source, external_id, format, payload, payload_hash, url,
                                             first_fetched_at, last_fetched_at)
                   SELECT %s, external_id, format, payload::jsonb, payload_hash, url, fetched_at, %s
                   FROM jobpipe_incoming
                   ON CONFLICT (source, external_id, payload_hash)
                   DO UPDATE SET last_fetched_at = GREATEST(raw_postings.last_fetched_at, EXCLUDED.last_fetched_at)
                   RETURNING raw_id, external_id, payload_hash, (xmax = 0) AS inserted""", (source, now)):
            ids[(external_id, hash_)] = raw_id
            new_payloads += bool(inserted)
    return ids, new_payloads


def _remember_pages(conn: psycopg.Connection, config: SourceConfig, result: FetchResult,
                    ids: dict[tuple[str, str], int], hashes: dict[int, str]) -> None:
    """Save each page's validators and outputs; a complete run also forgets pages it no longer visits."""
    rows = []
    for url, page in result.pages.items():
        raw_ids = []
        for posting in page.output.postings:
            digest = hashes.get(id(posting)) or payload_hash(posting.payload)
            raw_id = ids.get((posting.external_id, digest))
            if raw_id is None:
                break  # a duplicate replaced by a later payload: do not trust this page's memory
            raw_ids.append(raw_id)
        else:
            rows.append((config.name, url, config.fingerprint, page.etag, page.last_modified, raw_ids,
                         list(page.output.links), list(page.output.next_links), page.output.items,
                         page.output.total))
    if result.complete:
        conn.execute("DELETE FROM http_cache WHERE source = %s", (config.name,))
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


def load_snapshot(conn: psycopg.Connection, source_name: str, partition_date: date | str, *,
                  complete_only: bool = False) -> Snapshot | None:
    """The latest fetch run of a source on a partition day, with its payloads; None if never fetched."""
    run = conn.execute(
        f"""SELECT fetch_id, partition_date, complete, error, started_at, quarantined FROM fetch_runs
            WHERE source = %s AND partition_date = %s {'AND complete' if complete_only else ''}
            ORDER BY fetch_id DESC LIMIT 1""", (source_name, partition_date)).fetchone()
    if run is None:
        return None
    fetch_id, day, complete, error, started_at, quarantined = run
    items = [
        (raw_id, RawPosting(source=source_name, external_id=external_id, format=format_, payload=payload,
                            url=url, fetched_at=first_fetched_at))
        for raw_id, external_id, format_, payload, url, first_fetched_at in conn.execute(
            """SELECT r.raw_id, r.external_id, r.format, r.payload, r.url, r.first_fetched_at
               FROM fetch_run_items i JOIN raw_postings r USING (raw_id)
               WHERE i.fetch_id = %s ORDER BY r.raw_id""", (fetch_id,))
    ]
    return Snapshot(fetch_id=fetch_id, source=source_name, partition_date=day, complete=complete, error=error,
                    started_at=started_at, items=items, quarantined=quarantined)


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
    summary = record_fetch(conn, config, partition_date, result, dagster_run_id)
    if result.error is not None:
        raise SourceFetchError(config.name, result.error, fetch_id=summary.fetch_id)
    return summary

