"""Failures are loud and safe to acknowledge.

A refused mass close and a failed reject-rate check exit non-zero with one line each naming the
source, the share and what to do; ``jobpipe sources accept-close`` lets the next run close once;
a per-source ``close_guard_share`` in the sources file does it for good; ``jobpipe status``
reports the same per source.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import psycopg
import pytest

from jobpipe.cli import main


def _postings(n: int, *, start: int = 0, broken: int = 0) -> list[dict]:
    rows = [{"id": f"p{i}", "title": f"Data Engineer {i}", "company": "Probe Co", "location": "Berlin, Germany",
             "description": "Build pipelines in Python and SQL for the analytics team.",
             "url": f"https://probe.example/p{i}"} for i in range(start, start + n)]
    # A row without a title fails validation (quarantined, counted as rejected).
    rows += [{"id": f"bad{i}", "title": "", "company": "Probe Co", "description": "x"} for i in range(broken)]
    return rows


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path, database: str, db: psycopg.Connection, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JOBPIPE_DATABASE_URL", database)
    monkeypatch.setenv("JOBPIPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "token-hash-64")
    monkeypatch.setenv("JOBPIPE_CANDIDATES", str(tmp_path / "no-resumes"))
    (tmp_path / "no-resumes").mkdir()
    return tmp_path


def _sources(home: Path, extra: str = "") -> Path:
    path = home / "sources.yaml"
    path.write_text(f"sources:\n  - {{name: probe, kind: file, path: postings.jsonl, format: jsonl{extra}}}\n",
                    encoding="utf-8")
    return path


def _run(sources: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, list[str]]:
    code = main(["run", "--sources", str(sources), "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err.splitlines()


def _open_jobs(db: psycopg.Connection) -> int:
    db.commit()
    return db.execute("SELECT count(*) FROM jobs WHERE closed_at IS NULL").fetchone()[0]


@pytest.mark.slow   # whole-graph runs
def test_a_refused_mass_close_exits_non_zero_and_accept_close_lets_the_next_run_close(
        home: Path, db: psycopg.Connection, capsys: pytest.CaptureFixture[str]) -> None:
    drop = home / "postings.jsonl"
    sources = _sources(home)
    _write(drop, _postings(20))
    code, summary, _ = _run(sources, capsys)
    assert code == 0 and summary["ok"] and summary["totals"]["inserted"] == 20

    _write(drop, _postings(2))             # the listing suddenly holds 10% of its postings
    code, summary, _ = _run(sources, capsys)
    assert code == 1 and not summary["ok"]
    assert _open_jobs(db) == 20             # nothing closed
    [line] = summary["problems"]
    assert line.startswith("probe: close guard refused to close 18 of 20 open postings (90% > 30%)")
    assert "jobpipe sources accept-close probe" in line and "close_guard_share" in line

    code = main(["run", "--sources", str(sources)])          # the human form: the same line on stderr
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and f"jobpipe: {line}" in err

    assert main(["sources", "accept-close", "probe", "--note", "board cleaned up"]) == 0
    assert "accepted at" in capsys.readouterr().out
    code, summary, _ = _run(sources, capsys)
    assert code == 0 and summary["ok"] and summary["sources"]["probe"]["closed"] == 18
    assert _open_jobs(db) == 2
    db.commit()
    assert db.execute("SELECT count(*) FROM close_acceptances").fetchone()[0] == 0   # used up: once

    _write(drop, _postings(2)[:1])          # the next mass close needs a new acceptance
    code, summary, _ = _run(sources, capsys)
    assert code == 1 and "close guard refused to close 1 of 2" in summary["problems"][0]


@pytest.mark.slow   # whole-graph runs
def test_a_source_of_its_own_close_guard_share(home: Path, db: psycopg.Connection,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    drop = home / "postings.jsonl"
    sources = _sources(home, ", close_guard_share: 0.95")
    _write(drop, _postings(20))
    assert _run(sources, capsys)[0] == 0
    _write(drop, _postings(2))
    code, summary, _ = _run(sources, capsys)
    assert code == 0 and summary["sources"]["probe"]["closed"] == 18 and not summary["problems"]


@pytest.mark.slow   # whole-graph runs
def test_a_failed_reject_rate_check_exits_non_zero_naming_the_share(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(home / "postings.jsonl", _postings(8, broken=2))
    code, summary, _ = _run(_sources(home), capsys)
    assert code == 1
    [line] = summary["problems"]
    assert line.startswith("probe: 2 of 10 postings rejected (20.0% > threshold 5%)")
    assert "quarantine" in line
    assert summary["sources"]["probe"]["inserted"] == 8      # the good rows still landed


def test_the_in_process_sync_honours_a_sources_own_close_guard_share(home: Path, db: psycopg.Connection) -> None:
    import jobpipe

    drop = home / "postings.jsonl"
    _write(drop, _postings(20))
    default = home / "default.yaml"
    default.write_text(_sources(home).read_text(encoding="utf-8"), encoding="utf-8")
    own = _sources(home, ", close_guard_share: 0.95")
    assert jobpipe.sync(own).ok
    _write(drop, _postings(2))
    refused = jobpipe.sync(default, raise_on_error=False)          # the deployment's 30%: refused
    assert not refused.ok and "close guard refused to close 18 of 20" in refused.problems[0]
    assert _open_jobs(db) == 20
    summary = jobpipe.sync(own)                                    # the source's own 95%: closes
    assert summary.ok and summary.sources["probe"].closed == 18 and _open_jobs(db) == 2


def test_accept_close_of_an_unknown_source_is_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sources", "accept-close", "nope"]) == 2
    assert "no source 'nope'" in capsys.readouterr().err


@pytest.mark.slow   # whole-graph runs
def test_status_per_source(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drop = home / "postings.jsonl"
    sources = home / "sources.yaml"
    sources.write_text("sources:\n"
                       "  - {name: probe, kind: file, path: postings.jsonl, format: jsonl, freshness_hours: 12}\n"
                       "  - {name: dead, kind: greenhouse, board: dead, base_url: 'http://127.0.0.1:9'}\n"
                       "  - {name: later, kind: file, path: postings.jsonl, format: jsonl, enabled: false}\n",
                       encoding="utf-8")
    _write(drop, _postings(5, broken=1))
    assert _run(sources, capsys)[0] == 1            # 'dead' fails, 'probe' rejects 1 of 6

    code = main(["status", "--sources", str(sources), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and not report["ok"]
    rows = {r["source"]: r for r in report["sources"]}
    assert set(rows) == {"probe", "dead"}               # disabled sources are not reported
    probe, dead = rows["probe"], rows["dead"]
    assert probe["outcome"] == "problems" and probe["fresh"] and probe["freshness_hours"] == 12
    assert probe["counts"] == {"fetched": 6, "inserted": 5, "updated": 0, "unchanged": 0, "rejected": 1,
                               "closed": 0, "embedded": 5}
    assert list(probe["failing"]) == ["reject_rate_below_threshold"]
    assert dead["outcome"] == "failed" and not dead["fresh"] and dead["freshness_hours"] == 36
    assert set(dead["failing"]) == {"fetch", "sources_fresh"}
    assert "127.0.0.1:9" in dead["failing"]["fetch"] and "never" in dead["failing"]["sources_fresh"]

    assert main(["status", "--sources", str(sources)]) == 1
    text = capsys.readouterr().out
    assert "probe" in text and "STALE" in text and "3 problems:" in text


def test_the_freshness_check_and_sensor_name_the_stale_sources(home: Path, db: psycopg.Connection,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from dagster import AssetCheckKey, AssetKey, DagsterInstance, build_sensor_context

    from jobpipe.orchestration.freshness import evaluate, source_freshness
    from jobpipe.orchestration.resources import PostgresResource, SourcesResource

    sources = home / "sources.yaml"
    sources.write_text("sources:\n  - {name: fresh-one, kind: file, path: p.jsonl, format: jsonl}\n"
                       "  - {name: old-one, kind: file, path: p.jsonl, format: jsonl, freshness_hours: 2}\n",
                       encoding="utf-8")
    (home / "p.jsonl").write_text("")
    monkeypatch.setenv("JOBPIPE_SOURCES", str(sources))
    db.execute("INSERT INTO fetch_runs (source, partition_date, kind, complete, finished_at) VALUES "
               "('fresh-one', current_date, 'file', true, now() - interval '30 hours'), "
               "('old-one', current_date, 'file', true, now() - interval '3 hours')")
    db.commit()
    postgres, files = PostgresResource(database_url=os.environ["JOBPIPE_DATABASE_URL"]), SourcesResource(path=str(sources))
    result = evaluate(postgres, files)
    assert not result["passed"] and result["description"] == "1 of 2 sources stale: old-one"
    assert "| old-one | 3.0 h ago | 2 h |" in result["metadata"]["stale_sources"].value

    instance = DagsterInstance.ephemeral()
    source_freshness(build_sensor_context(instance=instance, resources={"postgres": postgres, "sources": files}))
    key = AssetCheckKey(AssetKey("raw_postings"), "sources_fresh")
    record = instance.event_log_storage.get_latest_asset_check_execution_by_key([key])[key]
    evaluation = record.event.dagster_event.event_specific_data
    assert evaluation.passed is False and evaluation.severity.value == "ERROR"
