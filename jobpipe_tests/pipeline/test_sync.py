"""jobpipe.sync: a night's pipeline in-process, on the session's real database, with no Dagster."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import psycopg
import pytest

import jobpipe
from jobpipe.embedding import TokenHashEmbedder
from jobpipe.models import RawPosting
from jobpipe.pipeline import prune_history
from jobpipe.pipeline.ingest import utc_today
from jobpipe.search import SearchFilters, search
from jobpipe.sources import load_sources
from jobpipe.store.locks import stage_lock
from jobpipe_tests.orchestration.conftest import Board, posting

EMBEDDER = TokenHashEmbedder(64)


def rows(*numbers: int, **changes) -> list[dict]:
    return [posting(i, **changes.get(str(i), {})) for i in numbers]


def one(db, sql: str, *params):
    value = db.execute(sql, params).fetchone()
    db.commit()
    return value


def test_records_in_a_night_out_and_again_unchanged(db, database):
    first = jobpipe.sync(rows(*range(1, 11)), source="acme", database_url=database, embedder=EMBEDDER)
    assert first.ok
    counts = first.sources["acme"].counts()
    assert counts == {"fetched": 10, "inserted": 10, "updated": 0, "unchanged": 0, "rejected": 0, "closed": 0,
                      "embedded": 10}
    assert first.model == "token-hash-64" and first.embedded == 10
    assert first.index is not None and first.index.recall_ok
    assert first.serving is not None and first.serving.with_vector == first.serving.open_jobs == 10
    assert one(db, "SELECT kind FROM fetch_runs")[0] == "records"

    again = jobpipe.sync(rows(*range(1, 11)), source="acme", database_url=database, embedder=EMBEDDER)
    assert again.totals == {"fetched": 10, "inserted": 0, "updated": 0, "unchanged": 10, "rejected": 0, "closed": 0,
                            "embedded": 0}

    # Tomorrow: posting 10 is gone, 3's description changed (re-embedded), 4's URL changed (not re-embedded).
    edited = rows(*range(1, 10), **{"3": {"description": "Now Rust and Kafka, too."},
                                    "4": {"url": "https://acme.example/jobs/4?v=2"}})
    tomorrow = jobpipe.sync(edited, source="acme", day=utc_today() + timedelta(days=1), database_url=database,
                            embedder=EMBEDDER)
    assert tomorrow.totals == {"fetched": 9, "inserted": 0, "updated": 2, "unchanged": 7, "rejected": 0, "closed": 1,
                               "embedded": 1}
    assert one(db, "SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL")[0] == 1


class ListEmbedder:
    """A user's own embedder: plain lists, no numpy, no normalization."""

    model, dims = "my-lists-3", 3

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0 + len(t) % 7, 2.0, 0.5 * (i + 1)] for i, t in enumerate(texts)]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)


def test_an_embedder_may_return_lists(db, database):
    summary = jobpipe.sync(rows(1, 2, 3), source="acme", database_url=database, embedder=ListEmbedder())
    assert summary.embedded == 3 and summary.model == "my-lists-3"
    assert one(db, "SELECT count(*) FROM job_embeddings WHERE model = 'my-lists-3' AND dims = 3")[0] == 3
    with jobpipe_connect(database) as conn:
        found = search(conn, "Data Engineer", embedder=ListEmbedder(), mode="vector", top_k=3)
    assert len(found.results) == 3


class BrokenEmbedder(ListEmbedder):
    model = "broken-3"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, float("nan"), 0.0] for _ in texts]


def test_an_embedder_answer_that_cannot_be_stored_is_a_clear_error(db, database):
    with pytest.raises(ValueError, match="broken-3: returned a vector with NaN"):
        jobpipe.sync(rows(1), source="acme", database_url=database, embedder=BrokenEmbedder())
    # The ingest stages committed: the job is there, waiting for a vector; a rerun repairs it.
    assert one(db, "SELECT count(*) FROM jobs")[0] == 1
    assert jobpipe.sync(rows(1), source="acme", database_url=database, embedder=EMBEDDER).embedded == 1


def test_records_that_are_not_postings_are_quarantined_not_lost(db, database):
    given = [*rows(1, 2), {"title": "no id here"}, "not a mapping",
             {"id": "A-9", "title": "Engineer", "posted_at": date(2026, 3, 1), "salary": "20-30K"},
             RawPosting(source="other", external_id="x", format="file", payload={"title": "elsewhere"})]
    summary = jobpipe.sync(given, source="acme", database_url=database, embedder=EMBEDDER)
    assert set(summary.sources) == {"acme", "other"}
    acme = summary.sources["acme"]
    assert (acme.fetched, acme.inserted, acme.rejected) == (3, 3, 2)
    reasons = [str(r[0]) for r in db.execute(
        "SELECT failed_checks FROM quarantine WHERE source = 'acme' AND stage = 'fetch' ORDER BY position")]
    db.commit()
    assert len(reasons) == 2 and any("no 'external_id'" in r for r in reasons)
    assert one(db, "SELECT posted_at::date FROM jobs WHERE external_id = 'A-9'")[0] == date(2026, 3, 1)


def test_a_sources_file_with_a_failing_source(db, database, tmp_path):
    board = Board(tmp_path)
    board.write(rows(1, 2, 3))
    board.sources_file.write_text("sources:\n  - {name: good, kind: file, path: postings.jsonl}\n"
                                  "  - {name: gone, kind: file, path: missing.jsonl}\n", encoding="utf-8")
    (tmp_path / "missing.jsonl").write_text("", encoding="utf-8")   # exists when the file is checked ...
    sources = load_sources(board.sources_file)
    (tmp_path / "missing.jsonl").unlink()                            # ... and is gone when fetched
    with pytest.raises(jobpipe.RunError) as raised:
        jobpipe.sync(sources, database_url=database, embedder=EMBEDDER)
    summary = raised.value.summary
    assert summary is not None
    assert summary.sources["good"].ok and summary.sources["good"].inserted == 3
    assert not summary.sources["gone"].ok and "missing.jsonl" in summary.sources["gone"].error
    assert "source 'gone'" in str(raised.value)
    assert summary.embedded == 3   # a failing source does not stop the night

    (tmp_path / "missing.jsonl").write_text("", encoding="utf-8")   # the file must load as a whole again
    quiet = jobpipe.sync(board.sources_file, source="good", database_url=database, embedder=EMBEDDER)
    assert list(quiet.sources) == ["good"] and quiet.totals["unchanged"] == 3


def test_a_past_day_of_a_source_is_replayed_from_its_snapshot(db, database, tmp_path):
    board = Board(tmp_path)
    board.write(rows(1, 2))
    board.sources_file.write_text("sources:\n  - {name: good, kind: file, path: postings.jsonl}\n", encoding="utf-8")
    jobpipe.sync(board.sources_file, database_url=database, embedder=EMBEDDER)
    db.execute("UPDATE fetch_runs SET partition_date = partition_date - 1")
    db.commit()
    board.write(rows(1))    # what the source says today does not matter for yesterday
    replay = jobpipe.sync(board.sources_file, day=utc_today() - timedelta(days=1), database_url=database,
                          embedder=EMBEDDER)
    fetch = replay.sources["good"].fetch
    assert fetch is not None and fetch.replayed and fetch.fetched == 2
    with pytest.raises(jobpipe.RunError, match="no raw snapshot"):
        jobpipe.sync(board.sources_file, day=utc_today() - timedelta(days=9), database_url=database,
                     embedder=EMBEDDER)


def test_bad_input_says_what_is_wrong(database):
    with pytest.raises(ValueError, match="need source="):
        jobpipe.sync(rows(1), database_url=database, embedder=EMBEDDER)
    with pytest.raises(TypeError, match="not one record"):
        jobpipe.sync(posting(1), source="acme", database_url=database, embedder=EMBEDDER)  # type: ignore[arg-type]


def test_vector_search_does_not_need_the_keyword_terms(db, database, monkeypatch):
    jobpipe.sync(rows(*range(1, 11)), source="acme", database_url=database, embedder=EMBEDDER)
    db.execute("DELETE FROM job_terms")   # as if the terms step had not run (or not yet)
    db.commit()
    import jobpipe.search.vector as vector

    with jobpipe_connect(database) as conn:
        plain = search(conn, "Data Engineer Python", embedder=EMBEDDER, mode="vector", top_k=5)
        berlin = search(conn, "Data Engineer", SearchFilters(city="Berlin"), embedder=EMBEDDER, mode="vector",
                        top_k=20)
        monkeypatch.setattr(vector, "EXACT_MAX_ROWS", 0)   # the iterative HNSW plan, as on a large store
        iterative = search(conn, "Data Engineer", SearchFilters(city="Berlin"), embedder=EMBEDDER, mode="vector",
                           top_k=3, debug=True)
    assert len(plain.results) == 5
    assert len(berlin.results) == 5 and all("Berlin" in r.cities for r in berlin.results)
    assert iterative.debug["vector_plan"]["method"] == "hnsw_iterative"
    assert len(iterative.results) == 3 and all("Berlin" in r.cities for r in iterative.results)


def test_import_jobpipe_stays_light():
    code = ("import sys, jobpipe; heavy = [m for m in ('pandas', 'pandera', 'psycopg', 'dagster', 'numpy') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0 and out.stdout.strip() == "", out.stdout + out.stderr


def jobpipe_connect(url: str):
    from jobpipe.db import connect

    return connect(url)


def _tables(db) -> dict[str, list[tuple]]:
    """What a night leaves in the store, without ids and timestamps."""
    queries = {
        "jobs": "SELECT source, external_id, content_hash, record_hash, closed_at IS NULL FROM jobs ORDER BY 1, 2",
        "normalized": "SELECT source, external_id, content_hash FROM normalized_postings ORDER BY 1, 2",
        "vectors": "SELECT j.external_id, e.model, e.content_hash FROM job_embeddings e JOIN jobs j USING (job_id) "
                   "ORDER BY 1",
        "terms": "SELECT j.external_id, t.content_hash FROM job_terms t JOIN jobs j USING (job_id) ORDER BY 1",
        "models": "SELECT model, state FROM embedding_models ORDER BY 1",
    }
    out = {name: db.execute(q).fetchall() for name, q in queries.items()}
    db.commit()
    return out


def _empty(db) -> None:
    tables = [r[0] for r in db.execute("SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' "
                                       "AND tablename <> 'schema_migrations'")]
    db.execute("TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE")
    db.commit()


@pytest.mark.slow
def test_jobpipe_run_and_jobpipe_sync_leave_the_same_tables(db, database, tmp_path, monkeypatch):
    from dagster import DagsterInstance

    from jobpipe.orchestration.runner import run_pipeline

    monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "token-hash-64")
    board = Board(tmp_path)
    board.sources_file.write_text("sources:\n  - {name: board-a, kind: file, path: postings.jsonl}\n",
                                  encoding="utf-8")
    nights = [rows(*range(1, 11)), rows(*range(1, 10), **{"2": {"title": "Lead Data Engineer 2"}})]
    seen = {}
    for way in ("sync", "run"):
        _empty(db)
        with DagsterInstance.ephemeral() as instance:
            for night in nights:
                board.write(night)
                if way == "sync":
                    summary = jobpipe.sync(board.sources_file, database_url=database)
                else:
                    summary = run_pipeline(board.sources_file, instance=instance)
                assert summary.ok, summary.to_json()
        seen[way] = (_tables(db), summary.totals)
    assert seen["sync"][0]["jobs"] and seen["sync"][0]["vectors"]
    assert seen["sync"] == seen["run"]
    assert seen["sync"][1] == {"fetched": 9, "inserted": 0, "updated": 1, "unchanged": 8, "rejected": 0, "closed": 1,
                               "embedded": 1}


def test_a_night_prunes_history_past_the_window_and_skips_a_source_a_run_holds(db, database, monkeypatch):
    """sync's whole-store step prunes snapshots like the Dagster asset; a busy source waits for the next pass."""
    monkeypatch.setenv("JOBPIPE_SNAPSHOT_RETENTION_DAYS", "2")
    start = utc_today()
    for n in range(3):   # three nights of two sources
        for name in ("acme", "globex"):
            jobpipe.sync(rows(1, 2, **{"1": {"title": f"Night {n}"}}), source=name, day=start + timedelta(days=n),
                         database_url=database, embedder=EMBEDDER)
    assert one(db, "SELECT count(*) FROM fetch_runs")[0] == 4   # the last night pruned the first
    assert one(db, "SELECT min(partition_date) FROM fetch_runs")[0] == start + timedelta(days=1)

    with psycopg.connect(database) as other, stage_lock(other, "source:acme", stage="fetch"):
        pruned = prune_history(db, keep_days=1, today=start + timedelta(days=2))
    assert pruned.busy_sources == ["acme"] and pruned.fetch_runs_deleted == 1   # globex's day 1 only
    assert [r[0] for r in db.execute("SELECT source FROM fetch_runs WHERE partition_date = %s ORDER BY source",
                                     (start + timedelta(days=1),))] == ["acme"]
    db.commit()
    again = prune_history(db, keep_days=1, today=start + timedelta(days=2))
    assert again.busy_sources == [] and again.fetch_runs_deleted == 1
