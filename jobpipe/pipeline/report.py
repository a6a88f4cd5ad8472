"""The typed result every stage returns, and its flat form (Dagster metadata, JSON).

A stage's result is a frozen dataclass of plain values (numbers, text, flags, JSON-able lists
and dicts). Its fields *are* its report: an asset shows them as metadata, and ``jobpipe run``
reads a materialization's metadata back into the same type, so the counts are declared once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar

R = TypeVar("R", bound="Report")


@dataclass(frozen=True)
class Report:
    """Base of the stage results: ``as_metadata`` and ``from_metadata`` are inverses."""

    def as_metadata(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_metadata(cls: type[R], metadata: Mapping[str, Any]) -> R:
        """The result back from its flat form (unknown keys ignored, missing ones defaulted)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in metadata.items() if k in names})
