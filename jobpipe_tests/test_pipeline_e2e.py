"""End to end: the whole asset graph, in-process, on the real database and the demo HTTP boards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dagster import DagsterInstance

from jobpipe.config import DEMO_SOURCES_FILE
from jobpipe.db import connect
from jobpipe.orchestration.runner import COUNT_KEYS, run_pipeline

# Whole-graph runs: outside the fast lane (`pytest -m "not slow"`), inside `make test`.
pytestmark = pytest.mark.slow

STAGE_TABLES = [
    "fetch_runs", "raw_postings", "listing_spans", "normalized_postings", "jobs", "job_embeddings",
    "serving_snapshots", "candidates", "candidate_embeddings", "candidate_matches",
]


@pytest.fixture(scope="module")
def first_run(database):
    with connect(database) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname='public' AND tablename <> 'schema_migrations'")]
        conn.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
        conn.commit()
    instance = DagsterInstance.ephemeral()
    summary = run_pipeline(DEMO_SOURCES_FILE, instance=instance)
    return instance, summary


def test_first_run_fills_every_stage(first_run, database):
    _, summary = first_run
    assert summary.ok, summary.to_json()
    totals = summary.totals
    assert totals["fetched"] >= 150
    assert totals["inserted"] + totals["rejected"] >= totals["fetched"] - 5  # cross-posts may share keys
    assert totals["embedded"] == totals["inserted"]
    with connect(database) as conn:
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in STAGE_TABLES}
        open_jobs = conn.execute("SELECT count(*) FROM jobs WHERE closed_at IS NULL").fetchone()[0]
        vectors = conn.execute(
            "SELECT count(*) FROM serving_jobs WHERE closed_at IS NULL AND embedding IS NOT NULL").fetchone()[0]
    assert all(n > 0 for n in counts.values()), counts
    assert counts["jobs"] == totals["inserted"]
    assert vectors == open_jobs  # every open job is searchable by vector
    for name, source in summary.sources.items():
        assert source.complete, name
        assert source.fetched > 0, name
    demo_resumes = len(list(Path(__file__).resolve().parent.parent.joinpath("jobpipe/demo/data/resumes").glob("*.txt")))
    assert summary.candidates.counts() == {"profiled": demo_resumes, "embedded": demo_resumes, "recomputed": demo_resumes,
                                  "deleted": 0, "quarantined": 0}


def test_search_finds_known_demo_posting(first_run, database):
    from jobpipe.demo import KNOWN_POSTING
    from jobpipe.embedding import get_embedder
    from jobpipe.search import search

    with connect(database) as conn:
        response = search(conn, KNOWN_POSTING["query"], top_k=5, embedder=get_embedder())
    found = [(r.source, r.external_id) for r in response.results]
    assert (KNOWN_POSTING["source"], KNOWN_POSTING["external_id"]) in found, found


def test_rerun_rewrites_nothing_and_embeds_nothing(first_run, database):
    instance, first = first_run
    with connect(database) as conn:
        before = dict(conn.execute("SELECT job_id, xmin::text FROM jobs").fetchall())
        rows_before = {r[0]: r for r in conn.execute("SELECT * FROM jobs")}
    again = run_pipeline(DEMO_SOURCES_FILE, instance=instance)
    assert again.ok, again.to_json()
    totals = again.totals
    if totals["updated"]:
        with connect(database) as conn:
            cur = conn.execute("SELECT * FROM jobs")
            names = [d.name for d in cur.description]
            changed = {
                r[0]: {n: (a, b) for n, a, b in zip(names, rows_before[r[0]], r) if a != b and n != "updated_at"}
                for r in cur if r != rows_before.get(r[0])
            }
        pytest.fail(f"rerun rewrote rows: {list(changed.items())[:3]}")
    assert totals["inserted"] == totals["updated"] == totals["closed"] == 0
    assert totals["embedded"] == 0
    assert totals["unchanged"] == first.totals["inserted"]
    with connect(database) as conn:
        after = dict(conn.execute("SELECT job_id, xmin::text FROM jobs").fetchall())
    assert after == before  # no new row versions at all


def test_failing_source_does_not_stop_the_others(first_run, database, tmp_path):
    instance, _ = first_run
    from jobpipe.demo import DemoServer

    text = DEMO_SOURCES_FILE.read_text(encoding="utf-8")
    broken = tmp_path / "sources.yaml"
    broken.write_text(
        text.rstrip() + "\n  - {name: missing-board, kind: greenhouse, board: does-not-exist, "
        "base_url: \"${JOBPIPE_DEMO_URL}\", rate_limit: 50}\n",
        encoding="utf-8",
    )
    with DemoServer() as server:
        os.environ["JOBPIPE_DEMO_URL"] = server.url
        summary = run_pipeline(broken, instance=instance)
    failed = summary.sources["missing-board"]
    assert not failed.ok and failed.error and "404" in failed.error
    others = [s for n, s in summary.sources.items() if n != "missing-board"]
    assert others and all(s.ok for s in others)
    assert summary.downstream_ok


def test_cli_run_json(first_run, database, tmp_path):
    env = {**os.environ, "JOBPIPE_DATABASE_URL": database, "JOBPIPE_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "jobpipe.cli", "run", "--json"], env=env, capture_output=True,
                          text=True, timeout=600, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert set(COUNT_KEYS) <= set(out["totals"])
    assert all(isinstance(out["totals"][k], int) for k in COUNT_KEYS)
    assert out["totals"]["embedded"] == 0 and out["totals"]["inserted"] == 0
    # nothing changed since the first run: no candidate re-profiled, re-embedded or re-matched
    assert out["candidates"] == {"profiled": 0, "embedded": 0, "recomputed": 0, "deleted": 0, "quarantined": 0}
    for per_source in out["sources"].values():
        assert set(COUNT_KEYS) <= set(per_source)


def _cli(database: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JOBPIPE_DATABASE_URL": database, "JOBPIPE_HOME": str(tmp_path / "home")}
    return subprocess.run([sys.executable, "-m", "jobpipe.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parent.parent)


def test_cli_search_and_jobs_show(first_run, database, tmp_path):
    from jobpipe.demo import KNOWN_POSTING

    proc = _cli(database, tmp_path, "search", KNOWN_POSTING["query"], "--top-k", "5", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    assert 0 < len(results) <= 5
    assert {"job_id", "source", "external_id", "title", "company", "city", "score"} <= set(results[0])
    assert (KNOWN_POSTING["source"], KNOWN_POSTING["external_id"]) in {(r["source"], r["external_id"]) for r in results}

    proc = _cli(database, tmp_path, "search", "工程师", "--city", "Shenzhen", "--json")
    in_english = json.loads(proc.stdout)
    proc = _cli(database, tmp_path, "search", "工程师", "--city", "深圳", "--json")
    in_chinese = json.loads(proc.stdout)
    assert in_english and [r["job_id"] for r in in_english] == [r["job_id"] for r in in_chinese]
    assert all("Shenzhen" in r["cities"] for r in in_english)

    proc = _cli(database, tmp_path, "search", "不要外包 工程师 8000U以内")   # as a person reads it
    assert proc.returncode == 0, proc.stderr[-3000:]
    notes = [line for line in proc.stdout.splitlines() if line.startswith("note: ")]
    assert any("'不要外包' rules out job type contract" in n for n in notes), proc.stdout
    assert any("'8000U以内' is a pay ceiling" in n for n in notes), proc.stdout

    proc = _cli(database, tmp_path, "jobs", "show", KNOWN_POSTING["source"], KNOWN_POSTING["external_id"], "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    job = json.loads(lines[0])
    for key in ("source", "external_id", "title", "company", "cities", "country", "remote", "job_type", "skills", "salary"):
        assert key in job
    assert set(job["salary"]) >= {"min", "max", "currency", "period", "months_per_year", "negotiable"}
    assert job["title"] == KNOWN_POSTING["title"]

    proc = _cli(database, tmp_path, "jobs", "show", KNOWN_POSTING["source"], "no-such-id", "--json")
    assert proc.returncode == 1 and "no job" in proc.stderr


def test_cli_candidates_list_show_matches(first_run, database, tmp_path):
    listed = json.loads(_cli(database, tmp_path, "candidates", "list", "--json").stdout)
    ids = [c["candidate_id"] for c in listed["candidates"]]
    assert ids and all(c["embedded"] and c["matches"] > 0 for c in listed["candidates"]) and listed["quarantined"] == []
    shown = json.loads(_cli(database, tmp_path, "candidates", "show", ids[0], "--json").stdout)
    assert {"profile", "preferences", "effective_preferences", "embedding_text"} <= set(shown)
    assert "@example.com" not in json.dumps(shown)
    matches = json.loads(_cli(database, tmp_path, "candidates", "matches", ids[0], "--top-k", "3", "--json").stdout)
    assert len(matches["results"]) == 3 and [r["rank"] for r in matches["results"]] == [1, 2, 3]
    text = _cli(database, tmp_path, "candidates", "matches", ids[0], "--top-k", "2").stdout
    assert text.count("semantic") == 2 and " 1. " in text
    missing = _cli(database, tmp_path, "candidates", "show", "nobody")
    assert missing.returncode == 1 and "unknown candidate_id 'nobody'" in missing.stderr
    refused = _cli(database, tmp_path, "candidates", "delete", ids[0])
    assert refused.returncode == 1 and "bundled demo resumes" in refused.stderr


def test_cli_rejects_broken_sources_file_before_fetching(database, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources:\n  - {name: x, kind: monster, board: y}\n", encoding="utf-8")
    proc = _cli(database, tmp_path, "run", "--sources", str(bad))
    assert proc.returncode == 2
    assert "'x'" in proc.stderr and "kind" in proc.stderr
