"""Names a package exports but imports on first use (PEP 562), declared once as a table.

``import jobpipe`` and the CLI's parser should not pay for pandas, pandera, jieba or the search
stack they never touch; each package lists what it exports lazily and where it lives, and this
one helper gives it the module ``__getattr__`` and ``__dir__`` that honour that table.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``table`` maps an exported name to its module.

    A name is imported once and then bound in the package's namespace, so later lookups are plain
    attribute reads; an unknown name raises the AttributeError Python itself would.
    """
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(table[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
