"""job_filter_vectors (sql/0030): each vector at half precision beside its posting's filter columns, kept equal by triggers."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import timedelta

import numpy as np

from jobpipe.embedding import TokenHashEmbedder
from jobpipe.store import close_missing, prune_retired_models, sync_job_embeddings, upsert_jobs
from jobpipe.store.terms import FILTER_COLUMNS
from jobpipe_tests.store.helpers import make_postings

#: Rows whose filter copies or vector differ from their sources (or that have no source / no copy).
_DIFFERS = (
    "SELECT count(*) FROM job_embeddings e JOIN jobs j USING (job_id) "
    "FULL JOIN job_filter_vectors v ON v.job_id = e.job_id AND v.model = e.model "
    f"WHERE v.job_id IS NULL OR e.job_id IS NULL OR ({', '.join('j.' + c for c in FILTER_COLUMNS)}) "
    f"IS DISTINCT FROM ({', '.join('v.' + c for c in FILTER_COLUMNS)}) "
    "OR v.embedding IS DISTINCT FROM l2_normalize(e.embedding)::halfvec"
)


def _copy(db, external_id, columns="v.cities, v.job_type, v.closed_at IS NULL"):
    return db.execute(f"SELECT {columns} FROM job_filter_vectors v JOIN jobs j USING (job_id) "
                      "WHERE j.external_id = %s", (external_id,)).fetchall()


def test_schema_has_the_filter_columns_and_the_jobs_trigger_watches_and_copies_them(db):
    """A filter column added to job_terms (jobpipe.store.terms.FILTER_COLUMNS) needs its copy here
    too: the exact vector scan checks every filter on this table alone. One trigger on jobs watches
    every such column and copies it into both tables."""
    columns = {r[0] for r in db.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'job_filter_vectors'")}
    assert set(FILTER_COLUMNS) <= columns
    watched = db.execute("SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'jobs_filters_to_terms'"
                         ).fetchone()[0]
    copies = db.execute("SELECT prosrc FROM pg_proc WHERE proname = 'jobpipe_job_terms_filters'").fetchone()[0]
    db.commit()
    for column in FILTER_COLUMNS:
        assert f"old.{column} IS DISTINCT FROM new.{column}" in watched, column
        assert copies.count(f"{column} = NEW.{column}") == 2, column     # job_terms and job_filter_vectors


def test_vectors_arrive_with_their_postings_filters_at_half_precision(db):
    upsert_jobs(db, make_postings(12))
    embedder = TokenHashEmbedder(32)
    sync_job_embeddings(db, embedder)
    assert db.execute("SELECT count(*) FROM job_filter_vectors").fetchone()[0] == 12
    assert db.execute(_DIFFERS).fetchone()[0] == 0
    vector, half = db.execute(
        "SELECT e.embedding, v.embedding FROM job_embeddings e JOIN job_filter_vectors v USING (job_id, model) "
        "LIMIT 1").fetchone()
    unit = vector.to_numpy() / np.linalg.norm(vector.to_numpy())
    assert np.allclose(half.to_numpy().astype(np.float32), unit, rtol=2 ** -10, atol=2 ** -24)
    assert _copy(db, "board-1") == [(["Shanghai"], "full_time", True)]


def test_filter_copies_follow_closing_reopening_edits_and_re_embedding(db):
    upsert_jobs(db, make_postings(10))
    embedder = TokenHashEmbedder(32)
    sync_job_embeddings(db, embedder)
    close_missing(db, "board", [f"board-{i}" for i in range(9)], complete=True)
    assert _copy(db, "board-9")[0][2] is False
    upsert_jobs(db, make_postings(10))   # listed again
    assert _copy(db, "board-9")[0][2] is True
    db.execute("UPDATE jobs SET closed_at = now(), remote = 'remote' WHERE external_id = 'board-3'")   # by hand
    db.commit()
    assert _copy(db, "board-3", "v.closed_at IS NULL, v.remote") == [(False, "remote")]
    postings = make_postings(10)
    postings[5] = replace(postings[5], salary_annual_max=999_999.0, cities=["Chengdu"], job_type="intern",
                          description_text="Rust and Kafka now.")
    upsert_jobs(db, postings)
    assert _copy(db, "board-5") == [(["Chengdu"], "intern", True)]
    before = _copy(db, "board-5", "v.embedding")
    assert sync_job_embeddings(db, embedder).embedded == 1   # new text: ON CONFLICT DO UPDATE of the vector
    assert _copy(db, "board-5", "v.embedding") != before
    assert db.execute(_DIFFERS).fetchone()[0] == 0


def test_deleting_a_posting_or_pruning_a_model_deletes_the_copies(db):
    upsert_jobs(db, make_postings(6))
    old, new = TokenHashEmbedder(32, model="old-model"), TokenHashEmbedder(16, model="new-model")
    sync_job_embeddings(db, old)
    sync_job_embeddings(db, new)
    assert db.execute("SELECT model, count(*) FROM job_filter_vectors GROUP BY 1 ORDER BY 1").fetchall() == [
        ("new-model", 6), ("old-model", 6)]
    db.execute("DELETE FROM jobs WHERE external_id = 'board-0'")
    db.commit()
    assert db.execute("SELECT count(*) FROM job_filter_vectors").fetchone()[0] == 10
    # The new model took over once it covered every posting: the old one is retired.
    db.execute("UPDATE embedding_models SET retired_at = now() - interval '30 days' WHERE model = 'old-model'")
    db.commit()
    prune_retired_models(db, older_than=timedelta(days=1))
    assert db.execute("SELECT model, count(*) FROM job_filter_vectors GROUP BY 1").fetchall() == [("new-model", 5)]
    assert db.execute(_DIFFERS).fetchone()[0] == 0


def test_a_posting_updated_while_its_vector_is_written_keeps_equal_filter_copies(db, database):
    """The race the jobs trigger cannot see: the posting changes (uncommitted) before its vector
    exists, so that trigger has no copy to update; the vector's write must wait and copy the
    committed values."""
    from jobpipe.db import connect

    upsert_jobs(db, make_postings(4))
    db.commit()
    with connect(database) as writer:
        writer.execute("UPDATE jobs SET remote = 'remote', posted_at = now() WHERE external_id = 'board-1'")
        done = threading.Event()
        thread = threading.Thread(target=lambda: (sync_job_embeddings(db, TokenHashEmbedder(32)), done.set()))
        thread.start()
        time.sleep(0.5)
        waited = not done.is_set()
        writer.commit()
        thread.join(timeout=30)
    assert waited and done.is_set()
    assert db.execute(_DIFFERS).fetchone()[0] == 0
    assert _copy(db, "board-1", "v.remote") == [("remote",)]
