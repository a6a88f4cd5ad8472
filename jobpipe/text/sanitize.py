"""Scraped text is untrusted: clean it before it reaches a client or a model.

Job postings come from the open web. They can carry control characters that corrupt a
terminal or a JSON consumer, zero-width and bidi characters that hide text from a human
reviewer while a model still reads it, and lone surrogates that no UTF-8 encoder accepts.
Everything the service returns (and every string it receives) goes through here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# Format characters (Cf) include zero-width spaces/joiners, bidi overrides and the BOM;
# Cc are C0/C1 controls; Cs lone surrogates; Co private use; Cn unassigned.
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_KEEP_IN_MULTILINE = frozenset("\n\t")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def _keep(ch: str, multiline: bool) -> bool:
    if ch.isascii() and ch.isprintable():
        return True
    if multiline and ch in _KEEP_IN_MULTILINE:
        return True
    if ch in "\r\n\t\u2028\u2029":
        return False
    return unicodedata.category(ch) not in _DROP_CATEGORIES


def clean_text(value: str | None, *, multiline: bool = False) -> str | None:
    """``value`` without control, zero-width, bidi-override or surrogate characters.

    Single-line text (titles, names) also loses its line breaks, so one field can never
    start a new line in a one-line-per-result listing. Multi-line text keeps ``\\n``
    (normalized from ``\\r\\n``) but at most one blank line in a row.
    """
    if value is None:
        return None
    if multiline:
        value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    else:
        value = re.sub(r"[\r\n\t\u2028\u2029]+", " ", value)
    out = "".join(ch for ch in value if _keep(ch, multiline))
    if multiline:
        out = "\n".join(_SPACES.sub(" ", line).strip() for line in out.split("\n"))
        return _BLANK_LINES.sub("\n\n", out).strip()
    return _SPACES.sub(" ", out).strip()


def clean_value(value: Any, *, multiline_keys: frozenset[str] = frozenset()) -> Any:
    """``clean_text`` applied to every string inside dicts and lists (keys included)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {
            clean_text(str(k)): (clean_text(v, multiline=True) if k in multiline_keys and isinstance(v, str)
                                 else clean_value(v, multiline_keys=multiline_keys))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [clean_value(v, multiline_keys=multiline_keys) for v in value]
    return value


def require_visible(value: str | None, field: str, *, multiline: bool = False) -> str | None:
    """``clean_text(value)``, refusing (ValueError naming ``field``) text that cleans to nothing."""
    if value is None:
        return None
    cleaned = clean_text(value, multiline=multiline)
    if not cleaned:
        raise ValueError(f"{field} must contain visible text (it was empty after removing control characters)")
    return cleaned
