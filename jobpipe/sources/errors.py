"""Why a fetch failed, as exception types callers can tell apart.

Every message names the URL and what went wrong, because it ends up verbatim in the
fetch run's ``error`` column and in the Dagster UI of the failed partition.
"""

from __future__ import annotations


class FetchError(Exception):
    """A source could not be listed completely."""


class HttpError(FetchError):
    """A request failed for good (after retries), or was refused before it was sent."""

    def __init__(self, message: str, *, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class RobotsDisallowed(HttpError):
    """robots.txt forbids the URL for jobpipe's user agent."""


class ResponseTooLarge(HttpError):
    """The body passed the client's size cap."""


class PayloadError(FetchError):
    """A response arrived but is not in the shape its kind expects."""


class SourceFetchError(FetchError):
    """Raised by ``run_source`` after the failed (incomplete) run has been recorded."""

    def __init__(self, source: str, message: str, *, fetch_id: int | None = None) -> None:
        super().__init__(f"source {source!r}: {message}")
        self.source = source
        self.fetch_id = fetch_id
        self.detail = message
