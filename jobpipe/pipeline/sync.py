"""``jobpipe.sync``: one night's pipeline as a library call, in-process, without a Dagster instance.

The same stage functions the Dagster assets and ``jobpipe run`` call, in the same order:
per source ingest (fetch, replay or hand over records) -> normalize -> curate (upsert, keyword
terms, close); then embed -> maintain the HNSW index -> publish the serving snapshot -> prune
snapshot history past ``JOBPIPE_SNAPSHOT_RETENTION_DAYS``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from datetime import date, timedelta
from functools import partial
from pathlib import Path

import psycopg
from psycopg import pq

from jobpipe.config import Settings, get_settings
from jobpipe.db import connect, ready_url
from jobpipe.demo.server import demo_boards
from jobpipe.embedding import Embedder, get_embedder
from jobpipe.models import RawPosting
from jobpipe.pipeline.errors import StageError
from jobpipe.pipeline.ingest import (
    FetchOutcome,
    Record,
    curate_day,
    ingest_day,
    normalize_day,
    record_day,
    utc_today,
)
from jobpipe.pipeline.maintenance import prune_history
from jobpipe.pipeline.summary import RunError, RunSummary, SourceSummary, source_line
from jobpipe.pipeline.vectors import embed_jobs, maintain_indexes, publish_serving
from jobpipe.sources import SourceConfig, load_sources

#: What ``sync`` takes: a sources file, sources, or records (postings you fetched yourself).
Input = str | os.PathLike[str] | SourceConfig | Iterable[SourceConfig] | Iterable[Record]


def sync(
    records_or_sources: Input,
    *,
    source: str | None = None,
    day: date | None = None,
    database_url: str | None = None,
    embedder: Embedder | None = None,
    complete: bool = True,
    close_guard_share: float | None = None,
    reject_rate_threshold: float | None = None,
    raise_on_error: bool = True,
    echo: Callable[[str], None] | None = None,
) -> RunSummary:
    """Run one night's pipeline for ``day`` and return what it did.

    ``records_or_sources`` is one of:

    * a sources file (``str`` or path) or :class:`~jobpipe.sources.SourceConfig`\\ s: each enabled
      source is fetched (today) or replayed from its stored snapshot (a past ``day``);
    * records: :class:`~jobpipe.models.RawPosting`\\ s, or mappings of posting fields
      (``external_id`` or ``id``, ``title``, ``company``, ``location``, ``salary``,
      ``description``, ``url``, ``posted_at``, ...; other keys are kept under ``extra``) for the
      source named ``source``. With ``complete`` (the default) they are that source's whole
      listing: its open postings missing from them are closed, behind the mass-close guard.

    ``day`` defaults to today (UTC); ``database_url`` to ``JOBPIPE_DATABASE_URL`` or the embedded
    server (its schema is migrated first); ``embedder`` to the configured one (``JOBPIPE_EMBEDDER``):
    any object with ``model``, ``dims`` and ``embed_documents(texts)`` returning a list of
    vectors or an array. The thresholds default to their ``JOBPIPE_*`` settings.

    A source that fails (HTTP error, no snapshot of a past day) does not stop the others; when
    any did, :class:`~jobpipe.pipeline.summary.RunError` is raised at the end (with the summary
    as ``.summary``), unless ``raise_on_error=False``. Everything written is committed stage by
    stage, so running ``sync`` again after a crash picks up where it stopped.
    """
    started = time.monotonic()
    settings = get_settings()
    day = day or utc_today()
    say = echo or (lambda _msg: None)
    max_share = settings.close_guard_share if close_guard_share is None else close_guard_share
    threshold = settings.reject_rate_threshold if reject_rate_threshold is None else reject_rate_threshold
    with ExitStack() as stack:
        own_shares: dict[str, float] = {}   # sources' own close_guard_share (the sources file)
        ingest = _ingest_plan(records_or_sources, source=source, complete=complete, stack=stack, say=say,
                              shares=own_shares)
        url = ready_url(database_url)
        model = embedder if embedder is not None else get_embedder(settings)
        summary = RunSummary(day=day)
        with connect(url) as conn:
            for i, (name, fetch) in enumerate(ingest, 1):
                share = own_shares.get(name, max_share) if close_guard_share is None else close_guard_share
                summary.sources[name] = result = _source_day(conn, name, day, fetch, threshold, share)
                say(source_line(f"{i}/{len(ingest)}", result))
            _whole_store(conn, summary, model, settings, say)
    summary.seconds = time.monotonic() - started
    if raise_on_error and not summary.ok:
        raise RunError(summary.problems, summary)
    return summary


#: One source's ingest stage for a day (fetch, replay or store the records handed over).
Fetch = Callable[[psycopg.Connection, date], FetchOutcome]


def _ingest_plan(given: Input, *, source: str | None, complete: bool, stack: ExitStack,
                 say: Callable[[str], None], shares: dict[str, float]) -> list[tuple[str, Fetch]]:
    """(source name, its ingest stage) for each source of the input, in order; ``shares`` gets the
    sources' own ``close_guard_share``."""
    if isinstance(given, (str, os.PathLike)):
        stack.enter_context(demo_boards(given, say))   # the bundled demo's boards, served locally
        configs = [s for s in load_sources(Path(given)) if s.enabled]   # a broken file raises here
        return _sources_plan(configs, source, shares)
    if isinstance(given, SourceConfig):
        return _sources_plan([given], source, shares)
    if isinstance(given, (bytes, Mapping)):
        raise TypeError("sync() takes a sources file, sources, or an iterable of records (not one record)")
    items: list[SourceConfig | Record] = list(given)
    configs = [item for item in items if isinstance(item, SourceConfig)]
    if items and len(configs) == len(items):
        return _sources_plan(configs, source, shares)
    if configs:
        raise TypeError("sync() takes either sources or records, not both in one call")
    return _records_plan([item for item in items if not isinstance(item, SourceConfig)], source, complete)


def _sources_plan(configs: list[SourceConfig], source: str | None,
                  shares: dict[str, float]) -> list[tuple[str, Fetch]]:
    if source is not None:
        configs = [c for c in configs if c.name == source]
        if not configs:
            raise ValueError(f"no enabled source named {source!r}")
    shares.update({c.name: c.close_guard_share for c in configs if c.close_guard_share is not None})
    by_name = {c.name: c for c in configs}
    return [(c.name, partial(_ingest, name=c.name, config=by_name.__getitem__)) for c in configs]


def _ingest(conn: psycopg.Connection, day: date, *, name: str, config: Callable[[str], SourceConfig]) -> FetchOutcome:
    return ingest_day(conn, name, day, config=config)


def _records_plan(records: list[Record], source: str | None, complete: bool) -> list[tuple[str, Fetch]]:
    """Records grouped by source: mappings belong to ``source``, postings carry their own."""
    groups: dict[str, list[Record]] = {}
    for record in records:
        name = record.source if isinstance(record, RawPosting) else source
        if name is None:
            raise ValueError("records that are mappings need source= (the name of the source they are the "
                             "listing of)")
        groups.setdefault(name, []).append(record)
    if not groups:
        if source is None:
            raise ValueError("no records and no source=: nothing to sync")
        groups[source] = []   # an empty listing of a source: everything it had is gone
    return [(name, partial(_record, name=name, rows=rows, complete=complete)) for name, rows in groups.items()]


def _record(conn: psycopg.Connection, day: date, *, name: str, rows: list[Record], complete: bool) -> FetchOutcome:
    return record_day(conn, name, day, rows, complete=complete)


def _source_day(conn: psycopg.Connection, name: str, day: date, fetch: Fetch, threshold: float,
                max_share: float) -> SourceSummary:
    result = SourceSummary(name)
    try:
        result.fetch = fetch(conn, day)
        result.normalize = normalize_day(conn, name, day, threshold=threshold)
        result.curate = curate_day(conn, name, day, max_share=max_share)
    except StageError as exc:
        result.error = str(exc)
        if conn.info.transaction_status == pq.TransactionStatus.INERROR:
            conn.rollback()
    return result


def _whole_store(conn: psycopg.Connection, summary: RunSummary, embedder: Embedder, settings: Settings,
                 say: Callable[[str], None]) -> None:
    say(f"embedding changed postings ({embedder.model}), maintaining the index ...")
    summary.embedding = embed_jobs(conn, embedder)
    for name, n in summary.embedding.by_source.items():
        if name in summary.sources:
            summary.sources[name].embedded = n
    summary.index = maintain_indexes(conn, m=settings.hnsw_m, ef_construction=settings.hnsw_ef_construction,
                                     retired_after=timedelta(days=settings.retired_vector_days))
    summary.serving = publish_serving(conn)
    summary.retention = prune_history(conn, keep_days=settings.snapshot_retention_days, today=summary.day)
