"""What a posting's vector is computed from, and the hashes that detect change.

Two hashes, on purpose:

* ``content_hash`` covers only the fields that feed the embedding text (``EMBEDDING_FIELDS``).
  A vector is stale exactly when the hash it was computed from differs from this one, so a new
  URL, a re-stamped ``posted_at`` or a salary edit never costs an embedding.
* ``record_hash`` covers every stored field. When it is unchanged the curated row is not
  rewritten at all (no new row version, no index churn).

Both are stable: canonical JSON, sorted keys, sorted lists, no fetch time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from jobpipe.models import NormalizedPosting

#: Fields that feed the embedding text. Changing this list re-embeds everything on the next run.
EMBEDDING_FIELDS: tuple[str, ...] = ("title", "company", "cities", "job_type", "remote", "skills", "description_text")

#: Fields stored but not hashed into ``record_hash``: bookkeeping, not content.
_NOT_RECORDED = frozenset({"content_hash", "raw_id", "fetch_id"})

#: How much of the description goes into the embedding text (characters). Long tails are
#: boilerplate (benefits, EEO statements) that dilute the vector and cost time.
DESCRIPTION_CHARS = 1500


#: ``json.dumps(text, ensure_ascii=False)`` of a str without the per-call encoder set-up: the
#: sort key of string lists (skills, cities), the common case on the hot path.
_json_string = json.encoder.encode_basestring
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def _canonical(value: Any) -> Any:
    if value is None or type(value) is str:
        return value
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple, set, frozenset)):
        if all(type(v) is str for v in value):
            return sorted(value, key=_json_string)
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _digest(data: dict[str, Any]) -> str:
    text = _CANONICAL_JSON(_canonical(data))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(posting: NormalizedPosting) -> str:
    return _digest({name: getattr(posting, name) for name in EMBEDDING_FIELDS})


def record_hash(posting: NormalizedPosting) -> str:
    data = {k: v for k, v in asdict(posting).items() if k not in _NOT_RECORDED}
    return _digest(data)


def embedding_text(posting: NormalizedPosting) -> str:
    """The text whose vector represents a posting: title first (it carries most intent)."""
    parts = [posting.title]
    if posting.company:
        parts.append(posting.company)
    if posting.cities:
        parts.append(" / ".join(posting.cities))
    if posting.skills:
        parts.append(", ".join(sorted(posting.skills)))
    if posting.description_text:
        parts.append(posting.description_text[:DESCRIPTION_CHARS])
    return "\n".join(parts)
