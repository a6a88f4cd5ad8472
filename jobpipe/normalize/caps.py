"""Size caps on what a source hands over, applied once, where extracted fields enter normalization.

A posting is text a stranger wrote. Without caps, one 2,000,000-character description would
be parsed, stored in ``normalized_postings`` and ``jobs``, tokenized into ``job_terms`` and sent
to the embedder, every night. Real postings stay far below these caps (the longest description
of the 4,825-posting evaluation corpus has 10,841 characters, its longest title 190), so a cut
means a broken page or a hostile one, and it is said in the posting's ``notes``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from jobpipe.models import PostingFields

#: Characters of the cleaned description kept.
DESCRIPTION_CHARS = 50_000
#: Characters of the description as the source wrote it (HTML included) read at all.
RAW_DESCRIPTION_CHARS = 4 * DESCRIPTION_CHARS
#: Characters of each one-line field; the location may list many places.
LINE_CHARS = {"title": 500, "company": 300, "location": 2_000, "remote_hint": 200, "salary_text": 2_000,
              "department": 300, "seniority": 300, "experience_text": 1_000, "degree_text": 1_000}
URL_CHARS = 2_048
LOCATIONS = 200          # further locations kept
LOCATION_CHARS = 300     # characters of each
EMPLOYMENT_TYPES = 20    # employment type values kept (a list)


class Capped(NamedTuple):
    fields: PostingFields
    notes: list[str]           # one per field that was cut or left out
    description_chars: int     # the source's description length, before any cut


def cap_fields(fields: PostingFields) -> Capped:
    """``fields`` within the caps, and a note for every field that had to be cut."""
    notes: list[str] = []
    changes: dict[str, Any] = {}   # field name -> capped value, for dataclasses.replace(**changes)
    for name, limit in LINE_CHARS.items():
        value = getattr(fields, name)
        if isinstance(value, str) and len(value) > limit:
            changes[name] = value[:limit]
            notes.append(f"{name.replace('_', ' ')} cut to {limit:,} characters (the source's had {len(value):,})")
    description = fields.description
    length = len(description) if isinstance(description, str) else 0
    if isinstance(description, str) and length > RAW_DESCRIPTION_CHARS:
        changes["description"] = description[:RAW_DESCRIPTION_CHARS]
    if isinstance(fields.url, str) and len(fields.url) > URL_CHARS:
        changes["url"] = None   # a cut URL leads nowhere: left out
        notes.append(f"url left out: {len(fields.url):,} characters (at most {URL_CHARS:,})")
    locations = fields.locations or []
    if len(locations) > LOCATIONS or any(isinstance(x, str) and len(x) > LOCATION_CHARS for x in locations):
        changes["locations"] = [x[:LOCATION_CHARS] if isinstance(x, str) else x for x in locations[:LOCATIONS]]
        if len(locations) > LOCATIONS:
            notes.append(f"locations cut to the first {LOCATIONS} of {len(locations):,}")
    kinds = fields.employment_type
    if isinstance(kinds, list) and len(kinds) > EMPLOYMENT_TYPES:
        changes["employment_type"] = kinds[:EMPLOYMENT_TYPES]
    return Capped(replace(fields, **changes) if changes else fields, notes, length)


#: What ends a cut description, so a reader (or a model) knows the text stops there on purpose.
CUT_MARK = "[... description cut by jobpipe: the rest is not kept]"


def cap_description(text: str, source_chars: int, notes: list[str]) -> str:
    """The cleaned description within :data:`DESCRIPTION_CHARS`; a cut is marked at its end and noted."""
    if len(text) <= DESCRIPTION_CHARS and source_chars <= RAW_DESCRIPTION_CHARS:
        return text
    notes.append(f"description cut to {min(len(text), DESCRIPTION_CHARS):,} characters "
                 f"(the source's had {source_chars:,})")
    return text[:DESCRIPTION_CHARS].rstrip() + "\n\n" + CUT_MARK
