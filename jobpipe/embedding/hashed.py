"""A deterministic, dependency-free embedder: signed token hashing (the "hashing trick").

It is a real (if lexical) embedding -- texts sharing tokens are close -- that loads
instantly and never changes between runs or machines. Tests and CI use it to exercise the
store through the same :class:`~jobpipe.embedding.base.Embedder` interface as the real
models; it is also a last-resort fallback where no model can run.
"""

from __future__ import annotations

import hashlib

import numpy as np

from jobpipe.embedding.base import l2_normalize
from jobpipe.text.tokenize import tokenize


class TokenHashEmbedder:
    """Bag of tokens hashed into ``dims`` signed buckets, L2-normalized."""

    def __init__(self, dims: int = 64, *, model: str | None = None):
        self.dims = dims
        self.model = model or f"token-hash-{dims}"

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dims, dtype=np.float32)
        # The tokens as they were when this embedder was made: its vectors never change.
        for token in tokenize(text, search_forms=False) or ["<empty>"]:
            digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dims
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        if not vector.any():  # tokens cancelled out: a zero vector has no cosine distance
            vector[0] = 1.0
        return vector

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return l2_normalize(np.stack([self._vector(t) for t in texts]))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts))
