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


def payload_json(payload: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 as is (list order is kept: it is content)."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def payload_hash(payload: Any) -> str:
    return hashlib.sha256(payload_json(clean_payload(payload)).encode("utf-8")).hexdigest()
