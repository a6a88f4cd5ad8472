"""Unpartitioned assets over the whole curated store: vectors, their index, the serving view."""


import sys
from datetime import timedelta

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Backoff,
    MaterializeResult,
    MetadataValue,
    RetryPolicy,
    asset,
)

from jobpipe.orchestration.assets.ingest import curated_jobs
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS
from jobpipe.orchestration.resources import EmbedderResource, PipelineSettingsResource, PostgresResource

GROUP = "vectors"
RECALL_TARGET = 0.95


def terminal_progress(label: str):
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
)
def job_embeddings(
    context: AssetExecutionContext, postgres: PostgresResource, embedder: EmbedderResource
) -> MaterializeResult:
    """Embed exactly the open jobs whose embedding text changed (or that lack a vector of the model).

    A job's old vector keeps serving until its new one is committed. Switching models embeds
    under the new model in the background; search moves over only once it covers every open job.
    """
    from jobpipe.store import active_model, pending_jobs, sync_job_embeddings

    model = embedder.get()
    with postgres.connect() as conn:
        before = pending_jobs(conn, model.model)
        counts = sync_job_embeddings(conn, model, progress=terminal_progress(f"embedding ({model.model})"))
        after = pending_jobs(conn, model.model)
        serving = active_model(conn)
    return MaterializeResult(
        metadata={
            "embedded": counts.embedded,
            "pending_before": before,
            "pending_after": after,
            "model": model.model,
            "dims": model.dims,
            "active_model": serving.model if serving else None,
        }
    )


@asset(
    deps=[job_embeddings],
    group_name=GROUP,
    kinds={"pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    check_specs=[AssetCheckSpec("hnsw_recall", asset="vector_index")],
)
def vector_index(postgres: PostgresResource, settings: PipelineSettingsResource) -> MaterializeResult:
    """Keep one HNSW (cosine) index per embedding model in use, built after bulk loads.

    The index is only trusted if it finds what exact search finds: the check measures recall@10
    against an exact scan, with and without a selective filter, and fails below 0.95. Models
    retired longer ago than ``retired_vector_days`` lose their vectors and index here: kept
    that long, switching back costs no re-embedding; kept forever, they only cost disk.
    """
    from jobpipe.store import ensure_vector_index, index_recall, index_state, prune_retired_models

    params = settings.resolved()
    with postgres.connect() as conn:
        models = conn.execute(
            "SELECT model, dims FROM embedding_models WHERE state IN ('active', 'building') ORDER BY model"
        ).fetchall()
        built = []
        for model, dims in models:
            state = ensure_vector_index(conn, model, dims, m=params["hnsw_m"], ef_construction=params["hnsw_ef_construction"])
            built.append(state)
        recalls: dict[str, dict[str, float]] = {}
        for model, _dims in models:
            recalls[model] = {
                "unfiltered": index_recall(conn, model),
                "filtered": index_recall(conn, model, filter_sql="selective"),
            }
        states = index_state(conn)
        pruned = prune_retired_models(conn, older_than=timedelta(days=params["retired_vector_days"]))
    worst = min((v for r in recalls.values() for v in r.values()), default=1.0)
    return MaterializeResult(
        metadata={
            "indexes": MetadataValue.json([_jsonable(s) for s in states]),
            "built_now": sum(1 for s in built if getattr(s, "built_now", False)),
            "recall": MetadataValue.json(recalls),
            **pruned.as_metadata(),
        },
        check_results=[
            AssetCheckResult(
                check_name="hnsw_recall",
                passed=worst >= RECALL_TARGET,
                severity=AssetCheckSeverity.ERROR,
                metadata={"worst_recall_at_10": round(worst, 4), "target": RECALL_TARGET},
            )
        ],
    )


@asset(
    deps=[vector_index],
    group_name="serving",
    kinds={"postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    check_specs=[AssetCheckSpec("every_open_job_searchable", asset="serving_jobs")],
)
def serving_jobs(postgres: PostgresResource) -> MaterializeResult:
    """Publish what the query service serves: a snapshot of the ``serving_jobs`` view's coverage.

    The service reads the view live (open jobs + the active model's vectors); this asset records
    how much of it is searchable by vector, so a gap (jobs waiting for vectors) is visible here and
    in the service's ``/health`` instead of silently shrinking results.
    """
    from jobpipe.store.serving import publish_serving_snapshot

    with postgres.connect() as conn:
        snap = publish_serving_snapshot(conn)
    return MaterializeResult(
        metadata={
            "open_jobs": snap["open_jobs"],
            "with_vector": snap["with_vector"],
            "closed_jobs": snap["closed_jobs"],
            "active_model": str(snap["model"]),
            "duplicate_groups": snap["duplicate_groups"],
        },
        check_results=[
            AssetCheckResult(
                check_name="every_open_job_searchable",
                passed=snap["with_vector"] == snap["open_jobs"],
                severity=AssetCheckSeverity.WARN,
                metadata={"missing_vectors": snap["open_jobs"] - snap["with_vector"]},
            )
        ],
    )


def _jsonable(obj: object) -> object:
    from dataclasses import asdict, is_dataclass

    return asdict(obj) if is_dataclass(obj) and not isinstance(obj, type) else str(obj)
