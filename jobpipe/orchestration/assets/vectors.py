"""Unpartitioned assets over the whole curated store: vectors, their index, the serving view.

Thin wiring: each asset calls one stage of ``jobpipe.pipeline.vectors`` and reports its result.
"""

import sys
import time
from collections.abc import Callable
from datetime import timedelta

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Backoff,
    MaterializeResult,
    RetryPolicy,
    asset,
)

from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.assets.ingest import curated_jobs
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS
from jobpipe.orchestration.outcomes import stage_failure, with_seconds
from jobpipe.orchestration.resources import EmbedderResource, PipelineSettingsResource, PostgresResource
from jobpipe.pipeline.errors import StageError
from jobpipe.pipeline.vectors import COVERAGE_CHECK, RECALL_CHECK, embed_jobs, maintain_indexes, publish_serving

GROUP = "vectors"


def terminal_progress(label: str) -> Callable[[int, int], None] | None:
    """A progress callback that redraws one line on a terminal and stays quiet elsewhere."""
    if not sys.stderr.isatty():
        return None

    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{label}: {done}/{total}{end}")
        sys.stderr.flush()

    return report


@asset(
    deps=[curated_jobs],
    group_name=GROUP,
    kinds={"python", "pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    # Embedding APIs fail transiently; each batch is committed, so a retry resumes, not restarts.
    retry_policy=RetryPolicy(max_retries=2, delay=10, backoff=Backoff.EXPONENTIAL),
    owners=OWNERS,
)
def job_embeddings(context: AssetExecutionContext, postgres: PostgresResource,
                   embedder: EmbedderResource) -> MaterializeResult:
    """Embed exactly the open jobs whose embedding text changed (or that lack a vector of the model).

    A job's old vector keeps serving until its new one is committed. Switching models embeds
    under the new model in the background; search moves over only once it covers every open job.
    """
    started = time.monotonic()
    model = embedder.get()
    with postgres.connect() as conn:
        try:
            outcome = embed_jobs(conn, model, progress=terminal_progress(f"embedding ({model.model})"),
                                 run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=with_seconds(outcome, started))


@asset(
    deps=[job_embeddings],
    group_name=GROUP,
    kinds={"pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    check_specs=[AssetCheckSpec(
        RECALL_CHECK, asset="vector_index",
        description="Fails when the HNSW index finds less than 0.95 of what exact search finds (recall@10, "
                    "with and without a selective filter).")],
    owners=OWNERS,
)
def vector_index(context: AssetExecutionContext, postgres: PostgresResource,
                 settings: PipelineSettingsResource) -> MaterializeResult:
    """Keep one HNSW (cosine) index per embedding model in use, built after bulk loads.

    The index is only trusted if it finds what exact search finds: the check measures recall@10
    against an exact scan, with and without a selective filter, and fails below 0.95. Models
    retired longer ago than ``retired_vector_days`` lose their vectors and index here: kept
    that long, switching back costs no re-embedding; kept forever, they only cost disk.
    """
    started = time.monotonic()
    with postgres.connect() as conn:
        try:
            outcome = maintain_indexes(conn, m=settings.hnsw_m, ef_construction=settings.hnsw_ef_construction,
                                       retired_after=timedelta(days=settings.retired_vector_days),
                                       run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(
        metadata=with_seconds(outcome, started),
        check_results=[
            AssetCheckResult(
                check_name=RECALL_CHECK,
                passed=outcome.recall_ok,
                severity=AssetCheckSeverity.ERROR,
                metadata={"worst_recall_at_10": outcome.worst_recall, "target": outcome.recall_target},
            )
        ],
    )


@asset(
    deps=[vector_index],
    group_name="serving",
    kinds={"postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    check_specs=[AssetCheckSpec(
        COVERAGE_CHECK, asset="serving_jobs",
        description="Warns while open jobs wait for a vector of the active model (they are then found by "
                    "keyword search only).")],
    owners=OWNERS,
)
def serving_jobs(postgres: PostgresResource) -> MaterializeResult:
    """Publish what the query service serves: a snapshot of the ``serving_jobs`` view's coverage.

    The service reads the view live (open jobs + the active model's vectors); this asset records
    how much of it is searchable by vector, so a gap (jobs waiting for vectors) is visible here and
    in the service's ``/health`` instead of silently shrinking results.
    """
    started = time.monotonic()
    with postgres.connect() as conn:
        outcome = publish_serving(conn)
    return MaterializeResult(
        metadata=with_seconds(outcome, started),
        check_results=[
            AssetCheckResult(
                check_name=COVERAGE_CHECK,
                passed=outcome.missing_vectors == 0,
                severity=AssetCheckSeverity.WARN,
                metadata={"missing_vectors": outcome.missing_vectors},
            )
        ],
    )
