"""Materialize the whole graph in-process: what ``jobpipe run`` and ``make run`` do.

The code location's own jobs run with its own resources (:func:`build_definitions`): one
``ingest_job`` partition run per source (a failing source is reported and the others go on),
then ``index_job`` once. The runs land in the deployment's Dagster instance, so the UI shows
them like the schedule's. What each stage did is read back as the stages' typed results
(``jobpipe.pipeline``), and summed up in the same :class:`RunSummary` ``jobpipe.sync`` returns.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from dagster import DagsterInstance

from jobpipe.config import Settings, get_settings
from jobpipe.demo.server import demo_boards
from jobpipe.filelock import exclusive
from jobpipe.orchestration.definitions import build_definitions, index_job, ingest_job
from jobpipe.orchestration.instance import get_instance
from jobpipe.orchestration.outcomes import failure_text, read_outcome
from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key
from jobpipe.orchestration.resources import build_resources
from jobpipe.orchestration.runs import mark_dead_runs_failed, process_tags
from jobpipe.pipeline.candidates import CandidateVectorsOutcome, MatchOutcome, ProfileOutcome
from jobpipe.pipeline.ingest import CurateOutcome, FetchOutcome, NormalizeOutcome, utc_today
from jobpipe.pipeline.maintenance import RetentionOutcome
from jobpipe.pipeline.summary import (
    COUNT_KEYS,
    CandidatesSummary,
    RunSummary,
    SourceSummary,
    format_summary,
    source_line,
)
from jobpipe.pipeline.vectors import EmbedOutcome, IndexOutcome, ServingOutcome
from jobpipe.sources import load_sources

__all__ = ["COUNT_KEYS", "RunSummary", "SourceSummary", "format_summary", "run_pipeline"]

INGEST_ASSETS = ["raw_postings", "normalized_postings", "curated_jobs"]
DOWNSTREAM_ASSETS = ["job_embeddings", "vector_index", "serving_jobs", "candidate_profiles", "candidate_vectors",
                     "candidate_matches", "snapshot_retention"]
_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def _no_retry_warnings(record: logging.LogRecord) -> bool:
    """Drop dagster-postgres's "Retrying failed database connection" warnings (one per retry,
    each with the driver's whole message): if the retries fail, the error says it once."""
    return not str(record.msg).startswith("Retrying failed database connection")


class _StderrWithoutStorageNoise:
    """``sys.stderr`` minus Dagster's "Exception while writing logger call to event log" lines about
    a lost database (written straight to stderr, one per log call, with SQL and parameters)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if text.startswith("Exception while writing logger call to event log") and (
                "OperationalError" in text or "too many retries for DB connection" in text):
            return len(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def _storage_noise_hidden() -> Iterator[None]:
    """While a run goes, a database that stops answering is reported once (by whoever catches the
    error: ``jobpipe run`` prints one line), not once per retry and log call."""
    root = logging.getLogger()
    root.addFilter(_no_retry_warnings)
    saved, sys.stderr = sys.stderr, _StderrWithoutStorageNoise(sys.stderr)
    try:
        yield
    finally:
        sys.stderr = saved
        root.removeFilter(_no_retry_warnings)


def run_pipeline(
    sources_file: Path | None = None,
    *,
    day: date | None = None,
    instance: DagsterInstance | None = None,
    echo: Callable[[str], None] | None = None,
) -> RunSummary:
    """Run every stage once for ``day`` (default: today) and return what happened.

    ``sources_file`` defaults to ``JOBPIPE_SOURCES`` or the bundled demo; with the demo, a local
    HTTP server serves its boards for the duration of the run. Raises
    :class:`jobpipe.filelock.HomeBusy` at once when another run holds this home.
    """
    settings = get_settings()
    # One run per home at a time (HomeBusy names the other); the stages' own locks also keep
    # runs from other homes, the UI or the daemon off the same sources.
    with exclusive(settings.home / "run.lock", what="jobpipe run", wait=0), _storage_noise_hidden():
        return _run_pipeline(sources_file, settings=settings, day=day, instance=instance, echo=echo)


def _run_pipeline(sources_file: Path | None, *, settings: Settings, day: date | None,
                  instance: DagsterInstance | None, echo: Callable[[str], None] | None) -> RunSummary:
    started = time.monotonic()
    say = echo or (lambda _msg: None)
    path = Path(sources_file) if sources_file else settings.sources_file
    day = day or utc_today()
    logging.getLogger("dagster").setLevel(logging.WARNING)
    with demo_boards(path, say):
        configs = [s for s in load_sources(path) if s.enabled]  # a broken file fails here, before any fetch
        instance = instance or get_instance()
        for run_id in mark_dead_runs_failed(instance):
            say(f"run {run_id} was left STARTED by a process that died: marked failed")
        tags = process_tags()   # so the next run can tell these runs' process died, if it does
        instance.add_dynamic_partitions(SOURCES_PARTITION, [s.name for s in configs])
        defs = build_definitions(build_resources(sources_file=path))
        summary = RunSummary(day=day)
        for i, config in enumerate(configs, 1):
            result = defs.resolve_job_def(ingest_job.name).execute_in_process(
                partition_key=partition_key(config.name, day), instance=instance, raise_on_error=False,
                run_config=_QUIET, tags={**tags, "jobpipe/source": config.name},
            )
            source = SourceSummary(
                config.name,
                fetch=read_outcome(result, "raw_postings", FetchOutcome),
                normalize=read_outcome(result, "normalized_postings", NormalizeOutcome),
                curate=read_outcome(result, "curated_jobs", CurateOutcome),
                error=None if result.success else failure_text(result, INGEST_ASSETS),
            )
            summary.sources[config.name] = source
            say(source_line(f"{i}/{len(configs)}", source))

        say("embedding changed postings, maintaining the index, matching candidates ...")
        result = defs.resolve_job_def(index_job.name).execute_in_process(instance=instance, raise_on_error=False,
                                                                     run_config=_QUIET, tags=tags)
        summary.embedding = read_outcome(result, "job_embeddings", EmbedOutcome)
        summary.index = read_outcome(result, "vector_index", IndexOutcome)
        summary.serving = read_outcome(result, "serving_jobs", ServingOutcome)
        summary.retention = read_outcome(result, "snapshot_retention", RetentionOutcome)
        summary.candidates = CandidatesSummary(
            profiles=read_outcome(result, "candidate_profiles", ProfileOutcome),
            vectors=read_outcome(result, "candidate_vectors", CandidateVectorsOutcome),
            matches=read_outcome(result, "candidate_matches", MatchOutcome),
        )
        summary.downstream_failure = None if result.success else failure_text(result, DOWNSTREAM_ASSETS)
        for name, n in (summary.embedding.by_source if summary.embedding else {}).items():
            if name in summary.sources:
                summary.sources[name].embedded = n
    summary.seconds = time.monotonic() - started
    return summary
