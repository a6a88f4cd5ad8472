"""Partitions: one per source, crossed with one per day.

* The ``source`` dimension (dynamic, registered from the sources file) isolates sources: each
  runs as its own partition, so a failing board fails only its own partition, shows its HTTP
  error in the UI, and the nightly run still completes the others.
* The ``date`` dimension (daily) makes history addressable: a backfill of past days re-runs
  normalization and upsert from the raw snapshots stored for that day, with no refetch.
"""

from __future__ import annotations

from datetime import date

from dagster import DailyPartitionsDefinition, DynamicPartitionsDefinition, MultiPartitionKey, MultiPartitionsDefinition

from jobpipe.config import get_settings
from jobpipe.pipeline.ingest import partition_today as today

SOURCES_PARTITION = "sources"

source_partitions = DynamicPartitionsDefinition(name=SOURCES_PARTITION)
#: Days are those of the schedule's time zone (JOBPIPE_SCHEDULE_TIMEZONE): the nightly run at
#: 02:00 in Shanghai is 18:00 UTC the day before, and must still find its own day's partition.
PARTITION_TIMEZONE = get_settings().schedule_timezone
# end_offset=1: today's partition exists today (a nightly fetch is *of* its own day).
daily_partitions = DailyPartitionsDefinition(start_date="2026-01-01", end_offset=1, timezone=PARTITION_TIMEZONE)
source_day_partitions = MultiPartitionsDefinition({"date": daily_partitions, "source": source_partitions})


def partition_key(source: str, day: date) -> MultiPartitionKey:
    return MultiPartitionKey({"source": source, "date": day.isoformat()})


def split_key(key: MultiPartitionKey | str) -> tuple[str, date]:
    if not isinstance(key, MultiPartitionKey):
        raise ValueError(f"expected a source|date partition key, got {key!r}")
    dims = key.keys_by_dimension
    return dims["source"], date.fromisoformat(dims["date"])
