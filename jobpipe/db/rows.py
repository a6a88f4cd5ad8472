"""The one row of a query that always returns one."""

from __future__ import annotations

from typing import Protocol, TypeVar

Row = TypeVar("Row", covariant=True)


class _Fetches(Protocol[Row]):
    def fetchone(self) -> Row | None: ...


class MissingRowError(LookupError):
    """A query that always returns one row returned none."""


def one(cursor: _Fetches[Row]) -> Row:
    """``cursor.fetchone()`` of a query that always returns exactly one row (an aggregate, ``SELECT f()``,
    an ``INSERT ... RETURNING`` of one row): typed as present, and a clear error rather than ``None[0]``
    if it ever is not."""
    row = cursor.fetchone()
    if row is None:
        raise MissingRowError("a query that returns one row returned none")
    return row
