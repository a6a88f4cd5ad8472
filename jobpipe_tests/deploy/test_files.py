"""deploy/ validated without a container engine or a cluster (issue 16.3).

The Helm values against the official Dagster chart's own values schema (merged over the chart's
defaults, as Helm validates them), the compose file against the Compose Specification's schema,
each dagster.yaml variant by loading a Dagster instance from it on a real database, the Celery
worker config and the workspace file through Dagster's own loaders. The Dockerfile's install
step runs in test_install.py.

Where the schemas come from (none is copied into this repository):
* the Compose Specification's schema (compose-spec/compose-spec, schema/compose-spec.json,
  Apache-2.0) as the pinned ``check-jsonschema`` package ships it (its builtin vendored copy,
  with the licence beside it), a test dependency installed from PyPI;
* the Dagster chart's ``values.schema.json`` and ``values.yaml`` from the chart itself, version
  1.13.27 as pinned with dagster (``helm pull dagster/dagster --version 1.13.27 --untar``), in the
  directory named by ``JOBPIPE_DAGSTER_CHART`` or ``../shared/data/dagster-chart``; without
  one those tests skip, saying so. No package registry carries the chart.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from jobpipe.config import PROJECT_ROOT, get_settings
from jobpipe.db import dagster_storage_url

DEPLOY = PROJECT_ROOT / "deploy"
DAGSTER_CHART_VERSION = "1.13.27"   # the chart is versioned with the dagster package (pyproject.toml)


def _chart_dir() -> Path:
    """The unpacked Dagster chart (its values.schema.json and values.yaml), or a skip saying why."""
    named = os.environ.get("JOBPIPE_DAGSTER_CHART")
    candidates = [Path(named)] if named else [PROJECT_ROOT.parent / "shared" / "data" / "dagster-chart"]
    for path in candidates:
        if (path / "values.schema.json").is_file() and (path / "values.yaml").is_file():
            chart = _yaml(path / "Chart.yaml") if (path / "Chart.yaml").is_file() else {}
            version = str(chart.get("version", DAGSTER_CHART_VERSION))
            assert version == DAGSTER_CHART_VERSION, f"{path} holds chart {version}, not {DAGSTER_CHART_VERSION}"
            return path
    pytest.skip(f"no Dagster Helm chart {DAGSTER_CHART_VERSION} to validate against: set JOBPIPE_DAGSTER_CHART "
                f"to `helm pull dagster/dagster --version {DAGSTER_CHART_VERSION} --untar`'s directory")


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _merge(base: Any, override: Any) -> Any:
    """Helm's coalescing of a values file over the chart's defaults (maps merge, the rest replaces)."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            out[key] = _merge(base.get(key), value) if key in base else value
        return out
    return copy.deepcopy(override)


def _remote_refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) and node["$ref"].startswith("http") else set()
        return found.union(*(_remote_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_remote_refs(v) for v in node))
    return set()


def _helm_validator() -> tuple[jsonschema.protocols.Validator, set[str]]:
    """The chart's schema; its references to the Kubernetes API schemas online (affinity, probes,
    resources, env...) resolve offline to an empty schema, so those sub-objects are checked only
    as far as the chart's own schema describes them (their type) -- said so in docs/deploy.md."""
    schema = json.loads((_chart_dir() / "values.schema.json").read_text(encoding="utf-8"))
    remote = _remote_refs(schema)
    documents: dict[str, dict[str, Any]] = {}
    for ref in remote:
        uri, _, pointer = ref.partition("#")
        node = documents.setdefault(uri, {})
        for part in [p for p in pointer.split("/") if p]:
            node = node.setdefault(part, {})
    registry = Registry().with_resources(
        (uri, Resource.from_contents(doc, default_specification=DRAFT202012)) for uri, doc in documents.items())
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, registry=registry), remote


def _helm_values() -> dict[str, Any]:
    return _merge(_yaml(_chart_dir() / "values.yaml"), _yaml(DEPLOY / "helm" / "values.yaml"))


def test_helm_values_satisfy_the_dagster_charts_values_schema():
    validator, _ = _helm_validator()
    values = _helm_values()
    errors = sorted(validator.iter_errors(values), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def test_helm_values_run_jobpipe_as_user_code_with_the_service_on_its_own_login():
    ours = _yaml(DEPLOY / "helm" / "values.yaml")
    assert ours["runLauncher"]["type"] == "K8sRunLauncher"
    assert ours["postgresql"]["enabled"] is False and ours["postgresql"]["postgresqlDatabase"] == "jobpipe_dagster"
    grpc = ours["dagster-user-deployments"]["deployments"][0]["dagsterApiGrpcArgs"]
    assert grpc == ["-m", "jobpipe.orchestration.definitions", "-a", "defs"]
    kinds = {(m["kind"], m["metadata"]["name"]) for m in ours["extraManifests"]}
    assert ("Deployment", "jobpipe-service") in kinds and ("Service", "jobpipe-service") in kinds
    manifests = {(m["kind"], m["metadata"]["name"]): m for m in ours["extraManifests"]}
    service = manifests["Deployment", "jobpipe-service"]["spec"]["template"]["spec"]["containers"][0]
    assert service["envFrom"] == [{"secretRef": {"name": "jobpipe-service-env"}}]   # not the owner's secret
    assert not {e["name"] for e in service.get("env", [])} & {"JOBPIPE_DATABASE_URL", "JOBPIPE_SERVICE_ROLE"}
    grant = manifests["Job", "jobpipe-service-login"]["spec"]["template"]["spec"]["containers"][0]
    assert grant["command"][:2] == ["sh", "-ec"]
    steps = [step.split() for step in grant["command"][2].split("&&")]
    assert [step[:3] for step in steps] == [["jobpipe", "db", "service-role"]] * 2
    assert all("--no-create" in step for step in steps) and any("--candidate-writer" in step for step in steps)
    assert grant["envFrom"] == [{"secretRef": {"name": "jobpipe-env"}}]


@pytest.mark.parametrize("path, value", [
    (("runLauncher", "type"), "K8sLauncherTypo"),
    (("dagster-user-deployments", "deployments", 0, "port"), "3030"),
    (("dagsterDaemon", "runCoordinator", "config", "queuedRunCoordinator", "maxConcurrentRuns"), "many"),
])
def test_the_helm_schema_check_rejects_a_wrong_value(path, value):
    validator, _ = _helm_validator()
    values = _helm_values()
    target = values
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert list(validator.iter_errors(values)), f"{path} = {value!r} passed the schema"


def _compose_validator() -> jsonschema.protocols.Validator:
    """The Compose Specification's schema, as the pinned check-jsonschema package vendors it."""
    from importlib.resources import files

    vendored = files("check_jsonschema") / "builtin_schemas" / "vendor" / "compose-spec.json"
    schema = json.loads(vendored.read_text(encoding="utf-8"))
    assert schema.get("title") == "Compose Specification"
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_compose_file_satisfies_the_compose_specification():
    compose = _yaml(DEPLOY / "compose.yaml")
    errors = list(_compose_validator().iter_errors(compose))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])
    services = compose["services"]
    assert {"postgres", "code", "webserver", "daemon", "worker", "service", "embeddings", "redis"} <= set(services)
    assert "pgvector" in services["postgres"]["image"]
    for name, service in services.items():   # every dependency names a service of this file
        assert set(service.get("depends_on", {})) <= set(services), name
    # the service reads as its own login and is never given the owner's; everything else is the owner
    service_env = services["service"]["environment"]
    assert "jobpipe_service:" in service_env["JOBPIPE_SERVICE_DATABASE_URL"]
    assert not any("jobpipe_owner" in str(v) or "JOBPIPE_DB_PASSWORD" in str(v) for v in service_env.values())
    assert "JOBPIPE_SERVICE_ROLE" not in service_env and "JOBPIPE_DATABASE_URL" not in service_env
    assert "jobpipe_owner:" in services["code"]["environment"]["JOBPIPE_DATABASE_URL"]
    # its reads are granted first, by the pipeline's login, to the login init.sh created
    assert services["service"]["depends_on"]["setup"]["condition"] == "service_completed_successfully"
    steps = [step.split() for step in " ".join(services["setup"]["command"]).split("&&")]
    assert services["setup"]["entrypoint"] == ["sh", "-ec"]
    assert [step[:3] for step in steps] == [["jobpipe", "db", "service-role"]] * 2
    assert all("--no-create" in step for step in steps)
    # the candidate writer: its own login, granted as one, given to the service beside the reader's
    writer = next(step for step in steps if "--candidate-writer" in step)
    assert writer[writer.index("--role") + 1] == "jobpipe_candidates"
    assert "jobpipe_candidates:" in service_env["JOBPIPE_SERVICE_WRITER_DATABASE_URL"]
    init = (DEPLOY / "postgres" / "init.sh").read_text(encoding="utf-8")
    for login in ("jobpipe_service", "jobpipe_candidates"):
        assert re.search(rf"CREATE ROLE {login} LOGIN .*NOSUPERUSER NOCREATEDB NOCREATEROLE", init), login
    assert "GRANT" not in init and " IN ROLE " not in init   # a member of no role: nothing to SET ROLE to
    # every variable the file interpolates is documented in env.example or has a default
    example = (DEPLOY / "env.example").read_text(encoding="utf-8")
    for name, default in re.findall(r"\$\{(\w+)(:?[-?][^}]*)?\}", (DEPLOY / "compose.yaml").read_text()):
        assert name in example or default.startswith((":-", "-")), name


def test_the_compose_schema_check_rejects_a_misspelt_key():
    compose = _yaml(DEPLOY / "compose.yaml")
    compose["services"]["webserver"]["comand"] = compose["services"]["webserver"].pop("command")
    assert list(_compose_validator().iter_errors(compose))


@pytest.mark.parametrize("variant", ["dagster.yaml", "deploy/dagster.yaml"])
def test_each_dagster_yaml_variant_loads_a_working_instance(variant, database, tmp_path, monkeypatch):
    from dagster import DagsterInstance
    from dagster._core.launcher import DefaultRunLauncher
    from dagster._core.run_coordinator import QueuedRunCoordinator
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(PROJECT_ROOT / variant, home / "dagster.yaml")
    url = dagster_storage_url(get_settings().model_copy(update={"database_url": database, "dagster_database_url": None}))
    monkeypatch.setenv("JOBPIPE_DAGSTER_STORAGE_URL", url)
    instance = DagsterInstance.from_config(str(home))
    try:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
        assert isinstance(instance.run_coordinator, QueuedRunCoordinator)
        assert isinstance(instance.run_launcher, DefaultRunLauncher)
        assert not instance.telemetry_enabled
        instance.get_runs_count()                     # the storage answers (tables created)
        # one run per source at a time, keyed on the tag every ingest run carries (a UI backfill's too)
        limits = instance.run_coordinator.get_run_queue_config().tag_concurrency_limits
        assert {"key": "dagster/partition/source", "value": {"applyLimitPerUniqueValue": True}, "limit": 1} in limits
        assert instance.run_monitoring_enabled
        assert instance.run_retries_enabled and instance.run_retries_max_retries == 2   # crashed runs only
        assert not instance.run_retries_retry_on_asset_or_op_failure
        # the nightly tick's 2,000 runs are submitted from threads
        assert instance.get_settings("schedules")["use_threads"] and instance.get_settings("backfills")["use_threads"]
    finally:
        instance.dispose()


def test_the_celery_worker_config_resolves_the_broker_from_the_environment(monkeypatch):
    pytest.importorskip("dagster_celery", reason="dagster-celery is not installed (make install)")
    from dagster_celery.cli import get_validated_config

    monkeypatch.setenv("JOBPIPE_CELERY_BROKER_URL", "redis://broker.example:6379/0")
    config = get_validated_config(str(DEPLOY / "celery.yaml"))
    assert config["broker"] == config["backend"] == "redis://broker.example:6379/0"


def test_the_workspace_file_points_at_the_code_server(monkeypatch):
    from dagster._core.workspace.config_schema import ensure_workspace_config

    monkeypatch.setenv("JOBPIPE_CODE_SERVER_HOST", "code")
    monkeypatch.setenv("JOBPIPE_CODE_SERVER_PORT", "4000")
    config = ensure_workspace_config(_yaml(DEPLOY / "workspace.yaml"), str(DEPLOY / "workspace.yaml"))
    server = config["load_from"][0]["grpc_server"]
    assert server["location_name"] == "jobpipe" and server["host"] == "code" and server["port"] == 4000


def test_the_dockerfile_installs_with_the_tested_script_and_runs_as_non_root():
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM \S+ AS (\w+)", text, flags=re.M)
    assert len(stages) >= 2                                    # multi-stage
    assert re.search(r"^RUN sh deploy/install\.sh ", text, flags=re.M)   # the script test_install.py runs
    user = re.findall(r"^USER (\S+)", text, flags=re.M)
    assert user and not user[-1].startswith(("root", "0:", "0")), user
    assert "COPY --from=build /opt/jobpipe/venv" in text
