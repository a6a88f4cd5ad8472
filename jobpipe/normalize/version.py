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

import ast
import functools
import hashlib
import unicodedata
from pathlib import Path

#: Bump to re-normalize every stored payload on the next run although no code changed.
NORMALIZER_VERSION = 1

_PACKAGE = Path(__file__).resolve().parent.parent   # jobpipe/
#: What the normalizer is made of, relative to the package (globs).
_CODE = ("normalize/*.py", "sources/extract.py", "sources/kinds/*.py", "sources/ldjson.py", "models.py",
         "hashing.py", "rows.py", "text/*.py")
_DATA = ("normalize/data/*",)
#: Persistence, not the function from payload to posting.
_NOT_NORMALIZER = {"normalize/store.py", "normalize/version.py"}


def _code_digest(path: Path) -> bytes:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):   # docstrings are not behaviour
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree, annotate_fields=False).encode()).digest()


@functools.cache
def normalizer_version() -> str:
    """``v<NORMALIZER_VERSION>-<12 hex digits>``: equal exactly when the normalizer is the same."""
    digest = hashlib.sha256(f"{NORMALIZER_VERSION}|unicode {unicodedata.unidata_version}".encode())
    files: list[tuple[str, Path, bool]] = []
    for pattern, is_code in [(p, True) for p in _CODE] + [(p, False) for p in _DATA]:
        for path in sorted(_PACKAGE.glob(pattern)):
            name = path.relative_to(_PACKAGE).as_posix()
            if path.is_file() and name not in _NOT_NORMALIZER:
                files.append((name, path, is_code))
    for name, path, is_code in sorted(files):
        digest.update(name.encode() + b"\0")
        digest.update(_code_digest(path) if is_code else hashlib.sha256(path.read_bytes()).digest())
    return f"v{NORMALIZER_VERSION}-{digest.hexdigest()[:12]}"
