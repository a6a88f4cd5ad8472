"""jobpipe: the data pipeline behind job-matching agents.

Scrape postings, normalize them into one bilingual schema, upsert them idempotently into
PostgreSQL, keep their vectors fresh, and serve hybrid search to agents.

As a library, one call runs a night's pipeline in-process (no Dagster instance)::

    import jobpipe

    summary = jobpipe.sync(records, source="my-board")   # or a sources file, or SourceConfigs
    print(summary.totals)                                # {'fetched': ..., 'inserted': ..., ...}
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from jobpipe._lazy import lazy_exports
from jobpipe.models import NormalizedPosting, PostingFields, RawPosting, Salary

if TYPE_CHECKING:
    from jobpipe.pipeline.summary import RunError, RunSummary, SourceSummary
    from jobpipe.pipeline.sync import sync

try:  # the one declaration is pyproject.toml's
    __version__ = version("jobpipe")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"


#: Imported on first use: the pipeline pulls in pandas, pandera and psycopg (~1.3 s measured),
#: which ``import jobpipe`` (0.08 s) and the CLI's other commands should not pay.
_LAZY = {"sync": "jobpipe.pipeline.sync", "RunSummary": "jobpipe.pipeline.summary",
         "SourceSummary": "jobpipe.pipeline.summary", "RunError": "jobpipe.pipeline.summary"}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = ["NormalizedPosting", "PostingFields", "RawPosting", "RunError", "RunSummary", "Salary", "SourceSummary",
           "__version__", "sync"]
