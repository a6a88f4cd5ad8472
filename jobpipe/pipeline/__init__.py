"""One night's pipeline as plain stage functions: the one core behind every way of running it.

    per source and day    ingest_day (fetch_day | replay_day | record_day) -> normalize_day -> curate_day
    over the whole store  embed_jobs -> maintain_indexes -> publish_serving; prune_history
    candidates            profile_candidates -> embed_candidates -> match_candidates  (.candidates)

Each stage takes an open connection and plain arguments and returns a typed result
(:class:`~jobpipe.pipeline.report.Report`); none knows of Dagster. The Dagster assets
(``jobpipe.orchestration``), ``jobpipe run`` and the library call :func:`jobpipe.sync`
(``jobpipe.pipeline.sync``) all run these, and report in one
:class:`~jobpipe.pipeline.summary.RunSummary`.
"""

from jobpipe.pipeline.errors import NoSnapshotError, SourceFailedError, StageBusyError, StageError
from jobpipe.pipeline.ingest import (
    CurateOutcome,
    FetchOutcome,
    NormalizeOutcome,
    Record,
    curate_day,
    fetch_day,
    ingest_day,
    normalize_day,
    partition_today,
    record_day,
    replay_day,
    utc_today,
)
from jobpipe.pipeline.maintenance import RetentionOutcome, prune_history
from jobpipe.pipeline.report import Report
from jobpipe.pipeline.summary import RunError, RunSummary, SourceSummary, format_summary
from jobpipe.pipeline.vectors import (
    RECALL_TARGET,
    EmbedOutcome,
    IndexOutcome,
    ServingOutcome,
    embed_jobs,
    maintain_indexes,
    publish_serving,
)

__all__ = [
    "RECALL_TARGET", "CurateOutcome", "RetentionOutcome", "prune_history", "EmbedOutcome", "FetchOutcome", "IndexOutcome", "NoSnapshotError",
    "NormalizeOutcome", "Record", "Report", "RunError", "RunSummary", "ServingOutcome", "SourceFailedError",
    "SourceSummary", "StageBusyError", "StageError", "curate_day", "embed_jobs", "fetch_day", "format_summary", "ingest_day",
    "maintain_indexes", "normalize_day", "publish_serving", "record_day", "replay_day",
    "partition_today", "utc_today",
]
