"""Settings read from the environment: every ``JOBPIPE_*`` variable is declared here, once.

Everything is optional: with nothing set, jobpipe runs on an embedded PostgreSQL in
``./.jobpipe`` with the bundled demo sources and the local offline embedding model.
Settings are read when asked for (not at import) so tests and the CLI can change the
environment before any connection is made. A value that does not parse fails with
:class:`SettingsError` naming the variable, instead of a traceback deep inside a run.

``docs/configuration.md`` is generated from the field descriptions below
(``python -m jobpipe.config --write``), and a test keeps the two equal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


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
PREFIX = "JOBPIPE_"


class SettingsError(ValueError):
    """An environment variable holds a value jobpipe cannot use (the message names it)."""


def _alias(*names: str) -> Any:
    return AliasChoices(*names)


class Settings(BaseSettings):
    """jobpipe's configuration. Field ``Field.description`` is the user documentation."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, extra="ignore", frozen=True,
                                      populate_by_name=True)

    # --- where things live
    home: Path = Field(Path(".jobpipe"), description="Folder of the embedded PostgreSQL (`pgdata/`), the Dagster "
                       "home (`dagster/`) and run locks.")
    database_url: str | None = Field(None, description="PostgreSQL URL of an external database (pgvector created "
                                     "beforehand); unset = the embedded server in the home folder.")
    dagster_database_url: str | None = Field(None, description="Dagster's run and event storage; unset = a database "
                                             "named `<jobpipe database>_dagster` on the same server.")
    sources_file: Path = Field(DEMO_SOURCES_FILE, validation_alias=_alias("JOBPIPE_SOURCES"),
                               description="The sources file (YAML); unset = the bundled demo sources.")
    candidates_path: Path = Field(DEMO_RESUMES_DIR, validation_alias=_alias("JOBPIPE_CANDIDATES"),
                                  description="A folder of resumes (or a JSONL file) for the candidate stages.")

    # --- embedding
    embedder: Literal["local", "openai"] = Field("local", description="`local` (an offline model from a PyPI "
                                                 "package) or `openai` (any OpenAI-compatible endpoint).")
    embedding_model: str | None = Field(None, description="local: a model id or alias (docs/embeddings.md); "
                                        "openai: the provider's model name (required).")
    openai_base_url: str | None = Field(None, validation_alias=_alias("JOBPIPE_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
                                        description="Base URL of the OpenAI-compatible endpoint (also read from "
                                        "`OPENAI_BASE_URL`).")
    openai_api_key: str | None = Field(None, validation_alias=_alias("JOBPIPE_OPENAI_API_KEY", "OPENAI_API_KEY"),
                                       description="API key of that endpoint (also read from `OPENAI_API_KEY`).")
    embedding_dims: int | None = Field(None, gt=0, description="openai: request (and expect) this many dimensions.")
    embedding_batch_tokens: int = Field(8000, gt=0, description="openai: token budget per embedding request.")

    # --- the nightly run
    schedule_cron: str = Field("0 2 * * *", description="When the nightly schedule runs (cron).")
    schedule_timezone: str = Field("UTC", description="The schedule's time zone (IANA name).")
    close_guard_share: float = Field(0.3, ge=0, le=1, description="A listing that would close more than this "
                                     "share of a source's open postings closes nothing (and the run fails loudly).")
    reject_rate_threshold: float = Field(0.05, ge=0, le=1, description="A source rejecting more than this share "
                                         "of its postings fails its check.")
    fetch_deadline: float = Field(120.0, gt=0, description="Seconds one outgoing HTTP request may take in all "
                                  "(connect and every read).")
    hnsw_m: int = Field(16, ge=2, description="HNSW graph degree of the vector indexes.")
    hnsw_ef_construction: int = Field(64, ge=4, description="HNSW build candidate list.")
    retired_vector_days: float = Field(7.0, ge=0, description="A retired model's vectors are kept this long "
                                       "(switching back costs no re-embedding).")
    snapshot_retention_days: int = Field(30, ge=1, description="Days of daily snapshot history kept (the days a "
                                         "backfill can replay); the latest payload of every open posting is kept "
                                         "forever.")
    partitions_start: date | None = Field(None, description="First day of the daily partitions (`2026-11-01`); "
                                          "unset = the deployment's first fetch, at most the retention window back.")
    freshness_hours: float = Field(36.0, gt=0, description="A source not fetched successfully for this long is "
                                   "stale (per source: `freshness_hours` in the sources file).")
    step_retries: int = Field(2, ge=0, description="Retries of the fetch, normalize and upsert steps (transient "
                              "failures heal).")
    retry_delay_seconds: float = Field(30.0, ge=0, description="Delay before the first step retry (doubling, with "
                                       "jitter).")
    host_concurrency: int = Field(2, ge=1, description="Fetches of one host at once, across every run on this "
                                  "database.")
    matches_top_n: int = Field(50, gt=0, description="Open jobs kept (and shown at most) per candidate in "
                               "`candidate_matches`.")
    matches_reserve: int = Field(25, ge=0, description="Further matches kept unseen per candidate, so a closed "
                                 "job does not cost a search.")

    # --- orchestration
    executor: Literal["multiprocess", "in_process", "celery"] = Field(
        "multiprocess", description="Dagster executor of the code location's jobs.")
    celery_broker_url: str | None = Field(None, description="Celery broker (e.g. `redis://127.0.0.1:6379/0`); "
                                          "required with `JOBPIPE_EXECUTOR=celery`.")
    celery_backend_url: str | None = Field(None, description="Celery result backend; unset = the broker.")

    # --- the query service
    api_token: str | None = Field(None, description="Bearer token clients of the HTTP service must send; required "
                                  "to listen beyond loopback.")
    service_database_url: str | None = Field(None, description="The service's own read-only login "
                                             "(`jobpipe db service-role`); unset = the login jobpipe sets up on "
                                             "its embedded server.")
    service_writer_database_url: str | None = Field(None, description="The login `POST`/`DELETE /candidates` "
                                                    "write with (candidate tables only: `jobpipe db service-role "
                                                    "--candidate-writer`); unset = the one jobpipe sets up on its "
                                                    "embedded server.")
    statement_timeout_ms: int = Field(2000, gt=0, description="The service's per-statement timeout.")
    service_pool_size: int = Field(8, gt=0, description="Connections in the service's pool.")

    # --- the optional reranker (jobpipe.search.rerank)
    rerank_url: str | None = Field(None, description="A rerank endpoint (`/v1/rerank`, TEI `/rerank`) or an "
                                   "OpenAI-compatible chat endpoint; unset = no reranking.")
    rerank_kind: Literal["rerank", "chat"] = Field("rerank", description="`rerank` (a cross-encoder endpoint) or "
                                                   "`chat` (a chat model asked to order the results).")
    rerank_model: str = Field("reranker", description="The model name sent to the reranker.")
    rerank_api_key: str | None = Field(None, description="API key of the reranker.")
    rerank_timeout_ms: int = Field(1500, gt=0, description="How long a search waits for the reranker before "
                                   "answering in the fused order.")
    rerank_depth: int = Field(30, gt=0, description="How many fused results the reranker re-orders.")

    # --- the demo
    demo_port: int = Field(8765, ge=0, lt=65536, description="Port of the demo's local job boards (stable, so a "
                           "second `make run` exercises conditional requests).")

    @field_validator("home", mode="after")
    @classmethod
    def _absolute_home(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("schedule_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value

    @property
    def replay_days(self) -> int:
        """Days a backfill can replay: the snapshot retention window."""
        return self.snapshot_retention_days

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

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied (validated like the environment is)."""
        return _validated(lambda: type(self).model_validate({**self.model_dump(), **changes}))


def env_name(field: str) -> str:
    """The (first) environment variable of a :class:`Settings` field."""
    alias = Settings.model_fields[field].validation_alias
    return str(alias.choices[0]) if isinstance(alias, AliasChoices) else PREFIX + field.upper()


def get_settings() -> Settings:
    """The settings of the environment now; :class:`SettingsError` names every unusable variable."""
    return _validated(Settings)


def settings_from(env: Mapping[str, str]) -> Settings:
    """The settings a given environment (variable -> value) would give; unset variables keep defaults."""
    values: dict[str, str] = {}
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        names = [str(n) for n in alias.choices] if isinstance(alias, AliasChoices) else [env_name(field)]
        given = next((env[n] for n in names if env.get(n)), None)
        if given is not None:
            values[field] = given
    return _validated(lambda: Settings.model_validate(values))


def _validated(build: Callable[[], Settings]) -> Settings:
    try:
        return build()
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else "?"
            name = env_name(field) if field in Settings.model_fields else field
            problems.append(f"{name}={error.get('input')!r}: {error['msg']}")
        raise SettingsError("; ".join(problems)) from None


# Variables that are not settings of this object, documented with it:
OTHER_VARIABLES = {
    "JOBPIPE_PG_<NAME>": "Embedded server only: a PostgreSQL setting, e.g. `JOBPIPE_PG_SHARED_BUFFERS=2GB` "
                         "(defaults in jobpipe/db/server.py).",
    "JOBPIPE_DAGSTER_STORAGE_URL": "Set by jobpipe for the Dagster processes it starts (read by dagster.yaml); "
                                   "a deployment sets it itself (`jobpipe db dagster-url`).",
    "JOBPIPE_DEMO_URL": "Set by jobpipe while the demo's boards run; the demo sources file refers to it.",
    "JOBPIPE_CODE_SERVER_HOST / _PORT": "Where deploy/workspace.yaml finds the gRPC code server.",
    "JOBPIPE_TEST_DATABASE_URL": "Tests only: run the suite in this existing database (docs/deploy.md).",
    "JOBPIPE_TEST_SERVICE_DATABASE_URL": "Tests only: the service's own login to that database (docs/deploy.md).",
    "JOBPIPE_SCREENSHOTS": "Tests only: the browser tests also save their screenshots in this folder.",
    "JOBPIPE_DAGSTER_CHART": "Tests only: the unpacked Dagster Helm chart the Helm values are validated against.",
    "JOBPIPE_IMAGE": "deploy/compose.yaml: the jobpipe image to run.",
    "JOBPIPE_DB_PASSWORD": "deploy/compose.yaml: the owner role's password.",
    "JOBPIPE_SERVICE_DB_PASSWORD": "deploy/compose.yaml: the service login's password.",
    "JOBPIPE_CANDIDATES_DB_PASSWORD": "deploy/compose.yaml: the candidate writer login's password.",
}


def reference() -> str:
    """docs/configuration.md: every variable with its default and meaning."""
    lines = ["# Configuration", "",
             "Every setting is an environment variable; nothing is required. This page is generated from",
             "`jobpipe/config.py` (`python -m jobpipe.config --write`); a test keeps it current.", "",
             "| variable | default | meaning |", "|---|---|---|"]
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        names = [str(n) for n in alias.choices] if isinstance(alias, AliasChoices) else [env_name(field)]
        default = info.default
        if default is None:
            shown = "unset"
        elif isinstance(default, Path) and default.is_absolute():   # a file of the package: no machine paths
            shown = {DEMO_SOURCES_FILE: "the demo sources", DEMO_RESUMES_DIR: "the demo resumes"}[default]
        else:
            shown = f"`{default}`"
        lines.append(f"| {' or '.join(f'`{n}`' for n in names)} | {shown} | {info.description} |")
    lines += ["", "Also read:", ""]
    lines += [f"- `{name}`: {text}" for name, text in OTHER_VARIABLES.items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":   # python -m jobpipe.config [--write]
    target = PROJECT_ROOT / "docs" / "configuration.md"
    if "--write" in sys.argv[1:]:
        target.write_text(reference(), encoding="utf-8")
    else:
        sys.stdout.write(reference())
