"""Normalize a batch of raw postings: extraction and parsing failures become rejections, never crashes.

A single odd payload must not stop a source's daily run, and it must not vanish either: it is
recorded with the error text next to the rows that failed validation.
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
    now: datetime | None = None,
) -> ValidationResult:
    """Extract, normalize and validate every (raw_id, RawPosting); failures are rejections with the error."""
    now = now or datetime.now(timezone.utc)
    normalized = []
    errors: list[Rejection] = []
    for raw_id, raw in items:
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
                fetched_at=raw.fetched_at or now, raw_id=raw_id, fetch_id=fetch_id,
            ))
        except Exception as exc:  # noqa: BLE001
            errors.append(Rejection(raw.external_id, raw_id, [f"normalize_error: {type(exc).__name__}: {exc}"[:500]],
                                    raw.source, fetch_id))
    result = validate_postings(normalized, now=now)
    result.rejected = errors + result.rejected
    return result
