"""Partitions: one per source, crossed with one per day.

* The ``source`` dimension (dynamic, registered from the sources file) isolates sources: each
  runs as its own partition, so a failing board fails only its own partition, shows its HTTP
  error in the UI, and the nightly run still completes the others.
* The ``date`` dimension (daily) makes history addressable: a backfill of past days re-runs
  normalization and upsert from the raw snapshots stored for that day, with no refetch. It
  starts at :func:`partitions_start`: the deployment's first fetch (or a configured day), so a
  new install shows the days it has, not months of "missing" partitions that could only fail.
  Source x day at 2,000 sources x 365 days is measured in ``bench/bench_partitions.py``
  (docs/operations.md has the figures behind this design).
"""

from __future__ import annotations

import logging
from datetime import date, timedelta

import psycopg
from dagster import DailyPartitionsDefinition, DynamicPartitionsDefinition, MultiPartitionKey, MultiPartitionsDefinition

from jobpipe.config import get_settings
from jobpipe.db.connection import running_database_url
from jobpipe.pipeline.ingest import partition_today as today  # noqa: F401  (re-exported: the partition day of "now")
from jobpipe.sources.snapshots import first_fetch_day

SOURCES_PARTITION = "sources"
log = logging.getLogger(__name__)


def partitions_start() -> date:
    """The first daily partition: the days a backfill can replay, not a fixed calendar.

    ``JOBPIPE_PARTITIONS_START`` when set; otherwise the deployment's first fetch, but no more
    than the snapshot retention window back (``JOBPIPE_SNAPSHOT_RETENTION_DAYS``, 30): a day
    whose fetch runs were pruned cannot be replayed, and every day shown costs the UI and the
    daemon work for each source (bench/bench_partitions.py). Before any fetch: today.

    Read when the code location loads (a long-lived code server keeps it until reloaded), and
    only from a database that is there: loading the definitions never starts the embedded server
    (``dagster definitions validate`` in an image build would leave one running). The webserver
    and the daemon keep their instance on that server, so it runs when they load the location;
    with no server running, or a database that cannot be read (with a warning), it is today, so
    the definitions still load.
    """
    settings = get_settings()
    if settings.partitions_start is not None:
        return settings.partitions_start
    url = running_database_url(settings)
    if url is None:
        return today()
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            first = first_fetch_day(conn)
    except Exception as exc:  # an unmigrated (or not yet created) database: nothing fetched
        if "fetch_runs" not in str(exc) and "does not exist" not in str(exc):
            log.warning("daily partitions start today: the first fetch could not be read (%s)",
                        " ".join(str(exc).split()))
        first = None
    now = today()
    if first is None or first > now:
        return now
    return max(first, now - timedelta(days=max(settings.replay_days, 1) - 1))


source_partitions = DynamicPartitionsDefinition(name=SOURCES_PARTITION)
#: Days are those of the schedule's time zone (JOBPIPE_SCHEDULE_TIMEZONE): the nightly run at
#: 02:00 in Shanghai is 18:00 UTC the day before, and must still find its own day's partition.
PARTITION_TIMEZONE = get_settings().schedule_timezone
# end_offset=1: today's partition exists today (a nightly fetch is *of* its own day).
daily_partitions = DailyPartitionsDefinition(start_date=partitions_start().isoformat(), end_offset=1,
                                             timezone=PARTITION_TIMEZONE)
source_day_partitions = MultiPartitionsDefinition({"date": daily_partitions, "source": source_partitions})


def partition_key(source: str, day: date) -> MultiPartitionKey:
    return MultiPartitionKey({"source": source, "date": day.isoformat()})


def split_key(key: MultiPartitionKey | str) -> tuple[str, date]:
    if not isinstance(key, MultiPartitionKey):
        raise ValueError(f"expected a source|date partition key, got {key!r}")
    dims = key.keys_by_dimension
    return dims["source"], date.fromisoformat(dims["date"])
