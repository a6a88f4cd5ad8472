"""Per-source, per-day assets: raw snapshots -> normalized postings -> curated jobs.

Thin wiring: each asset calls one stage of ``jobpipe.pipeline.ingest`` and reports its result.
"""

import time

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Backoff,
    Jitter,
    MaterializeResult,
    RetryPolicy,
    asset,
)

from jobpipe.config import get_settings
from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.outcomes import stage_failure, with_seconds
from jobpipe.orchestration.partitions import source_day_partitions, split_key
from jobpipe.orchestration.resources import PipelineSettingsResource, PostgresResource, SourcesResource
from jobpipe.pipeline.errors import StageError
from jobpipe.pipeline.ingest import (
    CLOSE_GUARD_CHECK,
    LISTING_CHECK,
    REJECT_RATE_CHECK,
    curate_day,
    ingest_day,
    normalize_day,
)

GROUP = "ingest"


def _retry_policy() -> RetryPolicy:
    """Transient failures heal: a board's outage, a dropped database connection. The stages are
    idempotent (each reads what the previous one stored), so a retry redoes exactly the step."""
    settings = get_settings()
    return RetryPolicy(max_retries=settings.step_retries, delay=settings.retry_delay_seconds,
                       backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)


RETRY = _retry_policy()


def _close_guard_share(sources: SourcesResource, source: str, default: float) -> float:
    """The source's own close_guard_share from the sources file, else the deployment's."""
    try:
        own = sources.get(source).close_guard_share
    except KeyError:           # a replay of a source since removed from the file
        return default
    return own if own is not None else default


@asset(partitions_def=source_day_partitions, group_name=GROUP, kinds={"python", "postgres"}, owners=OWNERS,
       retry_policy=RETRY)
def raw_postings(
    context: AssetExecutionContext, postgres: PostgresResource, sources: SourcesResource
) -> MaterializeResult:
    """Fetch one source for one day and store every distinct payload (``raw_postings``).

    Today's partition fetches over HTTP (politely, conditionally: an unchanged listing costs a
    304). A past day is never refetched -- the web no longer shows that day -- so its partition
    only confirms that a snapshot exists; backfills re-run the downstream assets from it.
    """
    started = time.monotonic()
    source, day = split_key(context.partition_key)
    with postgres.connect() as conn:
        try:
            # slots_url: at most JOBPIPE_HOST_CONCURRENCY fetches of one host at once, across all runs
            outcome = ingest_day(conn, source, day, config=sources.get, run_id=context.run_id,
                                 slots_url=postgres.url)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=with_seconds(outcome, started))


@asset(
    partitions_def=source_day_partitions,
    deps=[raw_postings],
    group_name=GROUP,
    kinds={"python", "pandera", "postgres"},
    owners=OWNERS,
    retry_policy=RETRY,
    check_specs=[AssetCheckSpec(
        REJECT_RATE_CHECK, asset="normalized_postings",
        description="Fails (ERROR: `jobpipe run` exits non-zero) when more of the day's postings are "
                    "quarantined than JOBPIPE_REJECT_RATE_THRESHOLD (5%) allows: the source's site or its "
                    "scraper probably changed.")],
)
def normalized_postings(
    context: AssetExecutionContext, postgres: PostgresResource, settings: PipelineSettingsResource
) -> MaterializeResult:
    """Normalize the day's stored payloads into the one bilingual schema, validated with pandera.

    Reads payloads from the snapshot, not from the network, so re-running a partition (or a
    backfill of a past day) gives the same rows. Rows that fail validation go to ``quarantine``
    with the failed checks: never dropped silently; a source whose reject rate passes the
    threshold fails the check (its scraper or the site probably changed).
    """
    started = time.monotonic()
    source, day = split_key(context.partition_key)
    threshold = settings.reject_rate_threshold
    with postgres.connect() as conn:
        try:
            outcome = normalize_day(conn, source, day, threshold=threshold, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(
        metadata=with_seconds(outcome, started),
        check_results=[
            AssetCheckResult(
                check_name=REJECT_RATE_CHECK,
                passed=outcome.within_threshold,
                severity=AssetCheckSeverity.ERROR,
                metadata={"reject_rate": outcome.reject_rate, "threshold": threshold, "rejected": outcome.rejected},
                description=outcome.problem or outcome.summary,
            )
        ],
    )


@asset(
    partitions_def=source_day_partitions,
    deps=[normalized_postings],
    group_name=GROUP,
    kinds={"python", "postgres"},
    owners=OWNERS,
    retry_policy=RETRY,
    check_specs=[
        AssetCheckSpec(CLOSE_GUARD_CHECK, asset="curated_jobs",
                       description="Fails (ERROR) when the listing would close more than close_guard_share (30%) "
                                   "of the source's open postings at once: nothing was closed. When the jobs are "
                                   "really gone: `jobpipe sources accept-close NAME`, then run again."),
        AssetCheckSpec(LISTING_CHECK, asset="curated_jobs",
                       description="Warns when the listing was not trusted to say which postings are gone "
                                   "(incomplete, short or doubtful pages): nothing was closed."),
    ],
)
def curated_jobs(
    context: AssetExecutionContext, postgres: PostgresResource, settings: PipelineSettingsResource,
    sources: SourcesResource,
) -> MaterializeResult:
    """Upsert the day's normalized postings into ``jobs``, re-tokenize what changed, close what vanished.

    Unchanged postings are not rewritten at all. Whether anything closes is decided by
    ``jobpipe.store.close_vanished``: only the latest day's listing, only when it is confirmed
    (complete and not short: an unconfirmed listing closes nothing and fails the
    ``listing_confirmed`` check, a warning naming why), and never more than a set share of the
    source's open postings at once (``close_guard``).
    """
    started = time.monotonic()
    source, day = split_key(context.partition_key)
    max_share = _close_guard_share(sources, source, settings.close_guard_share)
    with postgres.connect() as conn:
        try:
            outcome = curate_day(conn, source, day, max_share=max_share, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    if not outcome.listing_confirmed:
        context.log.warning(f"source {source!r}: {outcome.close_reason}")
    return MaterializeResult(
        metadata=with_seconds(outcome, started),
        check_results=[
            AssetCheckResult(
                check_name=CLOSE_GUARD_CHECK,
                passed=not outcome.close_refused,
                severity=AssetCheckSeverity.ERROR,
                metadata={"would_close": outcome.would_close, "open_before": outcome.open_before,
                          "max_share": max_share, "accepted": outcome.accepted},
                description=outcome.problem or outcome.close_reason,
            ),
            AssetCheckResult(
                check_name=LISTING_CHECK,
                passed=outcome.listing_confirmed,
                severity=AssetCheckSeverity.WARN,
                metadata={"would_close": outcome.would_close, "considered": outcome.considered},
                description=outcome.close_reason if not outcome.listing_confirmed else "listing confirmed",
            ),
        ],
    )
