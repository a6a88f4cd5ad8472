"""Hybrid job search (vector + keyword, fused by reciprocal rank). See docs/search.md."""

from jobpipe.search.core import search
from jobpipe.search.types import SearchFilters, SearchResponse, SearchResult
from jobpipe.search.vector import QUERY_CACHE

__all__ = ["QUERY_CACHE", "SearchFilters", "SearchResponse", "SearchResult", "search"]
