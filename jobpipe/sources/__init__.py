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
from jobpipe.sources.snapshots import (FetchRun, FetchSummary, Snapshot, fetch_run, load_fetch_state, load_snapshot,
                                      record_fetch, run_source)

__all__ = [
    "FetchError", "FetchResult", "FetchRun", "FetchSummary", "PrunedSnapshots", "fetch_run", "prune_snapshots", "HttpError", "PoliteClient", "RobotsDisallowed", "Snapshot",
    "SourceConfig", "SourceFetchError", "SourcesFileError", "extract", "fetch_source", "load_fetch_state",
    "load_snapshot", "load_sources", "record_fetch", "run_source",
]
