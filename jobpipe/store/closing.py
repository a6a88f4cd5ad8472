"""Closing postings that vanished from a source's listing: when a listing may close anything,
and the guard against mass closing.

A source that returns half its listing (an API error page, a changed selector, pagination
cut short) looks exactly like a source whose jobs were all filled. So:

1. only the latest day's listing, fetched without error, may close anything;
2. a listing must be *confirmed*: its pages gave no reason to doubt it (``listing_doubts``:
   an empty or short page in the middle, a total that disagrees with the postings seen), and
   a listing that ended exactly on a page boundary is not shorter than the listing before it.
   Postings missing from an unconfirmed listing stay open; the next listing that confirms
   their absence closes them;
3. even then, closing more than ``max_share`` of the source's open postings at once is
   refused wholesale: nothing is closed and the reason is reported.

``listing_verdict`` and ``close_decision`` are the rules as plain functions; ``close_vanished``
reads what they need from the database and applies them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date

import psycopg

from jobpipe.db.rows import one
from jobpipe.store.operations import consume_acceptance, pending_acceptance

log = logging.getLogger("jobpipe.store")

_MISSING = """
FROM jobs j
WHERE j.source = %(source)s AND j.closed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM unnest(%(seen)s::text[]) AS seen(external_id) WHERE seen.external_id = j.external_id)
"""


@dataclass(frozen=True)
class Listing:
    """What a fetch run saw, as far as closing cares."""

    complete: bool                       # every page fetched without error, no page bound hit
    listed: int                          # postings and quarantined items listed
    doubts: tuple[str, ...] = ()         # reasons the pages gave to doubt the listing
    on_page_boundary: bool = False       # it ended on an empty page
    previous_listed: int | None = None   # the previous complete listing of the source, if any


@dataclass(frozen=True)
class Verdict:
    confirmed: bool
    reason: str = ""                     # why not, when not


def listing_verdict(listing: Listing) -> Verdict:
    """Whether a listing may be trusted to say which postings are gone."""
    if not listing.complete:
        return Verdict(False, "listing incomplete (a page failed or a page bound was reached)")
    if listing.doubts:
        return Verdict(False, "; ".join(listing.doubts))
    if listing.on_page_boundary and listing.previous_listed is not None and listing.listed < listing.previous_listed:
        return Verdict(False, f"the listing ended exactly on a page boundary with {listing.listed} postings, fewer "
                              f"than the {listing.previous_listed} of the previous listing (the next page may "
                              "have failed as an empty one)")
    return Verdict(True)


@dataclass(frozen=True)
class CloseDecision:
    close: bool
    refused: bool = False                # the mass-closing guard tripped
    reason: str = ""


def close_decision(verdict: Verdict, *, would_close: int, open_before: int, max_share: float,
                   source: str = "") -> CloseDecision:
    if not verdict.confirmed:
        return CloseDecision(False, False, f"listing UNCONFIRMED: {verdict.reason}; nothing closed"
                                           + (f" ({would_close} missing postings stay open until a listing "
                                              "confirms their absence)" if would_close else ""))
    if would_close == 0:
        return CloseDecision(False)
    if would_close > max_share * open_before:
        return CloseDecision(False, True,
                             f"refused: {would_close} of {open_before} open postings of {source!r} are missing from "
                             f"the listing ({would_close / open_before:.0%} > {max_share:.0%}); nothing closed")
    return CloseDecision(True)


@dataclass(frozen=True)
class CloseResult:
    closed: int          # postings closed by this call
    would_close: int     # open postings absent from the listing
    refused: bool        # the guard tripped: nothing was closed
    reason: str = ""
    open_before: int = 0
    confirmed: bool = True   # False: the listing was not trusted to close anything
    considered: bool = True  # False: not the latest day's listing (a replay or backfill)
    accepted: bool = False   # an operator's accept-close lifted the guard for this close

    def as_metadata(self) -> dict[str, object]:
        return {"closed": self.closed, "would_close": self.would_close, "refused": self.refused,
                "reason": self.reason, "open_before": self.open_before, "listing_confirmed": self.confirmed}


def close_missing(
    conn: psycopg.Connection,
    source: str,
    seen_external_ids: Iterable[str],
    *,
    complete: bool | None = None,
    verdict: Verdict | None = None,
    max_share: float = 0.3,
) -> CloseResult:
    """Close the open postings of ``source`` that a confirmed listing no longer contains.

    ``verdict`` (or, simpler, ``complete``) says whether the listing is trusted. The close guard
    and ``jobpipe sources accept-close`` apply exactly as in ``close_vanished``. Commits.
    Reopening is the upsert's job: a closed posting that is listed again is reopened.
    """
    if verdict is None:
        verdict = Verdict(True) if complete else Verdict(False, "listing incomplete (a page failed or a page "
                                                                "bound was reached)")
    return _close_absent(conn, source, verdict, _MISSING,
                         {"source": source, "seen": sorted(set(seen_external_ids))}, max_share)


def close_vanished(conn: psycopg.Connection, source: str, partition_date: date, *, max_share: float = 0.3) -> CloseResult:
    """Apply the closing rules to the source's fetch run of ``partition_date``.

    Only the source's latest fetch run may close (a replay or backfill of a past day never does).
    An unconfirmed listing is logged as a WARNING naming the source. The postings it lists are
    its open listing spans (``jobpipe.sources.snapshots``): which open jobs lack one is one
    anti-join of two partial indexes, whatever the size of the listing.
    """
    run = conn.execute(
        """SELECT fetch_id, complete, postings_seen + quarantined, listing_doubts, ends_on_page_boundary,
                  unlisted, listed_only
           FROM fetch_runs WHERE source = %s AND partition_date = %s ORDER BY fetch_id DESC LIMIT 1""",
        (source, partition_date)).fetchone()
    latest = conn.execute("SELECT max(fetch_id) FROM fetch_runs WHERE source = %s", (source,)).fetchone()
    if run is None or latest is None or latest[0] != run[0]:
        return CloseResult(0, 0, False, "not the latest day's listing: nothing closed", considered=False)
    fetch_id, complete, listed, doubts, on_boundary, unlisted, listed_only = run
    previous = conn.execute(
        """SELECT postings_seen + quarantined FROM fetch_runs
           WHERE source = %s AND complete AND fetch_id < %s ORDER BY fetch_id DESC LIMIT 1""",
        (source, fetch_id)).fetchone()
    verdict = listing_verdict(Listing(complete=complete, listed=listed, doubts=tuple(doubts or ()),
                                      on_page_boundary=on_boundary,
                                      previous_listed=previous[0] if previous else None))
    return _close_absent(conn, source, verdict, _NOT_LISTED,
                         {"source": source, "unlisted": list(unlisted or []), "only": listed_only}, max_share)


def _close_absent(conn: psycopg.Connection, source: str, verdict: Verdict, absent: str, params: dict[str, object],
                  max_share: float) -> CloseResult:
    """The one close rule: close the open postings of ``source`` that ``absent`` (``FROM jobs j
    WHERE ...``) selects, when ``verdict`` trusts the listing and the close guard (or an
    operator's accept-close) lets it. Commits.

    Both ways of saying what a listing holds (a list of ids, a fetch run's spans) go through
    here, so the guard, accept-close and the warnings never differ between them.
    """
    open_before = one(conn.execute("SELECT count(*) FROM jobs WHERE source = %s AND closed_at IS NULL",
                                   (source,)))[0]
    would_close = one(conn.execute("SELECT count(*) " + absent, params))[0]

    # An operator's accept-close lifts the guard for this one confirmed listing, then is used up
    # (in the close's own transaction: a crash between the two neither loses nor repeats it).
    accepted = pending_acceptance(conn, source) if verdict.confirmed else None
    decision = close_decision(verdict, would_close=would_close, open_before=open_before,
                              max_share=1.0 if accepted else max_share, source=source)
    closed = 0
    if decision.close:
        closed = conn.execute("UPDATE jobs j SET closed_at = now() " + absent.split("FROM jobs j", 1)[1],
                              params).rowcount
        if accepted is not None:
            consume_acceptance(conn, source)
    if not conn.autocommit:
        conn.commit()
    result = CloseResult(closed, would_close, decision.refused, decision.reason, open_before, verdict.confirmed)
    if accepted is not None and decision.close:
        at = accepted.accepted_at.isoformat(timespec="seconds")
        log.warning("source %r: closed %d of %d open postings as accepted at %s", source, closed, open_before, at)
        result = replace(result, accepted=True,
                         reason=f"closed {closed} of {open_before} open postings past the close guard "
                                f"({max_share:.0%}): accepted by `jobpipe sources accept-close` at {at}")
    if not verdict.confirmed:
        log.warning("source %r: %s", source, result.reason)
    return result


# Open jobs of the source that its latest run did not list: no open listing span, or one the run
# did not list itself (an unconfirmed run's ``unlisted`` / ``listed_only``).
_NOT_LISTED = """
FROM jobs j
WHERE j.source = %(source)s AND j.closed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM listing_spans s
                  WHERE s.source = j.source AND s.external_id = j.external_id AND s.until_fetch IS NULL
                    AND NOT (s.external_id = ANY(%(unlisted)s::text[]))
                    AND (%(only)s::text[] IS NULL OR s.external_id = ANY(%(only)s::text[])))
"""


@dataclass(frozen=True)
class ExpiredResult:
    closed: int          # open postings closed because their valid_through has passed

    def as_metadata(self) -> dict[str, object]:
        return {"expired": self.closed}


def close_expired(conn: psycopg.Connection, source: str | None = None) -> ExpiredResult:
    """Close the open postings (of ``source``, or all) whose ``valid_through`` has passed.

    The source itself says they are over, so no listing guard applies. A posting the source
    extends later (a new ``valid_through``) is a changed payload: the upsert reopens it. Commits.
    """
    where = "AND source = %(source)s" if source is not None else ""
    closed = conn.execute(
        f"UPDATE jobs SET closed_at = now() WHERE closed_at IS NULL AND valid_through IS NOT NULL "
        f"AND valid_through < now() {where}", {"source": source}).rowcount
    if not conn.autocommit:
        conn.commit()
    return ExpiredResult(closed)
