"""Every environment variable is declared once (jobpipe.config.Settings) and documented."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jobpipe.config import OTHER_VARIABLES, PROJECT_ROOT, Settings, SettingsError, env_name, get_settings, reference

NAME = re.compile(r"\bJOBPIPE_[A-Z0-9_]*[A-Z0-9]\b")
#: Variables that are no longer read; jobpipe says so when they are set.
RETIRED = {"JOBPIPE_SERVICE_ROLE"}


def _declared() -> set[str]:
    names = {env_name(f) for f in Settings.model_fields}
    for other in OTHER_VARIABLES:
        head = other.split()[0].removesuffix("<NAME>")
        names.add(head)
        if "/ _" in other:    # "JOBPIPE_CODE_SERVER_HOST / _PORT"
            names.add(head.rsplit("_", 1)[0] + other.split("/ ")[1])
    return names


def _mentioned(paths: list[Path]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in paths:
        for name in NAME.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(str(path.relative_to(PROJECT_ROOT)))
    return found


def test_every_variable_the_code_and_docs_name_is_declared():
    files = [*(PROJECT_ROOT / "jobpipe").rglob("*.py"), PROJECT_ROOT / "README.md",
             *(PROJECT_ROOT / "docs").glob("*.md"), *(PROJECT_ROOT / "deploy").rglob("*.yaml")]
    declared = _declared() | RETIRED
    unknown = {name: where for name, where in _mentioned(files).items()
               if name not in declared and not any(name.startswith(d) for d in declared if d.endswith("_"))}
    assert not unknown, f"undeclared variables (add them to jobpipe.config.Settings): {unknown}"


def test_only_the_settings_read_jobpipe_variables():
    reading = re.compile(r"os\.environ\.get\(\s*[\"']JOBPIPE_|getenv\(\s*[\"']JOBPIPE_"
                         r"|os\.environ\[\s*[\"']JOBPIPE_\w+[\"']\s*\](?!\s*=)")
    allowed = {"jobpipe/config.py", "jobpipe/service/settings.py"}   # the latter: the retired variable's warning
    readers = {str(p.relative_to(PROJECT_ROOT)) for p in (PROJECT_ROOT / "jobpipe").rglob("*.py")
               if reading.search(p.read_text(encoding="utf-8"))}
    assert readers <= allowed, f"read the variable through jobpipe.config.get_settings(): {readers - allowed}"


def test_reference_page_is_current():
    page = PROJECT_ROOT / "docs" / "configuration.md"
    assert page.read_text(encoding="utf-8") == reference(), "run `python -m jobpipe.config --write`"


def test_values_are_parsed_and_defaults_hold(monkeypatch, tmp_path):
    for name in [n for n in __import__("os").environ if n.startswith("JOBPIPE_")]:
        monkeypatch.delenv(name)
    defaults = get_settings()
    assert (defaults.embedder, defaults.hnsw_m, defaults.close_guard_share, defaults.executor) == \
        ("local", 16, 0.3, "multiprocess")
    monkeypatch.setenv("JOBPIPE_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("JOBPIPE_HNSW_M", "32")
    monkeypatch.setenv("JOBPIPE_CLOSE_GUARD_SHARE", "")          # empty = unset
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback")
    s = get_settings()
    assert s.home == (tmp_path / "h").resolve() and s.pgdata == s.home / "pgdata"
    assert s.hnsw_m == 32 and s.close_guard_share == 0.3 and s.openai_api_key == "sk-fallback"
    monkeypatch.setenv("JOBPIPE_OPENAI_API_KEY", "sk-own")
    assert get_settings().openai_api_key == "sk-own"
    changed = s.replace(hnsw_m=8, database_url="postgresql://db/x")
    assert (changed.hnsw_m, changed.embedded, s.hnsw_m) == (8, False, 32)
    with pytest.raises(SettingsError, match="^JOBPIPE_HNSW_M='many': "):
        s.replace(hnsw_m="many")


@pytest.mark.parametrize(("name", "value", "words"), [
    ("JOBPIPE_HNSW_M", "abc", "valid integer"),
    ("JOBPIPE_CLOSE_GUARD_SHARE", "1.5", "less than or equal to 1"),
    ("JOBPIPE_EXECUTOR", "k8s", "'multiprocess', 'in_process' or 'celery'"),
    ("JOBPIPE_SCHEDULE_TIMEZONE", "Mars/Olympus", "unknown time zone"),
])
def test_an_unusable_value_is_one_error_naming_the_variable(monkeypatch, name, value, words):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as error:
        get_settings()
    assert str(error.value).startswith(f"{name}={value!r}: ") and words in str(error.value)


def test_the_cli_prints_one_line_and_exits_2(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "JOBPIPE_HOME": str(tmp_path), "JOBPIPE_HNSW_M": "lots"}
    done = subprocess.run([sys.executable, "-m", "jobpipe.cli", "db", "status"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == ["jobpipe: JOBPIPE_HNSW_M='lots': Input should be a valid integer, "
                                                "unable to parse string as an integer"]
