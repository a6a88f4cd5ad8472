"""A version of a piece of jobpipe's own code that changes exactly when its behaviour can.

Stored results remember which code made them -- normalized rows the normalizer's, candidate
match lists the scorer's -- so an upgrade recomputes what the new code would compute
differently and nothing else, without a release having to remember a manual bump. The digest
reads the syntax trees of the modules (comments, docstrings and formatting do not count) and
the bytes of their data files.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from pathlib import Path

#: jobpipe/: the globs below are relative to it.
PACKAGE = Path(__file__).resolve().parent


def _code_digest(path: Path) -> bytes:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):   # docstrings are not behaviour
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree, annotate_fields=False).encode()).digest()


def code_digest(salt: str, code: Iterable[str], data: Iterable[str] = (), *, exclude: Iterable[str] = ()) -> str:
    """Hex SHA-256 of ``salt`` and every file the globs ``code`` (Python: by syntax tree) and
    ``data`` (by bytes) match below the package, in name order, minus ``exclude`` (names)."""
    skip = set(exclude)
    digest = hashlib.sha256(salt.encode())
    files: list[tuple[str, Path, bool]] = []
    for pattern, is_code in [(p, True) for p in code] + [(p, False) for p in data]:
        for path in sorted(PACKAGE.glob(pattern)):
            name = path.relative_to(PACKAGE).as_posix()
            if path.is_file() and name not in skip:
                files.append((name, path, is_code))
    for name, path, is_code in sorted(files):
        digest.update(name.encode() + b"\0")
        digest.update(_code_digest(path) if is_code else hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
