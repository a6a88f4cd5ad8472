"""Dagster resources: where the database is, which embedder, which sources file.

Every field is optional and falls back to jobpipe's environment settings (``jobpipe.config``),
so the same definitions run on the embedded default and on a configured deployment; set the
``JOBPIPE_*`` variables (or override the fields in run config) to change them.
"""


from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from dagster import ConfigurableResource

from jobpipe.config import get_settings


_MIGRATED: set[str] = set()  # URLs this process has already brought up to date


class PostgresResource(ConfigurableResource):
    """jobpipe's database. Unset: the embedded server in ``$JOBPIPE_HOME`` (started if needed)."""

    database_url: str | None = None

    def url(self) -> str:
        from jobpipe.db import migrate
        from jobpipe.db.connection import database_url

        url = self.database_url or database_url()
        if url not in _MIGRATED:  # once per process, not once per asset
            migrate(url)
            _MIGRATED.add(url)
        return url

    @contextmanager
    def connect(self, *, autocommit: bool = False) -> Iterator[psycopg.Connection]:
        from jobpipe.db import connect

        # Commit on success like psycopg's own ``with connect()``: core functions leave the
        # transaction boundary to their caller unless they commit per batch themselves.
        with connect(self.url(), autocommit=autocommit) as conn:
            yield conn


class EmbedderResource(ConfigurableResource):
    """The embedding model: the local offline default, or any OpenAI-compatible endpoint."""

    kind: str | None = None            # "local" | "openai"; default JOBPIPE_EMBEDDER
    model: str | None = None           # default JOBPIPE_EMBEDDING_MODEL
    base_url: str | None = None        # default JOBPIPE_OPENAI_BASE_URL
    api_key: str | None = None         # default JOBPIPE_OPENAI_API_KEY

    def get(self) -> Any:
        from dataclasses import replace

        from jobpipe.embedding import get_embedder

        settings = get_settings()
        overrides = {
            k: v
            for k, v in {
                "embedder": self.kind,
                "embedding_model": self.model,
                "openai_base_url": self.base_url,
                "openai_api_key": self.api_key,
            }.items()
            if v
        }
        return get_embedder(replace(settings, **overrides) if overrides else settings)


class SourcesResource(ConfigurableResource):
    """The sources file (YAML). Unset: ``JOBPIPE_SOURCES``, else the bundled demo."""

    path: str | None = None

    def file(self) -> Path:
        return Path(self.path) if self.path else get_settings().sources_file

    def load(self) -> list[Any]:
        from jobpipe.sources import load_sources

        return [s for s in load_sources(self.file()) if s.enabled]

    def get(self, name: str) -> Any:
        for source in self.load():
            if source.name == name:
                return source
        raise KeyError(f"source {name!r} is not in {self.file()} (or is disabled)")


class PipelineSettingsResource(ConfigurableResource):
    """Thresholds and index parameters (defaults from ``JOBPIPE_*`` variables)."""

    close_guard_share: float | None = None
    reject_rate_threshold: float | None = None
    hnsw_m: int | None = None
    hnsw_ef_construction: int | None = None
    retired_vector_days: float | None = None
    candidates_path: str | None = None

    def resolved(self) -> dict[str, Any]:
        s = get_settings()
        return {
            "close_guard_share": self.close_guard_share if self.close_guard_share is not None else s.close_guard_share,
            "reject_rate_threshold": (
                self.reject_rate_threshold if self.reject_rate_threshold is not None else s.reject_rate_threshold
            ),
            "hnsw_m": self.hnsw_m or s.hnsw_m,
            "hnsw_ef_construction": self.hnsw_ef_construction or s.hnsw_ef_construction,
            "retired_vector_days": (
                self.retired_vector_days if self.retired_vector_days is not None else s.retired_vector_days
            ),
            "candidates_path": self.candidates_path or s.candidates_path,
        }
