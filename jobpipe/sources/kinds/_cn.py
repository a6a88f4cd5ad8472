"""What the Chinese career kinds share: their code tables (``data/cn_codes.yaml``) and the
Beijing time their APIs write without an offset."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

_DATA = Path(__file__).resolve().parent / "data" / "cn_codes.yaml"
_NAIVE_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$")


@lru_cache(maxsize=1)
def _tables() -> dict[str, dict[str, dict[str, str]]]:
    return yaml.safe_load(_DATA.read_text(encoding="utf-8"))


def table(kind: str, name: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in (_tables().get(kind, {}).get(name) or {}).items()}


def decode(kind: str, name: str, code: Any) -> str | None:
    if code is None:
        return None
    return table(kind, name).get(str(code).strip())


def beijing_time(value: Any) -> Any:
    """"2018-08-24 08:52:51" is Beijing time in these APIs: say so (+08:00), so it is not read as UTC."""
    if isinstance(value, str) and _NAIVE_DATETIME.match(value.strip()):
        return value.strip().replace(" ", "T", 1) + "+08:00"
    return value
