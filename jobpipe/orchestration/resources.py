"""Dagster resources: the database, the embedder, the sources file, the pipeline's thresholds.

Every field is typed and shows its real value in the UI: :func:`build_resources` binds a field
to an ``EnvVar`` when its environment variable is set (Dagster then reads the variable when a
run starts, and the UI shows the variable's name, never its value: API keys stay out of the
UI), and otherwise to jobpipe's default (``jobpipe.config``). Dagster has no float source for
environment variables, so the float thresholds are read when the code location loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from dagster import ConfigurableResource, EnvVar, InitResourceContext
from pydantic import Field, PrivateAttr

from jobpipe.config import get_settings
from jobpipe.db import connect, ready_url
from jobpipe.embedding import Embedder, get_embedder
from jobpipe.sources import SourceConfig, load_sources


class PostgresResource(ConfigurableResource):
    """jobpipe's PostgreSQL database, set up once per run: the server started (when it is the
    embedded one) and the schema migrated, before any asset connects."""

    database_url: str | None = Field(
        default=None,
        description="JOBPIPE_DATABASE_URL: a libpq URL of jobpipe's database. None: the embedded "
                    "PostgreSQL in $JOBPIPE_HOME (default ./.jobpipe), started when needed.",
    )
    _url: str | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._url = ready_url(self.database_url)

    @property
    def url(self) -> str:
        """The database's URL (known once Dagster has set the resource up for a run)."""
        if self._url is None:
            raise RuntimeError("PostgresResource is set up by Dagster when a run starts; outside a run, "
                               "use jobpipe.db.ready_url()")
        return self._url

    @contextmanager
    def connect(self, *, autocommit: bool = False) -> Iterator[psycopg.Connection]:
        # Commit on success like psycopg's own ``with connect()``: core functions leave the
        # transaction boundary to their caller unless they commit per batch themselves.
        with connect(self.url, autocommit=autocommit) as conn:
            yield conn


class EmbedderResource(ConfigurableResource):
    """The embedding model: the local offline default, or any OpenAI-compatible endpoint."""

    kind: str = Field(description="JOBPIPE_EMBEDDER: 'local' (an offline model in a PyPI package, no API "
                                  "key) or 'openai' (any OpenAI-compatible endpoint).")
    model: str | None = Field(default=None, description="JOBPIPE_EMBEDDING_MODEL: local: a model id or alias "
                              "(None: use-multilingual-v3); openai: the provider's model name (required).")
    base_url: str | None = Field(default=None, description="JOBPIPE_OPENAI_BASE_URL (or OPENAI_BASE_URL): the "
                                 "endpoint, e.g. http://localhost:11434/v1.")
    api_key: str | None = Field(default=None, description="JOBPIPE_OPENAI_API_KEY (or OPENAI_API_KEY).")
    _embedder: Embedder | None = PrivateAttr(default=None)

    def get(self) -> Embedder:
        """The embedder (built once per run; a local model loads its weights once per process)."""
        if self._embedder is None:
            settings = get_settings().replace(embedder=self.kind, embedding_model=self.model,
                                              openai_base_url=self.base_url, openai_api_key=self.api_key)
            self._embedder = get_embedder(settings)
        return self._embedder


class SourcesResource(ConfigurableResource):
    """The sources file: which boards, career sites and file drops to fetch."""

    path: str = Field(description="JOBPIPE_SOURCES: the sources file (YAML). Default: the bundled demo.")

    def file(self) -> Path:
        return Path(self.path)

    def load(self) -> list[SourceConfig]:
        """The enabled sources (the whole file is validated; a mistake anywhere raises)."""
        return [s for s in load_sources(self.file()) if s.enabled]

    def names(self) -> list[str]:
        return [s.name for s in self.load()]

    def get(self, name: str) -> SourceConfig:
        for source in self.load():
            if source.name == name:
                return source
        raise KeyError(f"source {name!r} is not in {self.file()} (or is disabled)")


class PipelineSettingsResource(ConfigurableResource):
    """Thresholds and index parameters."""

    close_guard_share: float = Field(description="JOBPIPE_CLOSE_GUARD_SHARE: a listing that would close more "
                                     "than this share of a source's open postings closes nothing.")
    reject_rate_threshold: float = Field(description="JOBPIPE_REJECT_RATE_THRESHOLD: a source rejecting more "
                                         "than this share of its postings fails its check.")
    hnsw_m: int = Field(description="JOBPIPE_HNSW_M: HNSW graph degree.")
    hnsw_ef_construction: int = Field(description="JOBPIPE_HNSW_EF_CONSTRUCTION: HNSW build candidate list.")
    retired_vector_days: float = Field(description="JOBPIPE_RETIRED_VECTOR_DAYS: a retired model's vectors are "
                                       "kept this long (switching back costs no re-embedding).")
    candidates_path: str = Field(description="JOBPIPE_CANDIDATES: the resumes drop folder (or a JSONL file).")
    matches_top_n: int = Field(description="JOBPIPE_MATCHES_TOP_N: open jobs kept per candidate in candidate_matches.")
    matches_reserve: int = Field(description="JOBPIPE_MATCHES_RESERVE: ranked jobs kept beyond the top N, so a "
                                 "night's closed jobs are replaced without a full recompute.")
    snapshot_retention_days: int = Field(default=30, description="JOBPIPE_SNAPSHOT_RETENTION_DAYS: days of snapshot "
                                         "history kept for replays (every open posting's payload is kept forever).")


def _env(names: str | tuple[str, ...], default: Any) -> Any:
    """``EnvVar`` of the first of ``names`` that is set (``EnvVar.int`` for an int setting), else
    ``default``: jobpipe's default, or for floats the value read now."""
    for name in (names,) if isinstance(names, str) else names:
        if os.environ.get(name):
            if isinstance(default, bool) or isinstance(default, float):
                return default
            return EnvVar.int(name) if isinstance(default, int) else EnvVar(name)
    return str(default) if isinstance(default, Path) else default


def build_resources(*, sources_file: str | os.PathLike[str] | None = None) -> dict[str, ConfigurableResource]:
    """The resources of the code location (and of ``jobpipe run``), from the environment now.

    ``sources_file`` replaces ``JOBPIPE_SOURCES`` (``jobpipe run --sources``).
    """
    s = get_settings()
    return {
        "postgres": PostgresResource(database_url=_env("JOBPIPE_DATABASE_URL", s.database_url)),
        "embedder": EmbedderResource(
            kind=_env("JOBPIPE_EMBEDDER", s.embedder),
            model=_env("JOBPIPE_EMBEDDING_MODEL", s.embedding_model),
            base_url=_env(("JOBPIPE_OPENAI_BASE_URL", "OPENAI_BASE_URL"), s.openai_base_url),
            api_key=_env(("JOBPIPE_OPENAI_API_KEY", "OPENAI_API_KEY"), s.openai_api_key),
        ),
        "sources": SourcesResource(path=str(sources_file) if sources_file else _env("JOBPIPE_SOURCES", s.sources_file)),
        "settings": PipelineSettingsResource(
            close_guard_share=s.close_guard_share,
            reject_rate_threshold=s.reject_rate_threshold,
            hnsw_m=_env("JOBPIPE_HNSW_M", s.hnsw_m),
            hnsw_ef_construction=_env("JOBPIPE_HNSW_EF_CONSTRUCTION", s.hnsw_ef_construction),
            retired_vector_days=s.retired_vector_days,
            candidates_path=_env("JOBPIPE_CANDIDATES", s.candidates_path),
            matches_top_n=_env("JOBPIPE_MATCHES_TOP_N", s.matches_top_n),
            matches_reserve=_env("JOBPIPE_MATCHES_RESERVE", s.matches_reserve),
            snapshot_retention_days=_env("JOBPIPE_SNAPSHOT_RETENTION_DAYS", s.snapshot_retention_days),
        ),
    }
