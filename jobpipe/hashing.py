"""What a posting's vector is computed from, and the hashes that detect change.

Two hashes, on purpose:

* ``content_hash`` covers only the fields that feed the embedding text (``EMBEDDING_FIELDS``).
  A vector is stale exactly when the hash it was computed from differs from this one, so a new
  URL, a re-stamped ``posted_at`` or a salary edit never costs an embedding.
* ``record_hash`` covers every stored field: the content hash plus every other field. When it
  is unchanged the curated row is not rewritten at all (no new row version, no index churn).
  Building it on the content hash keeps it cheap (the long description is hashed once, by the
  normalizer), which is what an unchanged nightly re-run spends its time on.

Both are stable: canonical forms (sorted lists, one form per number and date), no fetch time.
Changing either definition makes every stored row look changed once (re-embedded, rewritten).
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import marshal
import operator
from collections.abc import Sequence
from dataclasses import Field, fields
from datetime import datetime
from typing import Any

from jobpipe.models import NormalizedPosting, Salary

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


_embedding_values = operator.attrgetter(*EMBEDDING_FIELDS)


def _feed(digest: Any, value: Any) -> None:
    """One field into the digest, unambiguously: a type tag, then length-prefixed UTF-8."""
    if value is None:
        digest.update(b"N")
    elif type(value) is str:
        data = value.encode("utf-8", "surrogatepass")
        digest.update(b"S" + len(data).to_bytes(8, "little"))
        digest.update(data)
    elif type(value) is list and all(type(item) is str for item in value):
        digest.update(b"L" + len(value).to_bytes(8, "little"))
        for item in sorted(value):      # order carries no meaning (cities, skills)
            _feed(digest, item)
    else:
        _feed(digest, "J" + _CANONICAL_JSON(_canonical(value)))


def content_hash(posting: NormalizedPosting) -> str:
    # Fed field by field instead of as canonical JSON: the normalizer hashes every posting it
    # sees, and encoding a long description as JSON cost several times the hash itself.
    digest = hashlib.sha256()
    for value in _embedding_values(posting):
        _feed(digest, value)
    return digest.hexdigest()


#: Stored fields outside the embedding text: with the content hash they make up ``record_hash``.
RECORD_ONLY_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(NormalizedPosting) if f.name not in _NOT_RECORDED and f.name not in EMBEDDING_FIELDS
)


_RECORD_PLAIN = tuple(f for f in fields(NormalizedPosting) if f.name in RECORD_ONLY_FIELDS and f.name != "salary")
_SALARY_FIELDS = tuple(fields(Salary))


def _is_text(f: Field) -> bool:
    return str(f.type) in {"str", "str | None", "<class 'str'>", "typing.Optional[str]"}


#: Positions (after the content hash) whose values need a canonical form: everything not typed text.
_CANONICAL_AT = tuple(i + 1 for i, f in enumerate((*_RECORD_PLAIN, *_SALARY_FIELDS)) if not _is_text(f))
_plain_values = operator.attrgetter(*(f.name for f in _RECORD_PLAIN))
_salary_values = operator.attrgetter(*(f.name for f in _SALARY_FIELDS))


def _record_value(value: Any) -> Any:
    """The uncommon shapes of a field (record_digest handles None, numbers and aware datetimes)."""
    if isinstance(value, datetime):
        return value.timestamp() if value.tzinfo is not None else value.isoformat()
    return _CANONICAL_JSON(_canonical(value))


def record_digest(posting: NormalizedPosting, content: str) -> str:
    """``record_hash`` given the posting's content hash (the store passes the normalizer's)."""
    values = [content, *_plain_values(posting), *_salary_values(posting.salary)]
    for i in _CANONICAL_AT:
        value = values[i]
        kind = type(value)
        if value is None or kind is float or kind is bool:   # the common cases need nothing
            continue
        if kind is int:   # one form per number: 15000 == 15000.0 (e.g. after a JSON round trip)
            values[i] = float(value)
        elif kind is datetime and value.tzinfo is not None:
            # timestamptz stores the instant: the same instant in another UTC offset is the same row.
            values[i] = value.timestamp()
        else:
            values[i] = _record_value(value)
    # marshal format 2 (no object references, so equal values always give equal bytes; unchanged
    # since Python 2.5) serializes str/float/bool/None in C, twice as fast as repr(). Every
    # unchanged posting of every re-run goes through here.
    return hashlib.sha256(marshal.dumps(tuple(values), 2)).hexdigest()


def _is_instant(f: Field) -> bool:
    return "datetime" in str(f.type)


_LISTING_PLAIN = [f.name for f in _RECORD_PLAIN if not _is_instant(f)]
_LISTING_INSTANTS = [f.name for f in _RECORD_PLAIN if _is_instant(f)]
_listing_values = operator.attrgetter(
    "content_hash", *_LISTING_PLAIN, *(f"salary.{f.name}" for f in _SALARY_FIELDS))
_listing_instants = tuple(map(operator.attrgetter, _LISTING_INSTANTS))
_first = operator.itemgetter(0)
_tzinfo = operator.attrgetter("tzinfo")
#: Postings digested at a time: a chunk's values are still in the CPU cache when marshal and
#: the datetime passes read them again, and no listing-sized list of rows or marshal buffer is
#: built (whole-listing passes cost 1.5-2x as much at 1M postings: every pass ran from memory).
LISTING_CHUNK = 1024
#: Names, version and chunk size go into every listing digest: a new field or a changed
#: record-hash definition makes every stored digest stale instead of wrongly matching.
_LISTING_PREFIX = repr(("listing-digest-2", LISTING_CHUNK, _LISTING_PLAIN, [f.name for f in _SALARY_FIELDS],
                        _LISTING_INSTANTS)).encode()


def listing_digest(postings: Sequence[NormalizedPosting]) -> bytes | None:
    """One digest of everything ``record_hash`` reads, over a whole listing; None if it can't be exact.

    Equal digests mean equal record hashes posting by posting (not conversely: 15000 and
    15000.0 differ here), so a re-run whose listing digests as the last one did can reuse the
    last run's record-hash fingerprint instead of hashing every posting again. Reading the
    fields with C-level getters and serializing them with ``marshal``, ``LISTING_CHUNK``
    postings at a time, costs a fraction of hashing posting by posting. Each chunk's bytes
    are self-delimiting (marshal writes lengths) and chunks start at fixed positions, so the
    digest still reads the listing unambiguously. None when a posting has no content hash
    yet or holds a value marshal has no exact form for (the caller hashes per posting).
    """
    digest = hashlib.sha256(_LISTING_PREFIX)
    collecting = gc.isenabled()
    gc.disable()   # the fresh tuples hold no cycles; collections would walk every live object
    try:
        for start in range(0, len(postings), LISTING_CHUNK):
            chunk = postings[start:start + LISTING_CHUNK]
            rows = list(map(_listing_values, chunk))
            if not all(map(_first, rows)):   # a posting without its content hash
                return None
            digest.update(marshal.dumps(rows, 2))
            for instant in _listing_instants:
                digest.update(_instants(list(map(instant, chunk))))
    except (ValueError, TypeError, AttributeError):   # unmarshallable value, or not a datetime
        return None
    finally:
        if collecting:
            gc.enable()
    return digest.digest()


def _instants(column: list[Any]) -> bytes:
    """A datetime column as record_digest reads it: an aware datetime is its instant, a naive one its text."""
    present = list(filter(None, column))   # a datetime is never false
    where = bytes(map(operator.is_not, column, itertools.repeat(None)))
    if where.count(1) != len(present):
        raise TypeError("a false value that is not None")
    if None in set(map(_tzinfo, present)):
        return marshal.dumps((where, list(map(datetime.isoformat, present))), 2)
    return marshal.dumps((where, list(map(datetime.timestamp, present))), 2)


def record_hash(posting: NormalizedPosting) -> str:
    # Field by field rather than canonical JSON: this runs for every posting of every re-run.
    return record_digest(posting, content_hash(posting))


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
