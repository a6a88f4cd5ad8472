"""Settings read from the environment.

Everything is optional: with nothing set, jobpipe runs on an embedded PostgreSQL in
``./.jobpipe`` with the bundled demo sources and the local offline embedding model.
Settings are read when asked for (not at import) so tests and the CLI can change the
environment before any connection is made.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path


def _project_root() -> Path:
    """Where ``sql/``, ``dagster.yaml`` and ``workspace.yaml`` are: the source tree (a checkout or an
    editable install), else ``<prefix>/share/jobpipe`` where a wheel install puts them."""
    source = Path(__file__).resolve().parent.parent
    if (source / "sql").is_dir():
        return source
    installed = Path(sys.prefix) / "share" / "jobpipe"
    return installed if (installed / "sql").is_dir() else source


#: The repository root (or its installed copy): ``sql/``, ``dagster.yaml`` and ``workspace.yaml`` live here.
PROJECT_ROOT = _project_root()
SQL_DIR = PROJECT_ROOT / "sql"
DEMO_SOURCES_FILE = Path(__file__).resolve().parent / "demo" / "sources.yaml"
DEMO_RESUMES_DIR = Path(__file__).resolve().parent / "demo" / "data" / "resumes"


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None
    #: Dagster's instance storage; None = a database named after jobpipe's (``<name>_dagster``)
    #: on the same server, so each jobpipe database has its own runs, events and partitions.
    dagster_database_url: str | None
    sources_file: Path
    embedder: str
    embedding_model: str | None
    openai_base_url: str | None
    openai_api_key: str | None
    schedule_cron: str
    schedule_timezone: str
    close_guard_share: float
    reject_rate_threshold: float
    hnsw_m: int
    hnsw_ef_construction: int
    retired_vector_days: float
    snapshot_retention_days: int
    candidates_path: Path
    #: Seconds one outgoing HTTP request may take in all (connect and every read).
    fetch_deadline: float = 120.0
    matches_top_n: int = 50
    matches_reserve: int = 25

    @property
    def embedded(self) -> bool:
        """True when jobpipe manages its own PostgreSQL server."""
        return self.database_url is None

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"


def get_settings() -> Settings:
    home = Path(_env("JOBPIPE_HOME", ".jobpipe")).expanduser().resolve()  # type: ignore[arg-type]
    return Settings(
        home=home,
        database_url=_env("JOBPIPE_DATABASE_URL"),
        dagster_database_url=_env("JOBPIPE_DAGSTER_DATABASE_URL"),
        sources_file=Path(_env("JOBPIPE_SOURCES", str(DEMO_SOURCES_FILE))),  # type: ignore[arg-type]
        embedder=_env("JOBPIPE_EMBEDDER", "local"),  # type: ignore[arg-type]
        embedding_model=_env("JOBPIPE_EMBEDDING_MODEL"),
        openai_base_url=_env("JOBPIPE_OPENAI_BASE_URL", _env("OPENAI_BASE_URL")),
        openai_api_key=_env("JOBPIPE_OPENAI_API_KEY", _env("OPENAI_API_KEY")),
        schedule_cron=_env("JOBPIPE_SCHEDULE_CRON", "0 2 * * *"),  # type: ignore[arg-type]
        schedule_timezone=_env("JOBPIPE_SCHEDULE_TIMEZONE", "UTC"),  # type: ignore[arg-type]
        close_guard_share=float(_env("JOBPIPE_CLOSE_GUARD_SHARE", "0.3")),  # type: ignore[arg-type]
        reject_rate_threshold=float(_env("JOBPIPE_REJECT_RATE_THRESHOLD", "0.05")),  # type: ignore[arg-type]
        hnsw_m=int(_env("JOBPIPE_HNSW_M", "16")),  # type: ignore[arg-type]
        hnsw_ef_construction=int(_env("JOBPIPE_HNSW_EF_CONSTRUCTION", "64")),  # type: ignore[arg-type]
        retired_vector_days=float(_env("JOBPIPE_RETIRED_VECTOR_DAYS", "7")),  # type: ignore[arg-type]
        snapshot_retention_days=int(_env("JOBPIPE_SNAPSHOT_RETENTION_DAYS", "30")),  # type: ignore[arg-type]
        candidates_path=Path(_env("JOBPIPE_CANDIDATES", str(DEMO_RESUMES_DIR))),  # type: ignore[arg-type]
        fetch_deadline=float(_env("JOBPIPE_FETCH_DEADLINE", "120")),  # type: ignore[arg-type]
        matches_top_n=int(_env("JOBPIPE_MATCHES_TOP_N", "50")),  # type: ignore[arg-type]
        matches_reserve=int(_env("JOBPIPE_MATCHES_RESERVE", "25")),  # type: ignore[arg-type]
    )
