"""The Dagster code location (loaded through ``workspace.yaml``).

Nightly: the schedule launches one ``ingest_job`` run per source for the day (isolated
partitions: one failing source fails only its own run). Its run requests carry their partition's
tags already (:func:`source_run`), so a tick costs the same at 20 or 2,000 sources (see
``nightly_ingest``). When those runs have landed, the
automation sensor materializes the unpartitioned stages (vectors, index, serving snapshot,
candidate matches) once (see ``automation.py``). ``jobpipe run`` runs the same two jobs
in-process, with the same resources (:func:`build_definitions`).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from dagster import (
    AddDynamicPartitionsRequest,
    AssetSelection,
    AutomationConditionSensorDefinition,
    ConfigurableResource,
    DagsterInvariantViolationError,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    Definitions,
    JobDefinition,
    RunRequest,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    schedule,
    sensor,
)

from jobpipe.candidates.folder import folder_fingerprint
from jobpipe.config import get_settings
from jobpipe.orchestration.assets.candidates import candidate_matches, candidate_profiles, candidate_vectors
from jobpipe.orchestration.assets.ingest import curated_jobs, normalized_postings, raw_postings
from jobpipe.orchestration.assets.retention import snapshot_retention
from jobpipe.orchestration.assets.vectors import job_embeddings, serving_jobs, vector_index
from jobpipe.orchestration.executor import build_executor
from jobpipe.orchestration.freshness import source_freshness, sources_fresh
from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key
from jobpipe.orchestration.resources import PipelineSettingsResource, SourcesResource, build_resources

ASSETS = [
    raw_postings, normalized_postings, curated_jobs,
    job_embeddings, vector_index, serving_jobs,
    candidate_profiles, candidate_vectors, candidate_matches,
    snapshot_retention,
]

ingest_job = define_asset_job(
    "ingest_job",
    selection=AssetSelection.groups("ingest"),
    description="Fetch, normalize and upsert one source for one day (one partition per source and day).",
)
candidates_job = define_asset_job(
    "candidates_job",
    selection=AssetSelection.groups("candidates"),
    description="Read the candidates drop folder, embed changed profiles, refresh their matches.",
)
index_job = define_asset_job(
    "index_job",
    selection=AssetSelection.groups("vectors", "serving", "candidates", "maintenance"),
    description="Embed changed jobs, maintain the HNSW index, publish the serving snapshot, refresh matches, "
                "prune snapshot history past its retention window.",
)

_settings = get_settings()


@schedule(
    name="nightly_ingest",
    cron_schedule=_settings.schedule_cron,
    execution_timezone=_settings.schedule_timezone,
    job=ingest_job,
    default_status=DefaultScheduleStatus.RUNNING,
    description="Nightly ingestion: one run per enabled source for the scheduled day.",
)
def nightly_ingest(context: ScheduleEvaluationContext, sources: SourcesResource):
    """One run per enabled source for the scheduled day.

    Sources not yet registered are registered first (one query for the known ones, one insert
    for the new), so every request names a partition that exists. The requests come back
    resolved (:func:`source_run`): Dagster skips its own per-request check of the partition key,
    which costs a query per request inside the code server's gRPC call, and at 2,000 sources
    outlived its 60 s deadline (the tick failed and no source ran; docs/operations.md).
    """
    names = sources.names()
    known = set(context.instance.get_dynamic_partitions(SOURCES_PARTITION))
    new = [n for n in names if n not in known]
    if new:
        context.instance.add_dynamic_partitions(SOURCES_PARTITION, new)
    day = context.scheduled_execution_time.date()   # in the schedule's timezone
    try:
        job = context.repository_def.get_job(ingest_job.name)   # the job as the code location resolved it
    except DagsterInvariantViolationError:   # called bare (a test): Dagster resolves the requests itself
        job = None
    return [source_run(name, day, job) for name in names]


def source_run(name: str, day: date, job: JobDefinition | None = None) -> RunRequest:
    """The run request of one source's day; with ``job``, resolved: carrying the tags ``job`` gives
    its partition (``dagster/partition``, one per dimension, the partition set), so Dagster does
    not check the key again.

    Both dimensions are valid by construction: the source was just registered and ``day`` is the
    schedule's own day, never before the daily partitions' start. A test holds the request equal
    to the one Dagster resolves itself.
    """
    key = partition_key(name, day)
    tags = {"jobpipe/source": name, **(job.get_tags_for_partition_key(key, selected_asset_keys=None) if job else {})}
    return RunRequest(run_key=f"{name}|{day.isoformat()}", partition_key=key, tags=tags)


@sensor(
    name="register_sources",
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Registers every source in the sources file as a partition, so it can be backfilled.",
)
def register_sources(context: SensorEvaluationContext, sources: SourcesResource):
    known = set(context.instance.get_dynamic_partitions(SOURCES_PARTITION))
    new = [n for n in sources.names() if n not in known]
    if not new:
        return SkipReason("every source is registered")
    return SensorResult(dynamic_partitions_requests=[AddDynamicPartitionsRequest(SOURCES_PARTITION, new)])


@sensor(
    name="candidates_folder",
    job=candidates_job,
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,
    description="Starts the candidate assets when a resume is added to, edited in or removed from the drop folder.",
)
def candidates_folder(context: SensorEvaluationContext, settings: PipelineSettingsResource):
    """The cursor is a digest of the folder's listing: file names never reach Dagster."""
    fingerprint = folder_fingerprint(Path(settings.candidates_path))
    if fingerprint == context.cursor:
        return SkipReason("the candidates drop folder is unchanged")
    context.update_cursor(fingerprint)
    return RunRequest(run_key=f"candidates-{fingerprint[:24]}")


automation = AutomationConditionSensorDefinition(
    "jobpipe_automation",
    target=AssetSelection.all(),
    default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    description="Runs the downstream stages once the nightly source runs have landed.",
)


def build_definitions(resources: dict[str, ConfigurableResource] | None = None) -> Definitions:
    """The code location with ``resources`` (default: :func:`build_resources` from the environment now)."""
    return Definitions(
        assets=ASSETS,
        asset_checks=[sources_fresh],
        jobs=[ingest_job, index_job, candidates_job],
        schedules=[nightly_ingest],
        sensors=[register_sources, candidates_folder, automation, source_freshness],
        resources=resources if resources is not None else build_resources(),
        executor=build_executor(),   # JOBPIPE_EXECUTOR: multiprocess (default), in_process or celery
    )


defs = build_definitions()
