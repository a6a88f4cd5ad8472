"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, SiliconFlow bge-m3, Ollama, vLLM, TEI).

Providers cap a request both by the number of inputs and by tokens, and throttle with 429s
under load; a nightly run must ride through both without losing work, so batches are cut
by count *and* by estimated tokens. Retries are the OpenAI client's own: 408/409/429/5xx,
timeouts and connection errors, with exponential backoff and jitter, honouring the server's
``Retry-After`` / ``retry-after-ms`` (up to two minutes); other client errors fail at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from jobpipe.embedding.base import estimate_tokens, l2_normalize


class EmbeddingRequestError(RuntimeError):
    """The endpoint kept failing (or refused the request) after every retry."""


class OpenAIEmbedder:
    """Embeds through ``client.embeddings.create``; vectors are L2-normalized here.

    ``model_id`` is what the store records (default: ``model``, plus ``-d<dims>`` when a
    dimension count is requested from the provider). ``dims`` is taken from the first
    response when not configured. ``query_prefix``/``document_prefix`` serve asymmetric
    models that expect instructions (e.g. ``"query: "`` for e5).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dims: int | None = None,
        request_dimensions: bool = False,
        model_id: str | None = None,
        max_batch: int = 64,
        max_batch_tokens: int = 8000,
        max_retries: int = 6,
        timeout_seconds: float = 60.0,
        query_prefix: str = "",
        document_prefix: str = "",
    ):
        import openai  # lazy: ~1 s of import, paid only when an OpenAI-compatible endpoint is configured

        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                     max_retries=max_retries, timeout=timeout_seconds)
        self.api_model = model
        self._dims = dims
        self.request_dimensions = request_dimensions and dims is not None
        self.model = model_id or (f"{model}-d{dims}" if self.request_dimensions else model)
        self.max_batch = max_batch
        self.max_batch_tokens = max_batch_tokens
        self.max_retries = max_retries
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.requests = 0   # requests sent, retries included (for tests and run metadata)
        self.retries = 0

    @property
    def dims(self) -> int:
        if self._dims is None:
            self._dims = int(self._request(["dimension probe"]).shape[1])
        return self._dims

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed([self.document_prefix + t for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed([self.query_prefix + t for t in texts])

    def batches(self, texts: list[str]) -> Iterator[list[str]]:
        """Consecutive slices of at most ``max_batch`` texts and ``max_batch_tokens`` estimated tokens."""
        batch: list[str] = []
        tokens = 0
        for text in texts:
            cost = estimate_tokens(text)
            if batch and (len(batch) >= self.max_batch or tokens + cost > self.max_batch_tokens):
                yield batch
                batch, tokens = [], 0
            batch.append(text)
            tokens += cost
        if batch:
            yield batch

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        # An empty string is rejected by several providers; a space embeds as "nothing".
        parts = [self._request([t if t.strip() else " " for t in batch]) for batch in self.batches(texts)]
        vectors = np.vstack(parts)
        if self._dims is None:
            self._dims = vectors.shape[1]
        if vectors.shape[1] != self._dims:
            raise EmbeddingRequestError(f"{self.model}: expected {self._dims} dims, endpoint returned {vectors.shape[1]}")
        return vectors

    def _request(self, texts: list[str]) -> np.ndarray:
        kwargs: dict[str, Any] = {"model": self.api_model, "input": texts, "encoding_format": "float"}
        if self.request_dimensions:
            kwargs["dimensions"] = self._dims
        try:
            raw = self._client.embeddings.with_raw_response.create(**kwargs)
        except self._openai.OpenAIError as error:
            raise EmbeddingRequestError(f"{self.model}: {error}") from error
        self.requests += raw.retries_taken + 1
        self.retries += raw.retries_taken
        response = raw.parse()
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbeddingRequestError(f"{self.model}: sent {len(texts)} texts, got {len(data)} vectors")
        return l2_normalize(np.array([item.embedding for item in data], dtype=np.float32))
