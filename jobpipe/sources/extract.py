"""Stored payload -> PostingFields, by format name. Pure and deterministic: the normalizer
calls it on payloads read back from ``raw_postings``, days or months after the fetch."""

from __future__ import annotations

import copy
from typing import Any

from jobpipe.models import PostingFields
from jobpipe.sources.kinds import KINDS


def extract(format: str, payload: dict[str, Any]) -> PostingFields:
    """Locate a posting's fields in a payload of the given format (a source kind name)."""
    kind = KINDS.get(format)
    if kind is None:
        raise ValueError(f"no extractor for format {format!r} (known: {', '.join(sorted(KINDS))})")
    if not isinstance(payload, dict):
        raise TypeError(f"payload of format {format!r} must be a JSON object, got {type(payload).__name__}")
    fields = kind.extract(payload)
    # Detach containers from the payload, so a consumer editing the fields cannot change a
    # stored payload (they are replayed later).
    fields.locations = list(fields.locations)
    fields.extra = copy.deepcopy(fields.extra)
    if isinstance(fields.salary, dict):
        fields.salary = copy.deepcopy(fields.salary)
    if isinstance(fields.employment_type, list):
        fields.employment_type = list(fields.employment_type)
    return fields

