"""Normalize a batch of raw postings: extraction and parsing failures become rejections, never crashes.

A single odd payload must not stop a source's daily run, and it must not vanish either: it is
recorded with the error text next to the rows that failed validation.

The output is a function of the stored payload and its own fetch time only, never of the wall
clock when the normalizer runs: "3天前" resolves against the time the page was fetched, and a
posting date is "in the future" relative to that time. Re-normalizing the same payload later (a
new normalizer version, a replay) gives the same posting, the same day, whether it runs before or
after midnight. A payload without a fetch time is rejected rather than anchored on the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone

from jobpipe.models import PostingFields, RawPosting
from jobpipe.normalize.posting import normalize_posting
from jobpipe.normalize.schema import Rejection, ValidationResult, validate_postings

Extract = Callable[[str, dict], PostingFields]


def normalize_batch(
    items: Iterable[tuple[int | None, RawPosting]],
    extract: Extract,
    *,
    fetch_id: int | None = None,
) -> ValidationResult:
    """Extract, normalize and validate every (raw_id, RawPosting); failures are rejections with the error."""
    normalized = []
    fetched: list[datetime] = []
    errors: list[Rejection] = []
    for raw_id, raw in items:
        if raw.fetched_at is None:
            errors.append(Rejection(raw.external_id, raw_id, ["fetch_time_missing: a payload is normalized against "
                                                              "the time it was fetched"], raw.source, fetch_id))
            continue
        at = raw.fetched_at if raw.fetched_at.tzinfo else raw.fetched_at.replace(tzinfo=timezone.utc)
        try:
            fields = extract(raw.format, raw.payload)
        except Exception as exc:  # noqa: BLE001 - any extractor bug becomes a quarantined row
            errors.append(Rejection(raw.external_id, raw_id, [f"extract_error: {type(exc).__name__}: {exc}"[:500]],
                                    raw.source, fetch_id))
            continue
        if not fields.url and raw.url:
            fields.url = raw.url  # e.g. a JSON-LD posting without its own "url": the page it was on
        try:
            normalized.append(normalize_posting(
                fields, source=raw.source, external_id=raw.external_id,
                fetched_at=at, raw_id=raw_id, fetch_id=fetch_id,
            ))
            fetched.append(at)
        except Exception as exc:  # noqa: BLE001
            errors.append(Rejection(raw.external_id, raw_id, [f"normalize_error: {type(exc).__name__}: {exc}"[:500]],
                                    raw.source, fetch_id))
    result = validate_postings(normalized, now=fetched)
    result.rejected = errors + result.rejected
    return result
