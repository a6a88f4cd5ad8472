"""Finding schema.org JobPosting objects in HTML, including in the broken JSON real sites ship.

Career pages put JSON-LD in ``<script type="application/ld+json">`` blocks: alone, in arrays,
inside ``@graph`` (with ``@id`` references to the organization), several per page, and often
with syntax errors browsers tolerate (trailing commas, raw newlines in strings, HTML or JS
comments). Recoverable errors are repaired; a block that cannot be repaired is skipped and
counted so the caller can report it.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

_SCRIPT_RE = re.compile(
    r"<script\b[^>]*?\btype\s*=\s*[\"']?\s*application/ld\+json[^>]*>(.*?)</script\s*>", re.I | re.S)
_META_CHARSET_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_\-]+)", re.I)


def decode_html(content: bytes, header_charset: str | None) -> str:
    """Text of an HTML page: header charset, else ``<meta charset>``, else UTF-8."""
    charset = header_charset
    if not charset:
        match = _META_CHARSET_RE.search(content[:4096])
        charset = match.group(1).decode("ascii") if match else "utf-8"
    try:
        return content.decode(charset, errors="replace")
    except LookupError:
        return content.decode("utf-8", errors="replace")


def _repair(text: str) -> str:
    """Drop JS comments, HTML comment markers and trailing commas outside strings; escape raw
    control characters inside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\" and i + 1 < n:
                out.append(text[i:i + 2])
                i += 2
                continue
            if ch == '"':
                in_string = False
            elif ch == "\n":
                ch = "\\n"
            elif ch == "\r":
                ch = "\\r"
            elif ch == "\t":
                ch = "\\t"
            out.append(ch)
            i += 1
            continue
        if ch == '"':
            in_string = True
        elif text.startswith("<!--", i):  # legacy "hide from old browsers" markers: drop the marker
            i += 4
            continue
        elif text.startswith("-->", i):
            i += 3
            continue
        elif text.startswith("//", i) and (i == 0 or text[i - 1] in " \t\r\n,{[;"):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        elif ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n or text[j] in "}]":
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _strip_wrappers(text: str) -> str:
    text = text.strip()
    for prefix, suffix in (("<![CDATA[", "]]>"), ("//<![CDATA[", "//]]>")):
        if text.startswith(prefix) and text.endswith(suffix):
            text = text[len(prefix):-len(suffix)].strip()
    return text.rstrip(";").strip()


def _concatenated(text: str) -> list[Any]:
    """Several JSON values back to back (``{...}{...}``), as sites sometimes emit."""
    decoder = json.JSONDecoder(strict=False)
    values, i = [], 0
    while i < len(text):
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text):
            break
        value, i = decoder.raw_decode(text, i)
        values.append(value)
    return values


def loads_lenient(text: str) -> Any:
    """Parse JSON as browsers' JSON-LD consumers would tolerate it; raise ValueError if hopeless."""
    text = _strip_wrappers(text)
    attempts = (lambda t: json.loads(t, strict=False),
                lambda t: json.loads(_repair(t), strict=False),
                lambda t: json.loads(_repair(html.unescape(t)), strict=False),
                lambda t: _concatenated(_repair(t)))
    error: Exception | None = None
    for attempt in attempts:
        try:
            return attempt(text)
        except (ValueError, RecursionError) as exc:
            error = exc
    raise ValueError(f"unrecoverable JSON-LD: {error}")


def json_ld_blocks(page_html: str) -> tuple[list[Any], list[tuple[str, str]]]:
    """Every parsed JSON-LD block of a page, and the (text, error) of each block that could not be parsed."""
    blocks: list[Any] = []
    broken: list[tuple[str, str]] = []
    for match in _SCRIPT_RE.finditer(page_html):
        body = match.group(1)
        if not body.strip():
            continue
        try:
            blocks.append(loads_lenient(body))
        except ValueError as exc:
            broken.append((body.strip(), str(exc)))
    return blocks, broken


def _is_job_posting(node: dict[str, Any]) -> bool:
    types = node.get("@type")
    types = types if isinstance(types, list) else [types]
    return any(isinstance(t, str) and t.rsplit("/", 1)[-1].rsplit(":", 1)[-1] == "JobPosting" for t in types)


def _index_ids(node: Any, ids: dict[str, dict[str, Any]]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("@id"), str) and len(node) > 1:
            ids.setdefault(node["@id"], node)
        for value in node.values():
            _index_ids(value, ids)
    elif isinstance(node, list):
        for value in node:
            _index_ids(value, ids)


def _resolve_refs(posting: dict[str, Any], ids: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Inline ``{"@id": ...}`` references (one level) so the stored payload stands alone."""
    def resolve(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"@id"} and value["@id"] in ids:
            return ids[value["@id"]]
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return value
    return {key: resolve(value) for key, value in posting.items()}


def find_job_postings(blocks: list[Any]) -> list[dict[str, Any]]:
    """All JobPosting objects in parsed blocks, in document order."""
    found: list[dict[str, Any]] = []
    for block in blocks:
        ids: dict[str, dict[str, Any]] = {}
        _index_ids(block, ids)
        _collect_postings(block, ids, found)
    return found


def _collect_postings(node: Any, ids: dict[str, dict[str, Any]], found: list[dict[str, Any]]) -> None:
    """Append every JobPosting under ``node`` (not those nested in a posting), references resolved."""
    if isinstance(node, dict):
        if _is_job_posting(node):
            found.append(_resolve_refs(node, ids))
            return
        for value in node.values():
            _collect_postings(value, ids, found)
    elif isinstance(node, list):
        for value in node:
            _collect_postings(value, ids, found)


def identifier_of(posting: dict[str, Any]) -> str | None:
    """The posting's own id: ``identifier.value``, or ``identifier`` when it is a plain value."""
    ident = posting.get("identifier")
    if isinstance(ident, list):
        ident = ident[0] if ident else None
    if isinstance(ident, dict):
        ident = ident.get("value", ident.get("@value", ident.get("propertyID") and None))
    if isinstance(ident, bool) or ident is None:
        return None
    if isinstance(ident, (int, float, str)):
        text = str(int(ident) if isinstance(ident, float) and ident.is_integer() else ident).strip()
        return text or None
    return None
