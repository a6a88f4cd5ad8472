from dataclasses import replace

import numpy as np
import pytest

from jobpipe.embedding import TokenHashEmbedder
from jobpipe.store import active_model, pending_jobs, sync_candidate_embeddings, sync_job_embeddings, upsert_jobs
from jobpipe.store.vectors import pending_candidates
from jobpipe_tests.store.helpers import make_postings


class CountingEmbedder(TokenHashEmbedder):
    """The real token-hash embedder, recording every text it was asked to embed."""

    def __init__(self, dims=32, model=None, fail_on_batch=None):
        super().__init__(dims, model=model)
        self.texts: list[str] = []
        self.batches = 0
        self.fail_on_batch = fail_on_batch

    def embed_documents(self, texts):
        self.batches += 1
        if self.batches == self.fail_on_batch:
            raise RuntimeError("provider down")
        self.texts.extend(texts)
        return super().embed_documents(texts)


def _vector(db, external_id, model):
    row = db.execute(
        "SELECT e.embedding, e.content_hash FROM job_embeddings e JOIN jobs j USING (job_id) "
        "WHERE j.external_id = %s AND e.model = %s", (external_id, model)).fetchone()
    return (np.asarray(row[0].to_numpy()), row[1]) if row else None


def test_first_sync_embeds_all_open_jobs_and_activates_the_first_model(db):
    upsert_jobs(db, make_postings(20))
    embedder = CountingEmbedder()
    progress = []
    counts = sync_job_embeddings(db, embedder, batch_size=8, progress=lambda done, total: progress.append((done, total)))
    assert (counts.embedded, counts.skipped) == (20, 0)
    assert embedder.batches == 3 and progress[-1] == (20, 20)
    assert active_model(db).model == embedder.model and active_model(db).dims == 32
    assert pending_jobs(db, embedder.model) == 0
    again = CountingEmbedder()
    assert sync_job_embeddings(db, again).embedded == 0 and again.texts == []
    assert sync_job_embeddings(db, again).skipped == 20


def test_change_outside_embedding_text_costs_no_embedding_inside_costs_one(db):
    upsert_jobs(db, make_postings(10))
    sync_job_embeddings(db, CountingEmbedder())
    postings = make_postings(10)
    postings[2] = replace(postings[2], url="https://new.example.com/2", salary_annual_min=1.0)
    upsert = upsert_jobs(db, postings)
    assert upsert.updated == 1
    outside = CountingEmbedder()
    assert sync_job_embeddings(db, outside).embedded == 0 and outside.texts == []

    postings[4] = replace(postings[4], description_text="Now we use Rust and Kafka.")
    assert upsert_jobs(db, postings).updated == 1
    assert pending_jobs(db, outside.model) == 1
    inside = CountingEmbedder()
    assert sync_job_embeddings(db, inside).embedded == 1
    assert len(inside.texts) == 1 and "Rust and Kafka" in inside.texts[0]


def test_old_vector_serves_until_replaced(db):
    upsert_jobs(db, make_postings(3))
    model = CountingEmbedder().model
    sync_job_embeddings(db, CountingEmbedder())
    old_vector, old_hash = _vector(db, "board-1", model)
    postings = make_postings(3)
    postings[1] = replace(postings[1], title="Principal Frontend Developer", description_text="Totally new text.")
    upsert_jobs(db, postings)
    # Changed but not yet re-embedded: the old vector is still there for search.
    still, still_hash = _vector(db, "board-1", model)
    assert np.allclose(still, old_vector) and still_hash == old_hash
    assert db.execute("SELECT count(*) FROM serving_jobs WHERE embedding IS NULL").fetchone()[0] == 0
    sync_job_embeddings(db, CountingEmbedder())
    new_vector, new_hash = _vector(db, "board-1", model)
    assert not np.allclose(new_vector, old_vector) and new_hash != old_hash


def test_crash_mid_sync_keeps_committed_batches_and_resumes(db):
    upsert_jobs(db, make_postings(20))
    crashing = CountingEmbedder(fail_on_batch=2)
    with pytest.raises(RuntimeError, match="provider down"):
        sync_job_embeddings(db, crashing, batch_size=8)
    db.rollback()
    assert db.execute("SELECT count(*) FROM job_embeddings").fetchone()[0] == 8
    assert pending_jobs(db, crashing.model) == 12
    resumed = CountingEmbedder()
    assert sync_job_embeddings(db, resumed, batch_size=8).embedded == 12


def test_model_switch_builds_in_background_and_activates_only_when_complete(db):
    upsert_jobs(db, make_postings(20))
    old = CountingEmbedder(32)
    sync_job_embeddings(db, old)
    new = CountingEmbedder(48, fail_on_batch=3)
    with pytest.raises(RuntimeError):
        sync_job_embeddings(db, new, batch_size=5)
    db.rollback()
    states = dict(db.execute("SELECT model, state FROM embedding_models").fetchall())
    assert states == {old.model: "active", new.model: "building"}
    assert db.execute("SELECT count(*) FROM job_embeddings WHERE model = %s", (new.model,)).fetchone()[0] == 10
    # Search still reads only the old model: every open job has exactly one vector there.
    rows = db.execute("SELECT embedding_model, count(*) FROM serving_jobs GROUP BY 1").fetchall()
    assert rows == [(old.model, 20)]

    done = sync_job_embeddings(db, CountingEmbedder(48), batch_size=5)
    assert done.embedded == 10 and done.activated
    states = dict(db.execute("SELECT model, state FROM embedding_models").fetchall())
    assert states == {old.model: "retired", new.model: "active"}
    assert active_model(db).dims == 48
    assert db.execute("SELECT count(DISTINCT embedding_model), count(*) FROM serving_jobs").fetchone() == (1, 20)


def test_closed_jobs_need_no_vector(db):
    upsert_jobs(db, make_postings(5))
    db.execute("UPDATE jobs SET closed_at = now() WHERE external_id = 'board-0'")
    db.commit()
    embedder = CountingEmbedder()
    assert sync_job_embeddings(db, embedder).embedded == 4


def test_candidate_vectors_follow_their_content_hash(db):
    db.execute(
        "INSERT INTO candidates (candidate_id, resume_text, embedding_text, content_hash) VALUES "
        "('c1', 'Ten years of Python and PostgreSQL.', 'Backend engineer\nPython, PostgreSQL', 'h1'), "
        "('c2', '五年前端开发经验，熟悉 React。', '前端工程师\nReact', 'h2')")
    db.commit()
    embedder = CountingEmbedder()
    assert sync_candidate_embeddings(db, embedder).embedded == 2
    assert sorted(embedder.texts) == ["Backend engineer\nPython, PostgreSQL", "前端工程师\nReact"]   # exactly the stored text
    assert pending_candidates(db, embedder.model) == 0
    db.execute("UPDATE candidates SET embedding_text = 'Now Go too.', content_hash = 'h1b' WHERE candidate_id = 'c1'")
    db.commit()
    again = CountingEmbedder()
    assert sync_candidate_embeddings(db, again).embedded == 1 and again.texts == ["Now Go too."]


def test_sync_through_an_openai_compatible_endpoint_rides_out_a_429(db):
    from jobpipe.embedding import OpenAIEmbedder
    from jobpipe_tests.embedding.fake_openai_server import ServerState, fake_openai_server

    upsert_jobs(db, make_postings(12))
    state = ServerState(dims=16, fail_with=[429])
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("remote-model", base_url=url, dims=16, max_batch=5)
        counts = sync_job_embeddings(db, embedder, batch_size=6)
    assert counts.embedded == 12 and embedder.retries == 1
    assert [len(r["input"]) for r in state.requests] == [5, 5, 1, 5, 1]  # 429, then pages of 6 cut to 5 + 1
    assert active_model(db).model == "remote-model" and pending_jobs(db, "remote-model") == 0


def test_retired_model_vectors_are_pruned_after_the_grace_period(db):
    from datetime import timedelta

    from jobpipe.store import ensure_vector_index, prune_retired_models
    from jobpipe.store.index import index_name
    from jobpipe.store.models import register_model

    upsert_jobs(db, make_postings(12))
    old, new = CountingEmbedder(32), CountingEmbedder(48)
    sync_job_embeddings(db, old)
    ensure_vector_index(db, old.model, 32)
    sync_job_embeddings(db, new)
    assert dict(db.execute("SELECT model, state FROM embedding_models").fetchall()) == {old.model: "retired", new.model: "active"}

    def indexes():
        return {r[0] for r in db.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'job_embeddings'")}

    assert prune_retired_models(db, older_than=timedelta(days=1)).models == ()   # retired just now: kept
    assert index_name(old.model, 32) in indexes()
    db.execute("UPDATE embedding_models SET retired_at = now() - interval '8 days' WHERE model = %s", (old.model,))
    db.commit()
    pruned = prune_retired_models(db, older_than=timedelta(days=7))
    assert (pruned.models, pruned.job_vectors) == ((old.model,), 12)
    assert index_name(old.model, 32) not in indexes()
    assert db.execute("SELECT model, count(*) FROM job_embeddings GROUP BY 1").fetchall() == [(new.model, 12)]
    assert db.execute("SELECT count(*) FROM serving_jobs WHERE embedding IS NOT NULL").fetchone()[0] == 12
    assert [r[0] for r in db.execute("SELECT model FROM embedding_models")] == [new.model]

    # A model switched back to before its grace ran out is building again, not retired: kept.
    third = CountingEmbedder(16)
    sync_job_embeddings(db, third)   # new retires, third serves
    db.execute("UPDATE embedding_models SET retired_at = now() - interval '8 days' WHERE model = %s", (new.model,))
    db.commit()
    register_model(db, new.model, 48)
    assert prune_retired_models(db, older_than=timedelta(days=7)).models == ()
    assert db.execute("SELECT count(*) FROM job_embeddings WHERE model = %s", (new.model,)).fetchone()[0] == 12
