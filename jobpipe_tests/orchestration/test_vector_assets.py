"""job_embeddings -> vector_index -> serving_jobs, and the candidate assets, one at a time."""

from __future__ import annotations

from dagster import AssetCheckSeverity

from jobpipe.orchestration.assets.candidates import candidate_matches, candidate_profiles, candidate_vectors
from jobpipe.orchestration.assets.ingest import curated_jobs, normalized_postings, raw_postings
from jobpipe.orchestration.assets.vectors import job_embeddings, serving_jobs, vector_index
from jobpipe.orchestration.outcomes import read_outcome
from jobpipe.pipeline.candidates import CandidateVectorsOutcome, MatchOutcome, ProfileOutcome
from jobpipe.pipeline.vectors import EmbedOutcome, IndexOutcome, ServingOutcome
from jobpipe.store import index_state
from jobpipe_tests.orchestration.conftest import SOURCE, check, posting


def curated(run) -> None:
    assert run(raw_postings, normalized_postings, curated_jobs).success


def test_job_embeddings_embeds_exactly_what_changed(run, db, board):
    curated(run)
    result = run(job_embeddings)
    assert result.success
    outcome = read_outcome(result, "job_embeddings", EmbedOutcome)
    assert outcome is not None
    assert (outcome.embedded, outcome.pending_before, outcome.pending_after) == (10, 10, 0)
    assert (outcome.model, outcome.dims, outcome.active_model) == ("token-hash-64", 64, "token-hash-64")
    assert outcome.by_source == {SOURCE: 10}
    assert db.execute("SELECT count(*) FROM job_embeddings WHERE model = 'token-hash-64'").fetchone()[0] == 10
    db.commit()

    again = read_outcome(run(job_embeddings), "job_embeddings", EmbedOutcome)
    assert again is not None and again.embedded == 0 and again.by_source == {}

    board.write([posting(i) for i in range(1, 10)] + [posting(10, description="Now with Rust and Kafka.")])
    curated(run)
    edited = read_outcome(run(job_embeddings), "job_embeddings", EmbedOutcome)
    assert edited is not None and edited.embedded == 1


def test_vector_index_builds_the_index_and_passes_its_recall_check(run, db):
    curated(run)
    assert run(job_embeddings).success
    result = run(vector_index)
    assert result.success
    outcome = read_outcome(result, "vector_index", IndexOutcome)
    assert outcome is not None and outcome.built_now == 1
    assert [s["model"] for s in outcome.indexes] == ["token-hash-64"] and outcome.indexes[0]["valid"]
    assert set(outcome.recall["token-hash-64"]) == {"unfiltered", "filtered"}
    evaluation = check(result, "hnsw_recall")
    assert evaluation.passed and evaluation.severity == AssetCheckSeverity.ERROR
    assert [s.valid for s in index_state(db)] == [True]
    db.commit()
    # Maintained, not rebuilt: a second materialization finds the index in place.
    again = read_outcome(run(vector_index), "vector_index", IndexOutcome)
    assert again is not None and again.built_now == 0


def test_serving_jobs_reports_coverage_and_warns_on_a_gap(run, db, board):
    curated(run)
    assert run(job_embeddings).success
    served = read_outcome(run(serving_jobs), "serving_jobs", ServingOutcome)
    assert served is not None and (served.open_jobs, served.with_vector, served.missing_vectors) == (10, 10, 0)

    board.write([posting(i) for i in range(1, 12)])   # one new posting, not embedded yet
    curated(run)
    result = run(serving_jobs)
    gap = read_outcome(result, "serving_jobs", ServingOutcome)
    assert gap is not None and gap.missing_vectors == 1
    evaluation = check(result, "every_open_job_searchable")
    assert not evaluation.passed and evaluation.severity == AssetCheckSeverity.WARN
    assert db.execute("SELECT count(*) FROM serving_snapshots").fetchone()[0] == 2
    db.commit()


def test_candidate_assets_profile_embed_and_match(run, db):
    curated(run)
    assert run(job_embeddings, vector_index).success
    profiles = read_outcome(run(candidate_profiles), "candidate_profiles", ProfileOutcome)
    assert profiles is not None and profiles.candidates == profiles.profiled > 0
    vectors = read_outcome(run(candidate_vectors), "candidate_vectors", CandidateVectorsOutcome)
    assert vectors is not None and vectors.embedded == profiles.candidates
    matches = read_outcome(run(candidate_matches), "candidate_matches", MatchOutcome)
    assert matches is not None and matches.recomputed == matches.full == profiles.candidates
    stored = db.execute("SELECT count(*), count(DISTINCT candidate_id) FROM candidate_matches").fetchone()
    db.commit()
    assert stored == (matches.rows_written, matches.recomputed)
    # nothing changed: a second run re-profiles, re-embeds and recomputes nothing
    again = [read_outcome(run(a), a.key.path[-1], kind) for a, kind in (
        (candidate_profiles, ProfileOutcome), (candidate_vectors, CandidateVectorsOutcome),
        (candidate_matches, MatchOutcome))]
    assert (again[0].profiled, again[1].embedded, again[2].recomputed) == (0, 0, 0)
