"""Between the stages' typed results and Dagster: failures, and results read back from a run."""

from __future__ import annotations

import time
from typing import Any, TypeVar

from dagster import ExecuteInProcessResult, Failure

from jobpipe.pipeline.errors import NoSnapshotError, StageError
from jobpipe.pipeline.report import Report

R = TypeVar("R", bound=Report)


def stage_failure(exc: StageError) -> Failure:
    """The Dagster failure for a stage error: its message as the description the UI shows."""
    # A past day without a snapshot stays without one: retrying it cannot help.
    return Failure(description=str(exc), metadata={k: v for k, v in exc.details.items() if v is not None},
                   allow_retries=not isinstance(exc, NoSnapshotError))


def with_seconds(outcome: Report, started: float) -> dict[str, Any]:
    """The outcome's metadata plus ``seconds``: how long the step took (shown on the asset's page)."""
    return {**outcome.as_metadata(), "seconds": round(time.monotonic() - started, 3)}


def read_outcome(result: ExecuteInProcessResult, asset: str, kind: type[R]) -> R | None:
    """The stage result an asset of ``result`` reported (its latest materialization), or None."""
    materializations = result.asset_materializations_for_node(asset)
    if not materializations:
        return None
    metadata = {key: getattr(value, "value", value) for key, value in materializations[-1].metadata.items()}
    return kind.from_metadata(metadata)


def failed_checks(result: ExecuteInProcessResult) -> list[str]:
    """``asset:check`` of every check of the run that did not pass."""
    return [f"{e.asset_key.to_user_string()}:{e.check_name}" for e in result.get_asset_check_evaluations()
            if not e.passed]


def failure_text(result: ExecuteInProcessResult, assets: list[str]) -> str:
    """The first failed asset's reason: a stage error's message, else the exception's last line."""
    for asset in assets:
        data: Any = result.failure_data_for_node(asset)
        if data is None:
            continue
        user = getattr(data, "user_failure_data", None)
        if user is not None and user.description:
            return str(user.description)
        error = data.error
        if error is not None:
            return error.message.strip().splitlines()[-1] if error.message else error.cls_name
    return "run failed"
