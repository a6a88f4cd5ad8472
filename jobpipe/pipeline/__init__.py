"""One night's pipeline as plain stage functions: the one core behind every way of running it.

    per source and day    ingest_day (fetch_day | replay_day) -> normalize_day -> curate_day
    over the whole store  embed_jobs -> maintain_indexes -> publish_serving
    candidates            profile_candidates -> embed_candidates -> match_candidates

Each stage takes an open connection and plain arguments and returns a typed result
(:class:`~jobpipe.pipeline.report.Report`); none knows of Dagster. The Dagster assets
(``jobpipe.orchestration``), ``jobpipe run`` and the library call ``jobpipe.sync`` all run these.
"""

from jobpipe.pipeline.candidates import (
    CandidateVectorsOutcome,
    MatchOutcome,
    ProfileOutcome,
    embed_candidates,
    match_candidates,
    profile_candidates,
)
from jobpipe.pipeline.errors import NoSnapshotError, SourceFailedError, StageError
from jobpipe.pipeline.ingest import (
    CurateOutcome,
    FetchOutcome,
    NormalizeOutcome,
    curate_day,
    fetch_day,
    ingest_day,
    normalize_day,
    replay_day,
    utc_today,
)
from jobpipe.pipeline.report import Report
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
    "RECALL_TARGET", "CandidateVectorsOutcome", "CurateOutcome", "EmbedOutcome", "FetchOutcome", "IndexOutcome",
    "MatchOutcome", "NoSnapshotError", "NormalizeOutcome", "ProfileOutcome", "Report", "ServingOutcome",
    "SourceFailedError", "StageError", "curate_day", "embed_candidates", "embed_jobs", "fetch_day", "ingest_day",
    "maintain_indexes", "match_candidates", "normalize_day", "profile_candidates", "publish_serving", "replay_day",
    "utc_today",
]
