"""``Retry-After`` parsing, shared by every HTTP client jobpipe runs (scrapers, embedding APIs).

Servers send either delta-seconds or an HTTP date; honouring both is what keeps a rate-limited
client from hammering a board or an embedding endpoint.
"""

from __future__ import annotations

import email.utils
import time
from datetime import datetime, timezone


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = datetime.fromtimestamp(now if now is not None else time.time(), tz=timezone.utc)
    return max(0.0, (when - current).total_seconds())
