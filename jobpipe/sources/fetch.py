"""Fetch one source: run its kind, and turn whatever happened into a FetchResult.

Errors never escape as exceptions here: a failed source is a result with ``complete``
false and the error text, so the caller can record it before failing the partition.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone

from jobpipe.config import get_settings
from jobpipe.models import RawPosting
from jobpipe.sources.config import SourceConfig
from jobpipe.sources.errors import FetchError
from jobpipe.sources.http import PoliteClient
from jobpipe.sources.kinds import KINDS
from jobpipe.sources.result import FetchResult, FetchState
from jobpipe.sources.session import SourceSession

log = logging.getLogger("jobpipe.sources")


def dedupe_postings(postings: list[RawPosting]) -> tuple[list[RawPosting], int]:
    """One posting per external id: the first position, the last payload (detail pages come last)."""
    index: dict[str, int] = {}
    out: list[RawPosting] = []
    duplicates = 0
    for posting in postings:
        if posting.external_id in index:
            duplicates += 1
            out[index[posting.external_id]] = posting
        else:
            index[posting.external_id] = len(out)
            out.append(posting)
    return out, duplicates


def fetch_source(config: SourceConfig, client: PoliteClient | None = None, *,
                 state: FetchState | None = None) -> FetchResult:
    """Fetch every posting of ``config``; ``state`` (URL -> cached page) enables 304 reuse."""
    if not config.robots:
        log.warning("source %r: fetching WITHOUT respecting robots.txt (robots: false)", config.name)
    own_client = client is None
    if client is None:
        client = PoliteClient(rate_limit=config.rate_limit, deadline=get_settings().fetch_deadline)
    started = datetime.now(timezone.utc)
    session = SourceSession(client, config, state, started)
    postings: list[RawPosting] = []
    error: str | None = None
    try:
        for posting in KINDS[config.kind].fetch(session):
            postings.append(posting)
    except FetchError as exc:
        error = str(exc)
    except Exception as exc:  # a bug or an unexpected payload: still a recorded, failed run
        log.exception("source %r: unexpected error", config.name)
        error = f"{type(exc).__name__}: {exc}"
    finally:
        if own_client:
            client.close()
    if error is None and session.errors:
        more = f" (and {len(session.errors) - 1} more)" if len(session.errors) > 1 else ""
        error = f"{len(session.errors)} page(s) failed: {session.errors[0]}{more}"
    if session.quarantined:
        session.warn(f"{len(session.quarantined)} listed item(s) quarantined (not postings): first "
                     f"{session.quarantined[0].position}: {session.quarantined[0].reason}")
    if error is None and session.listing.doubts:
        session.warn("listing UNCONFIRMED: " + "; ".join(session.listing.doubts)
                     + " (postings missing from it stay open until a listing confirms their absence)")
    postings, duplicates = dedupe_postings(postings)
    if duplicates:
        session.warn(f"{duplicates} duplicate posting(s) by external id: kept one each")
    stats = session.stats
    return FetchResult(
        source=config.name, kind=config.kind, postings=postings,
        complete=error is None and not session.truncated, error=error,
        requests=stats.requests, not_modified=stats.not_modified, bytes=stats.bytes, retries=stats.retries,
        pages=session.pages, warnings=session.warnings, quarantined=session.quarantined, listing=session.listing,
        listing_unchanged=session.listing_unchanged,
        started_at=started,
        finished_at=datetime.now(timezone.utc),
    )
