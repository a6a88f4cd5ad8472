"""Closing postings that vanished from a source's listing, behind a mass-deletion guard.

A source that returns half its listing (an API error page, a changed selector, pagination
cut short) looks exactly like a source whose jobs were all filled. Closing is therefore
only allowed on a listing known to be complete, and even then a run that would close more
than ``max_share`` of the source's open postings is refused wholesale: it closes nothing
and reports why, so the run fails a visible check instead of silently emptying search.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import psycopg

_MISSING = """
FROM jobs j
WHERE j.source = %(source)s AND j.closed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM unnest(%(seen)s::text[]) AS seen(external_id) WHERE seen.external_id = j.external_id)
"""


@dataclass(frozen=True)
class CloseResult:
    closed: int          # postings closed by this call
    would_close: int     # open postings absent from the listing
    refused: bool        # the guard tripped: nothing was closed
    reason: str = ""
    open_before: int = 0

    def as_metadata(self) -> dict[str, object]:
        return {"closed": self.closed, "would_close": self.would_close, "refused": self.refused,
                "reason": self.reason, "open_before": self.open_before}


def close_missing(
    conn: psycopg.Connection,
    source: str,
    seen_external_ids: Iterable[str],
    *,
    complete: bool,
    max_share: float = 0.3,
) -> CloseResult:
    """Close the open postings of ``source`` that the (complete) listing no longer contains.

    Commits on success. Reopening is the upsert's job: a closed posting that is listed again
    is reopened when it is upserted.
    """
    params = {"source": source, "seen": sorted(set(seen_external_ids))}
    open_before = conn.execute("SELECT count(*) FROM jobs WHERE source = %s AND closed_at IS NULL",
                               (source,)).fetchone()[0]  # type: ignore[index]
    would_close = conn.execute("SELECT count(*) " + _MISSING, params).fetchone()[0]  # type: ignore[index]
    if not complete:
        result = CloseResult(0, would_close, False, "listing incomplete: nothing closed", open_before)
    elif would_close == 0:
        result = CloseResult(0, 0, False, "", open_before)
    elif would_close > max_share * open_before:
        result = CloseResult(
            0, would_close, True,
            f"refused: {would_close} of {open_before} open postings of {source!r} are missing from the "
            f"listing ({would_close / open_before:.0%} > {max_share:.0%}); nothing closed",
            open_before,
        )
    else:
        cur = conn.execute("UPDATE jobs j SET closed_at = now() " + _MISSING.split("FROM jobs j", 1)[1], params)
        result = CloseResult(cur.rowcount, would_close, False, "", open_before)
    if not conn.autocommit:
        conn.commit()
    return result
