"""Payloads as PostgreSQL stores them, and the hash that identifies one."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def clean_payload(value: Any) -> Any:
    """What jsonb can store: no NUL characters, no lone surrogates, no NaN/Infinity.

    Idempotent, so hashing a cleaned payload again gives the same hash.
    """
    if isinstance(value, str):
        if "\x00" in value:
            value = value.replace("\x00", "")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "replace").decode("utf-8")
        return value
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {clean_payload(str(k)): clean_payload(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_payload(v) for v in value]
    return value


def _dumps(payload: Any) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def payload_json(payload: Any) -> str:
    """Canonical JSON of the cleaned payload: sorted keys, no whitespace, UTF-8 as is (list
    order is kept: it is content). Cleaning only runs when the fast path finds a problem."""
    try:
        text = _dumps(payload)
        if "\\u0000" not in text:
            text.encode("utf-8")  # lone surrogates fail here
            return text
    except (ValueError, UnicodeEncodeError):
        pass
    return _dumps(clean_payload(payload))


def payload_hash(payload: Any) -> str:
    return hashlib.sha256(payload_json(payload).encode("utf-8")).hexdigest()
