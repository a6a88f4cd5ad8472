"""Reading the demo's served payloads back, independently of the package's own extractors."""

from __future__ import annotations

import html
import json
import re
from typing import Any

_LD = re.compile(r'<script type="application/ld\+json">\s*(.*?)\s*</script>', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def ld_blocks(page: str) -> list[str]:
    return _LD.findall(page)


def job_postings(block: Any) -> list[dict[str, Any]]:
    """Every JobPosting in a JSON-LD value: a plain object, an array or an @graph."""
    if isinstance(block, list):
        return [p for item in block for p in job_postings(item)]
    if isinstance(block, dict):
        if "@graph" in block:
            return job_postings(block["@graph"])
        if block.get("@type") == "JobPosting":
            return [block]
    return []


def parse_ld(text: str) -> tuple[Any, bool]:
    """(value, strict): strict is False when the block needed its trailing commas removed."""
    try:
        return json.loads(text), True
    except json.JSONDecodeError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text)), False


def strip_tags(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(fragment))).strip()


def greenhouse_text(job: dict[str, Any]) -> str:
    # Greenhouse content is escaped once more than HTML: unescape, then strip.
    return strip_tags(html.unescape(job["content"]))
