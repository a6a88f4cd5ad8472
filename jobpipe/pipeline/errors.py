"""Why a stage could not do its work, in words an operator can act on."""

from __future__ import annotations

from typing import Any


class StageError(RuntimeError):
    """A stage failed for a reason that is not a bug: the message says what and what to do.

    ``details`` are plain values for the run's record (Dagster shows them on the failure).
    """

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.details = details


class NoSnapshotError(StageError):
    """A (source, day) has no stored fetch: past days cannot be fetched again, only replayed."""


class SourceFailedError(StageError):
    """Fetching a source failed (HTTP error, bad payload); the failed run is recorded."""


class StageBusyError(StageError):
    """Another run holds this stage's lock (the message names it); this run changed nothing."""
