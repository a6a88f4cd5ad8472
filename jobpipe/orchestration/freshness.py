"""The ``sources_fresh`` check: every enabled source fetched successfully within its freshness
limit (``freshness_hours`` in the sources file, else ``JOBPIPE_FRESHNESS_HOURS``, 36 h).

One check over all sources, not one per source: at 2,000 sources, 2,000 checks on one asset
would bury the asset page; the check's metadata names each stale source with its age and
limit, and ``jobpipe status`` shows every source's freshness. The ``source_freshness`` sensor
evaluates it every 15 minutes (no run is launched: the result is reported to the instance), so
a source that silently stopped being fetched turns the check red in the UI.
"""

from __future__ import annotations

from dagster import (
    AssetCheckEvaluation,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetKey,
    DefaultSensorStatus,
    MetadataValue,
    SensorEvaluationContext,
    SkipReason,
    asset_check,
    sensor,
)

from jobpipe.config import get_settings
from jobpipe.db import connect, ready_url
from jobpipe.orchestration.assets.ingest import raw_postings
from jobpipe.orchestration.resources import PostgresResource, SourcesResource
from jobpipe.status import FRESHNESS_CHECK, source_status

DESCRIPTION = ("Every enabled source was fetched successfully within its freshness limit (freshness_hours in the "
               "sources file, else JOBPIPE_FRESHNESS_HOURS, 36 h); the metadata lists the stale ones.")


def evaluate(postgres: PostgresResource, sources: SourcesResource) -> dict:
    """passed, description and metadata of the check, from jobpipe's database."""
    settings = get_settings()
    configs = sources.load()
    # ready_url, not postgres.connect(): a sensor's resources are not set up like a run's
    with connect(ready_url(postgres.database_url)) as conn:
        rows = [r for r in source_status(conn, configs, default_freshness_hours=settings.freshness_hours)
                if r.in_sources_file]
    stale = [r for r in rows if not r.fresh]
    table = "\n".join(["| source | last successful fetch | limit |", "|---|---|---|"] + [
        f"| {r.source} | {f'{r.hours_since_success:.1f} h ago' if r.hours_since_success is not None else 'never'} "
        f"| {r.freshness_hours:g} h |" for r in stale[:200]])
    return {
        "passed": not stale,
        "description": (f"{len(stale)} of {len(rows)} sources stale: " + ", ".join(r.source for r in stale[:10])
                        + (" ..." if len(stale) > 10 else "")) if stale else f"all {len(rows)} sources fresh",
        "metadata": {"stale": len(stale), "sources": len(rows),
                     **({"stale_sources": MetadataValue.md(table)} if stale else {})},
    }


@asset_check(asset=raw_postings, name=FRESHNESS_CHECK, description=DESCRIPTION, blocking=False)
def sources_fresh(postgres: PostgresResource, sources: SourcesResource) -> AssetCheckResult:
    result = evaluate(postgres, sources)
    return AssetCheckResult(passed=result["passed"], severity=AssetCheckSeverity.ERROR,
                            description=result["description"], metadata=result["metadata"])


@sensor(name="source_freshness", minimum_interval_seconds=900, default_status=DefaultSensorStatus.RUNNING,
        description="Evaluates the sources_fresh check every 15 minutes (reported, no run launched).")
def source_freshness(context: SensorEvaluationContext, postgres: PostgresResource,
                     sources: SourcesResource) -> SkipReason:
    result = evaluate(postgres, sources)
    context.instance.report_runless_asset_event(AssetCheckEvaluation(
        asset_key=AssetKey("raw_postings"), check_name=FRESHNESS_CHECK, passed=result["passed"],
        severity=AssetCheckSeverity.ERROR, description=result["description"], metadata=result["metadata"]))
    return SkipReason(result["description"])
