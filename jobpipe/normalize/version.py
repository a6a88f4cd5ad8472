"""Which normalizer produced a stored row: a version that changes exactly when its output can.

A night normalizes only the payloads that are new since the last run this version normalized.
When the normalizer itself changes -- a parser fix, a new city alias, a new field -- every
stored payload is normalized once more (a full re-normalization, documented in
docs/normalization.md), and only the rows whose output differs are rewritten, re-embedded or
re-tokenized downstream.

The version is a digest of the normalizer's code and data, so no release can forget to bump
it: the syntax trees (not the text: comments, docstrings and formatting do not count) of every
module that takes part in turning a payload into a ``NormalizedPosting`` -- the extractors of
every source kind, the parsers, the validation schema, the hashes -- the bytes of their data
files, the Unicode database they read, and ``NORMALIZER_VERSION``, which forces a
re-normalization by hand (e.g. after upgrading a library whose behaviour the parsers depend on).
"""

from __future__ import annotations

import functools
import unicodedata

from jobpipe.codeversion import code_digest

#: Bump to re-normalize every stored payload on the next run although no code changed.
NORMALIZER_VERSION = 1

#: What the normalizer is made of, relative to the package (globs).
_CODE = ("normalize/*.py", "sources/extract.py", "sources/kinds/*.py", "sources/ldjson.py", "models.py",
         "hashing.py", "rows.py", "text/*.py")
_DATA = ("normalize/data/*",)
#: Persistence, not the function from payload to posting.
_NOT_NORMALIZER = {"normalize/store.py", "normalize/version.py"}


@functools.cache
def normalizer_version() -> str:
    """``v<NORMALIZER_VERSION>-<12 hex digits>``: equal exactly when the normalizer is the same."""
    digest = code_digest(f"{NORMALIZER_VERSION}|unicode {unicodedata.unidata_version}", _CODE, _DATA,
                         exclude=_NOT_NORMALIZER)
    return f"v{NORMALIZER_VERSION}-{digest[:12]}"
