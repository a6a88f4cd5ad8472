"""Which executor runs a run's steps: in the run's own process tree, or on Celery workers.

``JOBPIPE_EXECUTOR`` chooses: unset or ``multiprocess`` (Dagster's default: one process per
step, on the machine that runs the run), ``in_process``, or ``celery`` (each step is a task on
a Celery queue, taken by any worker on any machine: ``dagster-celery worker start``). The
Celery broker and result backend are read from the environment *when a run starts*
(``{"env": ...}`` config), so their URLs (and passwords) never appear in run config or in the
UI; the backend defaults to the broker (a Redis URL serves as both).
"""

from __future__ import annotations

from typing import Any

from dagster import in_process_executor

from jobpipe.config import env_name, get_settings

EXECUTORS = ("multiprocess", "in_process", "celery")
BROKER_ENV = env_name("celery_broker_url")
BACKEND_ENV = env_name("celery_backend_url")


class ExecutorConfigError(RuntimeError):
    """JOBPIPE_EXECUTOR names no executor, or the chosen one lacks its settings."""


def build_executor(kind: str | None = None) -> Any:
    """The executor definition for :class:`dagster.Definitions` (None: Dagster's default)."""
    settings = get_settings()
    kind = (kind if kind is not None else settings.executor).strip().lower() or "multiprocess"
    if kind not in EXECUTORS:
        raise ExecutorConfigError(f"JOBPIPE_EXECUTOR must be one of {', '.join(EXECUTORS)}, not {kind!r}")
    if kind == "multiprocess":
        return None
    if kind == "in_process":
        return in_process_executor
    if not settings.celery_broker_url:
        raise ExecutorConfigError(f"JOBPIPE_EXECUTOR=celery needs {BROKER_ENV} (e.g. redis://127.0.0.1:6379/0)")
    from dagster_celery import celery_executor  # lazy: an optional extra ([celery]), needed only here

    backend_env = BACKEND_ENV if settings.celery_backend_url else BROKER_ENV
    return celery_executor.configured(
        {"broker": {"env": BROKER_ENV}, "backend": {"env": backend_env}},
        name="celery",
    )
