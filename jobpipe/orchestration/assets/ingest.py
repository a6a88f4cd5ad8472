"""Per-source, per-day assets: raw snapshots -> normalized postings -> curated jobs."""


from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)

from jobpipe.orchestration.partitions import source_day_partitions, split_key, today
from jobpipe.orchestration.resources import PipelineSettingsResource, PostgresResource, SourcesResource

GROUP = "ingest"


@asset(partitions_def=source_day_partitions, group_name=GROUP, kinds={"python", "postgres"})
def raw_postings(
    context: AssetExecutionContext, postgres: PostgresResource, sources: SourcesResource
) -> MaterializeResult:
    """Fetch one source for one day and store every distinct payload (``raw_postings``).

    Today's partition fetches over HTTP (politely, conditionally: an unchanged listing costs a
    304). A past day is never refetched -- the web no longer shows that day -- so its partition
    only confirms that a snapshot exists; backfills re-run the downstream assets from it.
    """
    from jobpipe.sources import SourceFetchError, load_snapshot, run_source

    source_name, day = split_key(context.partition_key)
    with postgres.connect() as conn:
        if day < today():
            snapshot = load_snapshot(conn, source_name, day)
            if snapshot is None:
                raise Failure(
                    description=f"no raw snapshot of source {source_name!r} for {day}: past days are "
                    "replayed from stored payloads and cannot be fetched again"
                )
            return MaterializeResult(
                metadata={"replayed": True, "fetch_id": snapshot.fetch_id, "postings": len(snapshot.items),
                          "complete": snapshot.complete, "quarantined": snapshot.quarantined}
            )
        config = sources.get(source_name)
        try:
            summary = run_source(conn, config, day, dagster_run_id=context.run_id)
        except SourceFetchError as exc:
            raise Failure(description=f"source {source_name!r} failed: {exc}",
                          metadata={"source": source_name, "error": str(exc)}) from exc
    return MaterializeResult(
        metadata={
            "fetched": summary.fetched,
            "new_payloads": summary.new_payloads,
            "complete": summary.complete,
            "fetch_id": summary.fetch_id,
            "requests": getattr(summary, "requests", 0),
            "not_modified": getattr(summary, "not_modified", 0),
            # listed items that were not postings: rows of ``quarantine`` with stage 'fetch'
            "quarantined": summary.quarantined,
            **({"quarantine_sample": MetadataValue.json(list(summary.quarantine_sample))}
               if summary.quarantine_sample else {}),
        }
    )


@asset(
    partitions_def=source_day_partitions,
    deps=[raw_postings],
    group_name=GROUP,
    kinds={"python", "pandera", "postgres"},
    check_specs=[AssetCheckSpec("reject_rate_below_threshold", asset="normalized_postings")],
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
    from jobpipe.normalize import normalize_batch, write_normalized
    from jobpipe.sources import extract, load_snapshot

    source_name, day = split_key(context.partition_key)
    threshold = settings.resolved()["reject_rate_threshold"]
    with postgres.connect() as conn:
        snapshot = load_snapshot(conn, source_name, day)
        if snapshot is None:
            raise Failure(description=f"no raw snapshot of source {source_name!r} for {day}")
        result = normalize_batch(snapshot.items, extract, fetch_id=snapshot.fetch_id)
        counts = write_normalized(conn, source_name, day, result, dagster_run_id=context.run_id)
    total = counts.passed + counts.rejected
    rate = counts.rejected / total if total else 0.0
    failed: dict[str, int] = {}
    for rejection in result.rejected:
        for check in rejection.failed_checks:
            key = check.split(":")[0][:80]
            failed[key] = failed.get(key, 0) + 1
    return MaterializeResult(
        metadata={"passed": counts.passed, "rejected": counts.rejected, "reject_rate": round(rate, 4),
                  "failed_checks": MetadataValue.json(failed)},
        check_results=[
            AssetCheckResult(
                check_name="reject_rate_below_threshold",
                passed=rate <= threshold,
                severity=AssetCheckSeverity.ERROR,
                metadata={"reject_rate": round(rate, 4), "threshold": threshold, "rejected": counts.rejected},
                description=f"{counts.rejected} of {total} postings rejected ({rate:.1%}; threshold {threshold:.0%})",
            )
        ],
    )


@asset(
    partitions_def=source_day_partitions,
    deps=[normalized_postings],
    group_name=GROUP,
    kinds={"python", "postgres"},
    check_specs=[AssetCheckSpec("close_guard", asset="curated_jobs"),
                 AssetCheckSpec("listing_confirmed", asset="curated_jobs")],
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
    from jobpipe.normalize import load_normalized
    from jobpipe.store import close_vanished, sync_job_terms, upsert_jobs

    source_name, day = split_key(context.partition_key)
    max_share = settings.resolved()["close_guard_share"]
    with postgres.connect() as conn:
        postings = load_normalized(conn, source_name, day)
        counts = upsert_jobs(conn, postings)
        # Keyword terms for exactly the postings whose search text changed (before closing,
        # so the vanished ones keep theirs for include_closed searches).
        terms = sync_job_terms(conn, source=source_name)
        closing = close_vanished(conn, source_name, day, max_share=max_share)
    if not closing.confirmed:
        context.log.warning(f"source {source_name!r}: {closing.reason}")
    return MaterializeResult(
        metadata={
            "inserted": counts.inserted,
            "updated": counts.updated,
            "unchanged": counts.unchanged,
            "reopened": getattr(counts, "reopened", 0),
            **terms.as_metadata(),
            "closed": closing.closed,
            "close_refused": closing.refused,
            "listing_confirmed": closing.confirmed,
            "close_reason": closing.reason or "ok",
        },
        check_results=[
            AssetCheckResult(
                check_name="close_guard",
                passed=not closing.refused,
                severity=AssetCheckSeverity.ERROR,
                metadata={"would_close": closing.would_close, "max_share": max_share},
                description=closing.reason or "ok",
            ),
            AssetCheckResult(
                check_name="listing_confirmed",
                passed=closing.confirmed,
                severity=AssetCheckSeverity.WARN,
                metadata={"would_close": closing.would_close, "considered": closing.considered},
                description=closing.reason if not closing.confirmed else "listing confirmed",
            ),
        ],
    )
