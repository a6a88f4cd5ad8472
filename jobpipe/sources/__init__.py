"""The source layer: fetch job postings politely from boards, career pages and files, and
keep every payload as a raw snapshot so normalization can be replayed without refetching.

    load_sources(path) -> [SourceConfig]
    run_source(conn, config, day)  = fetch_source(config) + record_fetch(conn, ...)
    load_snapshot(conn, source, day) -> Snapshot (payloads of that day's run)
    prune_snapshots(conn, keep_days=30) -> PrunedSnapshots (retention)
    extract(format, payload) -> PostingFields
"""

from jobpipe.sources.config import SourceConfig, SourcesFileError, load_sources
from jobpipe.sources.errors import FetchError, HttpError, RobotsDisallowed, SourceFetchError
from jobpipe.sources.extract import extract
from jobpipe.sources.fetch import fetch_source
from jobpipe.sources.http import PoliteClient
from jobpipe.sources.result import FetchResult
from jobpipe.sources.retention import PrunedSnapshots, prune_snapshots
from jobpipe.sources.snapshots import (
    FetchRun,
    FetchSummary,
    Snapshot,
    describe_days,
    fetch_run,
    first_fetch_day,
    load_fetch_state,
    load_snapshot,
    record_fetch,
    replayable_days,
    run_source,
)

__all__ = [
    "FetchError", "FetchResult", "FetchRun", "FetchSummary", "HttpError", "PoliteClient", "PrunedSnapshots",
    "RobotsDisallowed", "Snapshot", "SourceConfig", "SourceFetchError", "SourcesFileError", "describe_days",
    "extract", "fetch_run", "fetch_source", "first_fetch_day", "load_fetch_state", "load_snapshot", "load_sources",
    "prune_snapshots", "record_fetch", "replayable_days", "run_source",
]
