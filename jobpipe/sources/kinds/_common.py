"""Small helpers shared by the kinds' extractors: locate values, never interpret them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response


def as_text(value: Any) -> str | None:
    """A scalar as text (numbers kept exact); empty strings and containers give None."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text if text.strip() else None


def dig(data: Any, *path: str | int) -> Any:
    """``data[p0][p1]...`` or None when any step is missing."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(data, list) or len(data) <= step:
                return None
            data = data[step]
        elif isinstance(data, dict):
            data = data.get(step)
        else:
            return None
    return data


def dig_path(data: Any, path: str) -> Any:
    """``dig`` along a dotted path: ``dig_path(data, "Data.Posts")``."""
    return dig(data, *path.split("."))


def label(value: Any) -> str | None:
    """``{"label": ...}`` / ``{"name": ...}`` objects, or a plain string."""
    if isinstance(value, dict):
        return as_text(value.get("label") or value.get("name"))
    return as_text(value)


def join_parts(*parts: Any) -> str | None:
    texts = [t for t in (as_text(p) for p in parts) if t]
    out: list[str] = []
    for t in texts:  # "Berlin, Berlin, Germany" -> "Berlin, Germany"
        if t not in out:
            out.append(t)
    return ", ".join(out) or None


def unique(values: Iterable[str | None], *, exclude: str | None = None) -> list[str]:
    out: list[str] = []
    for v in values:
        if v and v != exclude and v not in out:
            out.append(v)
    return out


def json_body(response: Response) -> Any:
    try:
        return json.loads(response.content.decode(response.encoding or "utf-8", errors="replace"))
    except ValueError as exc:
        raise PayloadError(f"{response.method} {response.url}: response is not JSON ({exc})") from None


def expect(data: Any, key: str | None, response: Response, what: str) -> list[Any]:
    """The list of postings at ``data[key]`` (or ``data`` itself), or a clear PayloadError."""
    items = data.get(key) if key is not None and isinstance(data, dict) else data
    if not isinstance(items, list):
        raise PayloadError(f"{response.method} {response.url}: expected {what}, got {type(items).__name__}")
    return items


def with_company(item: dict[str, Any], company: str | None) -> dict[str, Any]:
    """The posting object, plus ``_company`` when the listing (not the posting) names the employer."""
    if company and not item.get("_company"):
        return {**item, "_company": company}
    return item
