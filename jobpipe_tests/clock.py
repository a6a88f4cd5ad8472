"""A wall clock set by a test: ``datetime.now`` as some modules see it."""

from __future__ import annotations

from datetime import datetime
from types import ModuleType

import pytest


class _ClockMeta(type):
    # the stand-in is a ``datetime`` to every isinstance check in the patched modules
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, datetime)


def set_wall_clock(monkeypatch: pytest.MonkeyPatch, at: datetime, *modules: ModuleType) -> None:
    """``datetime.now()`` in each of ``modules`` returns ``at`` (in the zone asked for)."""

    class Clock(datetime, metaclass=_ClockMeta):  # type: ignore[misc]
        @classmethod
        def now(cls, tz=None):  # noqa: ANN001, ANN206
            return at if tz is None else at.astimezone(tz)

    for module in modules:
        if hasattr(module, "datetime"):
            monkeypatch.setattr(module, "datetime", Clock)
