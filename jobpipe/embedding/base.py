"""The one interface every embedder implements, and helpers they share.

The store only ever talks to an :class:`Embedder`; which model sits behind it (a local
offline model, an OpenAI-compatible endpoint, a test double) is a deployment choice.
``model`` is recorded next to every vector, so it must change whenever the vectors would
(other weights, another truncation, other dimensions): vectors of two different ``model``
ids are never compared.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

import numpy as np

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalized float32 vectors of ``dims`` dimensions."""

    model: str

    @property
    def dims(self) -> int:
        """The vector width (read-only: an endpoint's may be learnt from its first answer)."""
        ...

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Vectors for stored texts (postings, resumes): shape (n, dims), float32, unit length."""
        ...

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Vectors for search queries: shape (n, dims). Asymmetric models embed these differently."""
        ...


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float32 rows, so cosine distance equals 1 - dot product everywhere."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (array / norms).astype(np.float32, copy=False)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free upper-ish estimate of subword tokens, for batching API requests.

    Subword tokenizers spend about one token per CJK character and about one per four
    characters of Latin text; overestimating slightly keeps batches under provider limits.
    """
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4 + 1
