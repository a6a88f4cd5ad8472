"""Snapshot retention: the database stays bounded however many nights run."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.assets.ingest import curated_jobs
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS
from jobpipe.orchestration.resources import PipelineSettingsResource, PostgresResource
from jobpipe.pipeline.maintenance import prune_history


@asset(
    deps=[curated_jobs],
    group_name="maintenance",
    kinds={"postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    owners=OWNERS,
)
def snapshot_retention(
    context: AssetExecutionContext, postgres: PostgresResource, settings: PipelineSettingsResource
) -> MaterializeResult:
    """Prune snapshot history older than ``JOBPIPE_SNAPSHOT_RETENTION_DAYS`` (default 30).

    Kept: every fetch run of the window (and each source's latest), the payloads they listed,
    and the current payload of every posting its source still lists, forever. Days before the
    window can no longer be replayed; the metadata says how much went and from which day replay
    still works (``replayable_from``). A source a run holds is skipped (``busy_sources``) and
    pruned by the next pass.
    """
    with postgres.connect() as conn:
        outcome = prune_history(conn, keep_days=settings.snapshot_retention_days, run_id=context.run_id)
    context.log.info(f"snapshot retention: {outcome.as_metadata()}")
    return MaterializeResult(metadata=outcome.as_metadata())
