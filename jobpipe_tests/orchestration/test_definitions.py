"""The code location loads, every asset is described, and the resources show their real settings."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from dagster import Definitions, build_schedule_context, build_sensor_context

from jobpipe.config import DEMO_RESUMES_DIR, DEMO_SOURCES_FILE
from jobpipe.orchestration.definitions import ASSETS, build_definitions, defs
from jobpipe.orchestration.partitions import partition_key
from jobpipe.orchestration.resources import build_resources

ROOT = Path(__file__).resolve().parents[2]
ASSET_NAMES = {"raw_postings", "normalized_postings", "curated_jobs", "job_embeddings", "vector_index",
               "serving_jobs", "candidate_profiles", "candidate_vectors", "candidate_matches", "snapshot_retention"}
#: Every environment variable a resource field reads (they must not leak in from the caller's shell).
SETTINGS_ENV = ("JOBPIPE_DATABASE_URL", "JOBPIPE_EMBEDDER", "JOBPIPE_EMBEDDING_MODEL", "JOBPIPE_OPENAI_BASE_URL",
                "OPENAI_BASE_URL", "JOBPIPE_OPENAI_API_KEY", "OPENAI_API_KEY", "JOBPIPE_SOURCES",
                "JOBPIPE_CLOSE_GUARD_SHARE", "JOBPIPE_REJECT_RATE_THRESHOLD", "JOBPIPE_HNSW_M",
                "JOBPIPE_HNSW_EF_CONSTRUCTION", "JOBPIPE_RETIRED_VECTOR_DAYS", "JOBPIPE_CANDIDATES",
                "JOBPIPE_MATCHES_TOP_N", "JOBPIPE_MATCHES_RESERVE", "JOBPIPE_SNAPSHOT_RETENTION_DAYS")


def test_the_code_location_loads():
    Definitions.validate_loadable(defs)
    assert {a.key.to_user_string() for a in ASSETS} == ASSET_NAMES
    assert {j.name for j in defs.jobs} == {"ingest_job", "index_job", "candidates_job"}  # type: ignore[union-attr]
    assert {s.name for s in defs.schedules} == {"nightly_ingest"}  # type: ignore[union-attr]
    assert {s.name for s in defs.sensors} == {"register_sources", "candidates_folder", "jobpipe_automation",
                                              "source_freshness"}  # type: ignore[union-attr]


def test_dagster_itself_loads_the_workspace(tmp_path: Path):
    # A Dagster home of its own: loading the code location must not need any instance's storage.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "JOBPIPE_DAGSTER_"))}
    proc = subprocess.run([sys.executable, "-m", "dagster", "definitions", "validate", "-w", "workspace.yaml"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**env, "DAGSTER_HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_every_asset_and_check_says_what_it_is():
    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.description and len(node.description) > 40, key
        assert node.group_name in {"ingest", "vectors", "serving", "candidates", "maintenance"}, key
        assert node.owners == ["team:jobpipe"], key
        assert node.kinds, key
    checks = [graph.get_check_spec(k) for k in graph.asset_check_keys]
    assert {c.name for c in checks} == {"reject_rate_below_threshold", "close_guard", "listing_confirmed",
                                        "hnsw_recall", "every_open_job_searchable", "sources_fresh"}
    for spec in checks:
        assert spec.description and len(spec.description) > 40, spec.name


def _ui_values(definitions: Definitions) -> dict[str, dict[str, object]]:
    """The configured value of every resource field, as the UI's Resources page shows it."""
    from dagster._core.remote_representation.external_data import ResourceSnap

    resources = definitions.get_repository_def().get_top_level_resources()
    return {name: dict(ResourceSnap.from_def(rd, name, {}, {}, {}, {}, {}, {}).configured_values)
            for name, rd in resources.items()}


def test_resources_show_their_real_defaults(monkeypatch: pytest.MonkeyPatch):
    for name in SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)
    values = _ui_values(build_definitions(build_resources()))
    assert values["settings"] == {
        "close_guard_share": "0.3", "reject_rate_threshold": "0.05", "hnsw_m": "16", "hnsw_ef_construction": "64",
        "retired_vector_days": "7.0", "candidates_path": f'"{DEMO_RESUMES_DIR}"',
        "matches_top_n": "50", "matches_reserve": "25", "snapshot_retention_days": "30"}
    assert values["sources"] == {"path": f'"{DEMO_SOURCES_FILE}"'}
    assert values["embedder"]["kind"] == '"local"'
    assert values["postgres"] == {"database_url": "null"}


def test_settings_in_the_environment_come_through_env_vars_and_secrets_stay_hidden(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("JOBPIPE_HNSW_M", "24")
    monkeypatch.setenv("JOBPIPE_EMBEDDER", "openai")
    monkeypatch.setenv("JOBPIPE_OPENAI_API_KEY", "sk-test-not-for-the-ui")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("JOBPIPE_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JOBPIPE_CLOSE_GUARD_SHARE", "0.5")
    values = _ui_values(build_definitions(build_resources()))
    assert "sk-test-not-for-the-ui" not in repr(values)
    assert getattr(values["embedder"]["api_key"], "name", None) == "JOBPIPE_OPENAI_API_KEY"
    assert getattr(values["embedder"]["kind"], "name", None) == "JOBPIPE_EMBEDDER"
    assert getattr(values["settings"]["hnsw_m"], "name", None) == "JOBPIPE_HNSW_M"
    assert values["settings"]["close_guard_share"] == "0.5"   # floats: read when the location loads


def test_the_schedule_and_the_sensor_read_the_sources_resource(tmp_path: Path):
    sources = tmp_path / "sources.yaml"
    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    sources.write_text("sources:\n  - {name: board-a, kind: file, path: a.jsonl}\n"
                       "  - {name: board-b, kind: file, path: a.jsonl, enabled: false}\n", encoding="utf-8")
    resources = build_resources(sources_file=sources)
    definitions = build_definitions(resources)
    from dagster import instance_for_test

    # only the resource they use: a context sets up every resource it is given, and the default
    # postgres resource is the operator's database, which no test may touch
    resources = {"sources": resources["sources"]}
    # A schedule's context reopens its instance by reference and enters it; each context is closed
    # here (``with``), else the reopened instance stays Dagster's current one after it is gone and
    # a later definitions load in this process fails ("undefined DagsterInstance weakref").
    with instance_for_test() as instance:
        sensor = definitions.resolve_sensor_def("register_sources")
        with build_sensor_context(instance=instance, resources=resources) as context:
            result = sensor(context)
        assert [r.partition_keys for r in result.dynamic_partitions_requests] == [["board-a"]]
        schedule = definitions.resolve_schedule_def("nightly_ingest")
        tick = datetime(2026, 3, 2, 2, 0, tzinfo=timezone.utc)
        with build_schedule_context(instance=instance, resources=resources,
                                    scheduled_execution_time=tick) as context:
            requests = list(schedule(context))
        assert [r.tags["jobpipe/source"] for r in requests] == ["board-a"]
        assert [r.partition_key for r in requests] == [partition_key("board-a", date(2026, 3, 2))]
        assert instance.get_dynamic_partitions("sources") == ["board-a"]


def test_the_nightly_ticks_requests_are_the_ones_dagster_would_resolve(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """The schedule hands back its run requests resolved, so Dagster skips its per-request check of
    the partition key (a query each inside the code server's 60 s gRPC call: at 2,000 sources the
    tick failed). They must be exactly what Dagster's own resolution gives, or runs would lose their
    partition tags (the UI's partition view, the per-source run limit)."""
    from dagster import RunRequest, instance_for_test

    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n" + "".join(f"  - {{name: board-{i}, kind: file, path: a.jsonl}}\n"
                                               for i in range(3)), encoding="utf-8")
    definitions = build_definitions(build_resources(sources_file=sources))
    schedule = definitions.resolve_schedule_def("nightly_ingest")
    job = definitions.resolve_job_def("ingest_job")
    tick = datetime(2026, 3, 2, 2, 0, tzinfo=timezone.utc)
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("sources", ["board-1"])          # one known, two new
        from dagster import JobDefinition

        checked: list[str] = []
        real_check = JobDefinition.validate_partition_key
        monkeypatch.setattr(JobDefinition, "validate_partition_key",
                            lambda self, key, **kw: checked.append(str(key)) or real_check(self, key, **kw))
        with build_schedule_context(instance=instance, scheduled_execution_time=tick,   # closed: see above
                                    repository_def=definitions.get_repository_def(),
                                    resources={"sources": definitions.resources["sources"]}) as context:
            data = schedule.evaluate_tick(context)
        monkeypatch.undo()
        assert checked == []       # Dagster's per-request check was skipped: the requests came resolved
        assert sorted(instance.get_dynamic_partitions("sources")) == ["board-0", "board-1", "board-2"]
        assert [r.run_key for r in data.run_requests] == [f"board-{i}|2026-03-02" for i in range(3)]
        for request in data.run_requests:
            assert request.has_resolved_partition()
            by_dagster = RunRequest(partition_key=request.partition_key).with_resolved_tags_and_config(
                target_definition=job, dynamic_partitions_requests=[], dynamic_partitions_store=instance)
            assert request.run_config == by_dagster.run_config
            assert {k: v for k, v in request.tags.items() if k not in ("jobpipe/source", "dagster/schedule_name")} \
                == dict(by_dagster.tags)
            assert request.tags["dagster/partition/source"] == request.tags["jobpipe/source"]


def _postgres_serving(pgdata: Path) -> list[int]:
    """Pids of postgres processes whose data directory is ``pgdata``."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline and cmdline[0].endswith(b"postgres") and str(pgdata).encode() in cmdline:
            pids.append(int(proc.name))
    return pids


def test_loading_the_definitions_starts_no_database(tmp_path: Path):
    """What the image build does (deploy/install.sh: ``dagster definitions validate``) with the
    embedded database the default and not running: the definitions load, and no server is started
    nor any data directory created. Resources connect when a run starts, not when code loads."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "JOBPIPE_"))}
    script = ("from jobpipe.orchestration.definitions import defs\n"
              "from jobpipe.orchestration.partitions import daily_partitions, today\n"
              "defs.resolve_asset_graph(); defs.resolve_job_def('ingest_job')\n"
              "assert daily_partitions.start.date() == today(), daily_partitions.start\n")
    try:
        proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env={**env, "JOBPIPE_HOME": str(home), "DAGSTER_HOME": str(tmp_path)})
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert not (home / "pgdata").exists() and list(home.iterdir()) == []
        assert _postgres_serving(home / "pgdata") == []
    finally:
        if (home / "pgdata").exists():   # a regression: stop what it started
            subprocess.run([sys.executable, "-m", "jobpipe.cli", "db", "stop"], env={**env, "JOBPIPE_HOME": str(home)},
                           capture_output=True, timeout=60)
