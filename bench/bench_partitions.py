"""Partitions at scale: 2,000 sources x 365 days registered in a real Dagster instance on Postgres.

    python bench/bench_partitions.py                        # 2,000 sources x 365 days, 14 days of history
    python bench/bench_partitions.py --sources 200 --days 30 --history-days 7   # a quick smoke run
    python bench/bench_partitions.py --sources 2000 --days 30 --tick-only      # the nightly tick alone

What an operator's console does with jobpipe's own code location (``jobpipe.orchestration
.definitions``, loaded by ``dagster dev`` with a generated sources file of N sources and
``JOBPIPE_PARTITIONS_START`` = D days ago), timed from outside as the UI and the daemon see it:

* registering the sources as dynamic partitions;
* the asset's partitions page: the UI's own ``PartitionHealthQuery`` (GraphQL over HTTP) for
  ``raw_postings``, cold (first after start) and warm (median of 5), with H days of history
  (one materialization per source, day and ingest asset, written in batches);
* the schedule's evaluation in-process (what the code server does inside the daemon's gRPC call,
  which times out after 60 s), then a real tick: ``nightly_ingest`` on an every-minute cron, its
  duration as recorded by the daemon (RunRequests for every source, the runs created and queued);
* the automation sensor's tick (``jobpipe_automation``: it evaluates the whole asset graph);
* backfill launches from the UI's ``launchPartitionBackfill`` mutation: 3 days of one source,
  one day of every source, every day of one source; the mutation's time and the time until the
  backfill daemon has created all its runs.

Runs never execute (the run queue admits none), so no source is ever fetched. A throw-away
jobpipe database and its Dagster database are created on the configured server and dropped at
the end. Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import drop_database, fresh_database  # noqa: E402

from jobpipe.config import PROJECT_ROOT  # noqa: E402
from jobpipe.db.connection import DAGSTER_DATABASE_SUFFIX, database_name, sqlalchemy_url, with_database  # noqa: E402

INGEST_ASSETS = ("raw_postings", "normalized_postings", "curated_jobs")

PARTITION_HEALTH_QUERY = """
query PartitionHealthQuery($assetKey: AssetKeyInput!) {
  assetNodeOrError(assetKey: $assetKey) {
    ... on AssetNode {
      id
      partitionKeysByDimension { name type partitionKeys }
      assetPartitionStatuses {
        ... on TimePartitionStatuses { ranges { status startTime endTime startKey endKey } }
        ... on DefaultPartitionStatuses { materializedPartitions materializingPartitions failedPartitions }
        ... on MultiPartitionStatuses {
          primaryDimensionName
          ranges {
            primaryDimStartKey primaryDimEndKey primaryDimStartTime primaryDimEndTime
            secondaryDim {
              ... on TimePartitionStatuses { ranges { status startTime endTime startKey endKey } }
              ... on DefaultPartitionStatuses { materializedPartitions materializingPartitions failedPartitions }
            }
          }
        }
      }
    }
  }
}"""

TICKS_QUERY = """
query Ticks($location: String!, $name: String!, $isSensor: Boolean!) {
  scheduleOrError(scheduleSelector: {repositoryName: "__repository__", repositoryLocationName: $location,
                                     scheduleName: $name}) @skip(if: $isSensor) {
    ... on Schedule { scheduleState { ticks(limit: 5) { status timestamp endTimestamp runIds error { message } } } }
  }
  sensorOrError(sensorSelector: {repositoryName: "__repository__", repositoryLocationName: $location,
                                 sensorName: $name}) @include(if: $isSensor) {
    ... on Sensor { sensorState { ticks(limit: 5) { status timestamp endTimestamp runIds error { message } } } }
  }
}"""

LAUNCH_BACKFILL = """
mutation Launch($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
  }
}"""

def dagster_yaml(path: Path) -> str:
    """The deployment's instance file with a run queue that admits nothing: the bench creates runs,
    never executes them (the daemon's tick, its run creation and its thread settings are as shipped)."""
    import yaml

    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config.setdefault("run_coordinator", {}).setdefault("config", {})["max_concurrent_runs"] = 0
    config.pop("run_retries", None)
    return yaml.safe_dump(config, sort_keys=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def graphql(port: int, query: str, variables: dict | None = None, timeout: float = 600) -> tuple[dict, float]:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=body,
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=timeout) as response:
        data = json.loads(response.read())
    elapsed = time.perf_counter() - started
    if data.get("errors"):
        raise RuntimeError(f"GraphQL errors: {data['errors'][:2]}")
    return data["data"], elapsed


def write_sources(path: Path, n: int) -> list[str]:
    names = [f"board-{i:04d}" for i in range(n)]
    lines = ["sources:"]
    # 127.0.0.1:9 (discard): nothing listens; runs never execute anyway.
    lines += [f"  - {{name: {name}, kind: greenhouse, board: {name}, base_url: 'http://127.0.0.1:9'}}" for name in names]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return names


def write_history(instance, names: list[str], days: list[date], batch: int = 2000) -> int:
    """One materialization per (source, day, ingest asset), as a night's runs would leave them."""
    from dagster import AssetKey, AssetMaterialization, MultiPartitionKey
    from dagster._core.events import DagsterEvent, DagsterEventType, StepMaterializationData
    from dagster._core.events.log import EventLogEntry

    events: list = []
    written = 0
    for day in days:
        stamp = datetime(day.year, day.month, day.day, 2, 30, tzinfo=timezone.utc).timestamp()
        for name in names:
            key = MultiPartitionKey({"source": name, "date": day.isoformat()})
            for asset in INGEST_ASSETS:
                event = DagsterEvent(event_type_value=DagsterEventType.ASSET_MATERIALIZATION.value,
                                     event_specific_data=StepMaterializationData(
                                         AssetMaterialization(asset_key=AssetKey(asset), partition=key)),
                                     job_name="ingest_job")
                events.append(EventLogEntry(user_message="", level=20, job_name="ingest_job", run_id="",
                                            error_info=None, timestamp=stamp, step_key=None, dagster_event=event))
            if len(events) >= batch:
                instance.event_log_storage.store_event_batch(events)
                written += len(events)
                events = []
    if events:
        instance.event_log_storage.store_event_batch(events)
        written += len(events)
    return written


def wait_for(predicate, timeout: float, interval: float = 1.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return None


def runs_of_backfill(instance, backfill_id: str) -> int:
    from dagster import RunsFilter

    return instance.get_runs_count(RunsFilter(tags={"dagster/backfill": backfill_id}))


def latest_tick(port: int, name: str, *, sensor: bool, after: float, finished: bool = True) -> dict | None:
    data, _ = graphql(port, TICKS_QUERY, {"location": "jobpipe", "name": name, "isSensor": sensor})
    state = (data.get("sensorOrError") if sensor else data.get("scheduleOrError")) or {}
    ticks = (state.get("sensorState") or state.get("scheduleState") or {}).get("ticks") or []
    done = [t for t in ticks if t["timestamp"] >= after and (not finished or (
        t["status"] in ("SUCCESS", "FAILURE", "SKIPPED") and t["endTimestamp"]))]
    return done[0] if done else None


def evaluate_schedule(instance) -> None:
    """Time ``nightly_ingest``'s evaluation as the code server runs it for the daemon's tick."""
    from dagster import build_schedule_context

    from jobpipe.orchestration.definitions import defs

    schedule = defs.resolve_schedule_def("nightly_ingest")
    repository = defs.get_repository_def()
    resources = {"sources": defs.resources["sources"]}
    when = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    with build_schedule_context(instance=instance, scheduled_execution_time=when, repository_def=repository,
                                resources=resources) as context:
        started = time.perf_counter()
        data = schedule.evaluate_tick(context)
        took = time.perf_counter() - started
    print(f"schedule evaluation in-process (nightly_ingest, the code server's part of a tick): "
          f"{len(data.run_requests or []):,} run requests in {took:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=2000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--history-days", type=int, default=14, help="days with a materialization per source")
    parser.add_argument("--tick-timeout", type=float, default=900)
    parser.add_argument("--backfill-timeout", type=float, default=300,
                        help="seconds to wait for a backfill's runs (the rate so far is printed)")
    parser.add_argument("--keep", action="store_true", help="keep the databases (printed)")
    parser.add_argument("--dagster-yaml", default=str(PROJECT_ROOT / "dagster.yaml"),
                        help="the instance file to measure (its run queue is set to admit nothing)")
    parser.add_argument("--tick-only", action="store_true",
                        help="only the schedule: its in-process evaluation and one daemon tick (no history, no "
                             "partitions page, no backfills)")
    args = parser.parse_args()

    url, admin = fresh_database("partitions")
    dagster_url = with_database(url, database_name(url) + DAGSTER_DATABASE_SUFFIX)
    with __import__("psycopg").connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database_name(dagster_url)}"')
    work = Path(tempfile.mkdtemp(prefix="jobpipe_bench_partitions_"))
    home = work / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text(dagster_yaml(Path(args.dagster_yaml)), encoding="utf-8")
    today = datetime.now(timezone.utc).date()
    start = today - timedelta(days=args.days - 1)
    names = write_sources(work / "sources.yaml", args.sources)
    env = {**os.environ, "DAGSTER_HOME": str(home), "JOBPIPE_HOME": str(work), "JOBPIPE_DATABASE_URL": url,
           "JOBPIPE_DAGSTER_DATABASE_URL": dagster_url, "JOBPIPE_DAGSTER_STORAGE_URL": sqlalchemy_url(dagster_url),
           "JOBPIPE_SOURCES": str(work / "sources.yaml"), "JOBPIPE_PARTITIONS_START": start.isoformat(),
           "JOBPIPE_SCHEDULE_CRON": "* * * * *"}
    os.environ.update(env)
    partitions = args.sources * args.days
    print(f"{args.sources:,} sources x {args.days} days = {partitions:,} partitions per ingest asset "
          f"({len(INGEST_ASSETS)} assets); history: "
          + ("none (--tick-only)" if args.tick_only else f"{args.history_days} days"))

    from dagster import DagsterInstance

    instance = DagsterInstance.get()
    started = time.perf_counter()
    instance.add_dynamic_partitions("sources", names)
    print(f"register {args.sources:,} dynamic partitions: {time.perf_counter() - started:.2f} s")
    history = [today - timedelta(days=i) for i in range(1, args.history_days + 1) if today - timedelta(days=i) >= start]
    if not args.tick_only:
        started = time.perf_counter()
        written = write_history(instance, names, history)
        print(f"history: {written:,} materialization events written in {time.perf_counter() - started:.1f} s")
    evaluate_schedule(instance)

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "dagster", "dev", "-h", "127.0.0.1", "-p", str(port),
                             "-w", str(PROJECT_ROOT / "workspace.yaml")], cwd=PROJECT_ROOT, env=env,
                            stdout=open(work / "dagster.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        launched = time.monotonic()

        def ready() -> bool:
            try:
                data, _ = graphql(port, '{ workspaceOrError { ... on Workspace { locationEntries { '
                                        'locationOrLoadError { __typename } } } } }', timeout=10)
            except Exception:
                return False
            entries = data["workspaceOrError"]["locationEntries"]
            return bool(entries) and entries[0]["locationOrLoadError"]["__typename"] == "RepositoryLocation"

        if not wait_for(ready, 600, 1.0):
            raise SystemExit(f"dagster dev did not load the code location; see {work / 'dagster.log'}")
        print(f"dagster dev up, code location loaded: {time.monotonic() - launched:.1f} s")
        tick_floor = time.time()

        if not args.tick_only:
            variables = {"assetKey": {"path": ["raw_postings"]}}
            data, cold = graphql(port, PARTITION_HEALTH_QUERY, variables)
            warm = [graphql(port, PARTITION_HEALTH_QUERY, variables)[1] for _ in range(5)]
            node = data["assetNodeOrError"]
            dims = {d["name"]: len(d["partitionKeys"]) for d in node["partitionKeysByDimension"]}
            size = len(json.dumps(data))
            print(f"partitions page (PartitionHealthQuery, raw_postings; dims {dims}; {size / 1e6:.1f} MB answer): "
                  f"cold {cold:.2f} s, warm median {statistics.median(warm):.2f} s (min {min(warm):.2f}, "
                  f"max {max(warm):.2f})")

        tick = wait_for(lambda: latest_tick(port, "nightly_ingest", sensor=False, after=tick_floor),
                        args.tick_timeout, 5.0)
        if tick:
            from dagster import RunsFilter

            queued = instance.get_runs_count(RunsFilter(tags={"dagster/schedule_name": "nightly_ingest"}))
            print(f"schedule tick (nightly_ingest, {len(tick['runIds']):,} runs requested, {queued:,} runs in the "
                  f"queue): {tick['endTimestamp'] - tick['timestamp']:.1f} s, {tick['status']}"
                  + (f" ({tick['error']['message'][:200]})" if tick.get("error") else ""))
        else:
            from dagster import RunsFilter

            started = latest_tick(port, "nightly_ingest", sensor=False, after=tick_floor, finished=False)
            queued = instance.get_runs_count(RunsFilter(tags={"dagster/schedule_name": "nightly_ingest"}))
            print(f"schedule tick: none finished within {args.tick_timeout:.0f} s ("
                  + (f"one {started['status']} for {time.time() - started['timestamp']:.0f} s" if started
                     else "none started") + f"; {queued:,} runs created so far)")
        if args.tick_only:
            return
        sensor = wait_for(lambda: latest_tick(port, "jobpipe_automation", sensor=True, after=tick_floor), 300, 5.0)
        if sensor:
            print(f"automation sensor tick: {sensor['endTimestamp'] - sensor['timestamp']:.1f} s, {sensor['status']}")
        else:
            print("automation sensor tick: none finished within 300 s")

        assets = [{"path": [a]} for a in INGEST_ASSETS]
        past = [today - timedelta(days=d) for d in (3, 2, 1)]
        cases = [
            ("3 days of one source", [f"{d.isoformat()}|{names[0]}" for d in past]),
            (f"one day of every source ({args.sources:,})", [f"{past[0].isoformat()}|{n}" for n in names]),
            (f"every day of one source ({args.days})",
             [f"{(start + timedelta(days=i)).isoformat()}|{names[1]}" for i in range(args.days)]),
        ]
        for label, keys in cases:
            try:
                result, seconds = graphql(port, LAUNCH_BACKFILL, {"params": {"assetSelection": assets,
                                                                             "partitionNames": keys}})
            except Exception as exc:     # the webserver's own failure is a figure too
                print(f"backfill {label}: the mutation failed: {exc}")
                continue
            launch = result["launchPartitionBackfill"]
            if launch["__typename"] != "LaunchBackfillSuccess":
                print(f"backfill {label}: {launch}")
                continue
            backfill_id = launch["backfillId"]
            clock = time.monotonic()
            done = wait_for(lambda backfill_id=backfill_id, keys=keys: runs_of_backfill(instance, backfill_id) >= len(keys), args.backfill_timeout, 2.0)
            took = time.monotonic() - clock
            created = runs_of_backfill(instance, backfill_id)
            print(f"backfill {label}: mutation {seconds:.2f} s; daemon created {created:,}/{len(keys):,} runs in "
                  f"{took:.1f} s ({created / took:.2f} runs/s){'' if done else ' (stopped waiting)'}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        instance.dispose()
        if args.keep:
            print(f"kept: {url} and {dagster_url}; files in {work}")
        else:
            drop_database(dagster_url, admin)
            drop_database(url, admin)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
