"""Per-source, per-day assets: raw snapshots -> normalized postings -> curated jobs.

Thin wiring: each asset calls one stage of ``jobpipe.pipeline.ingest`` and reports its result.
"""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    asset,
)

from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.outcomes import stage_failure
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


@asset(partitions_def=source_day_partitions, group_name=GROUP, kinds={"python", "postgres"}, owners=OWNERS)
def raw_postings(
    context: AssetExecutionContext, postgres: PostgresResource, sources: SourcesResource
) -> MaterializeResult:
    """Fetch one source for one day and store every distinct payload (``raw_postings``).

    Today's partition fetches over HTTP (politely, conditionally: an unchanged listing costs a
    304). A past day is never refetched -- the web no longer shows that day -- so its partition
    only confirms that a snapshot exists; backfills re-run the downstream assets from it.
    """
    source, day = split_key(context.partition_key)
    with postgres.connect() as conn:
        try:
            outcome = ingest_day(conn, source, day, config=sources.get, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=outcome.as_metadata())


@asset(
    partitions_def=source_day_partitions,
    deps=[raw_postings],
    group_name=GROUP,
    kinds={"python", "pandera", "postgres"},
    check_specs=[AssetCheckSpec(
        REJECT_RATE_CHECK, asset="normalized_postings",
        description="Fails when more of the day's postings are quarantined than the reject-rate threshold "
                    "allows: the source's site or its scraper probably changed.")],
    owners=OWNERS,
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
    source, day = split_key(context.partition_key)
    threshold = settings.reject_rate_threshold
    with postgres.connect() as conn:
        try:
            outcome = normalize_day(conn, source, day, threshold=threshold, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(
        metadata=outcome.as_metadata(),
        check_results=[
            AssetCheckResult(
                check_name=REJECT_RATE_CHECK,
                passed=outcome.within_threshold,
                severity=AssetCheckSeverity.ERROR,
                metadata={"reject_rate": outcome.reject_rate, "threshold": threshold, "rejected": outcome.rejected},
                description=outcome.summary,
            )
        ],
    )


@asset(
    partitions_def=source_day_partitions,
    deps=[normalized_postings],
    group_name=GROUP,
    kinds={"python", "postgres"},
    check_specs=[
        AssetCheckSpec(CLOSE_GUARD_CHECK, asset="curated_jobs",
                       description="Fails when the listing would close more than the close-guard share of the "
                                   "source's open postings at once: nothing was closed."),
        AssetCheckSpec(LISTING_CHECK, asset="curated_jobs",
                       description="Warns when the listing was not trusted to say which postings are gone "
                                   "(incomplete, short or doubtful pages): nothing was closed."),
    ],
    owners=OWNERS,
)
def curated_jobs(
    context: AssetExecutionContext, postgres: PostgresResource, settings: PipelineSettingsResource
) -> MaterializeResult:
    """Upsert the day's normalized postings into ``jobs``, re-tokenize what changed, close what vanished.

    Unchanged postings are not rewritten at all. Whether anything closes is decided by
    ``jobpipe.store.close_vanished``: only the latest day's listing, only when it is confirmed
    (complete and not short: an unconfirmed listing closes nothing and fails the
    ``listing_confirmed`` check, a warning naming why), and never more than a set share of the
    source's open postings at once (``close_guard``).
    """
    source, day = split_key(context.partition_key)
    max_share = settings.close_guard_share
    with postgres.connect() as conn:
        try:
            outcome = curate_day(conn, source, day, max_share=max_share, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    if not outcome.listing_confirmed:
        context.log.warning(f"source {source!r}: {outcome.close_reason}")
    return MaterializeResult(
        metadata=outcome.as_metadata(),
        check_results=[
            AssetCheckResult(
                check_name=CLOSE_GUARD_CHECK,
                passed=not outcome.close_refused,
                severity=AssetCheckSeverity.ERROR,
                metadata={"would_close": outcome.would_close, "max_share": max_share},
                description=outcome.close_reason,
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
