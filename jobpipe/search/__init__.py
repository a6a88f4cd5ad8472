"""Hybrid job search (vector + keyword, fused by reciprocal rank). See docs/search.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobpipe._lazy import lazy_exports

if TYPE_CHECKING:   # for type checkers; at run time __getattr__ imports each on first use
    from jobpipe.search.core import search
    from jobpipe.search.types import (
        SearchFilters,
        SearchResponse,
        SearchResult,
    )
    from jobpipe.search.vector import QUERY_CACHE

#: Imported on first use (PEP 562): search.types (the filter spec the CLI's flags are derived from)
#: runs this file first, and search.core pulls in the whole search stack (normalizer, jieba, store).
_LAZY = {
    "search": "jobpipe.search.core",
    "SearchFilters": "jobpipe.search.types",
    "SearchResponse": "jobpipe.search.types",
    "SearchResult": "jobpipe.search.types",
    "QUERY_CACHE": "jobpipe.search.vector",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = ["QUERY_CACHE", "SearchFilters", "SearchResponse", "SearchResult", "search"]
