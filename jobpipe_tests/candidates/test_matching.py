"""Matching against fixture jobs and vectors in the real database."""

from __future__ import annotations

import pytest

from jobpipe.candidates import (
    MatchError,
    UnknownCandidateError,
    compute_matches,
    match,
    parse_resume,
    upsert_candidates,
)
from jobpipe.candidates.matching import SKILL_WEIGHT, VECTOR_WEIGHT
from jobpipe.normalize import canonical_skill
from jobpipe.search.types import SearchFilters
from jobpipe.store import sync_candidate_embeddings
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND
from jobpipe_tests.service.support import HashEmbedder, embed_jobs, insert_jobs


@pytest.fixture
def jobs(db):
    ids = insert_jobs(db)
    embed_jobs(db, HashEmbedder())
    return ids


def test_resume_text_ranks_the_fitting_job_first_with_skill_evidence(db, jobs):
    results = match(db, resume_text=EN_ML, top_k=3, embedder=HashEmbedder())
    assert len(results) == 3
    top = results[0]
    assert top.job_id == jobs["ml-ny"]
    assert set(top.matched_skills) == {canonical_skill("python"), canonical_skill("pytorch"),
                                       canonical_skill("kubernetes")}
    assert top.missing_skills == [] and top.skill_overlap == 1.0
    assert top.score == pytest.approx(VECTOR_WEIGHT * top.vector_similarity + SKILL_WEIGHT * top.skill_overlap)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    go = next((r for r in match(db, resume_text=EN_ML, top_k=10, embedder=HashEmbedder())
               if r.job_id == jobs["go-sf"]), None)
    assert go is not None and canonical_skill("go") in go.missing_skills
    assert canonical_skill("kubernetes") in go.matched_skills


def test_closed_jobs_are_never_matched_by_default(db, jobs):
    ids = {r.job_id for r in match(db, resume_text="数据分析 SQL Python Tableau", top_k=20, embedder=HashEmbedder())}
    assert jobs["da-sz"] not in ids and len(ids) == len(jobs) - 1


def test_filters_apply_to_matches(db, jobs):
    results = match(db, resume_text=ZH_BACKEND, filters=SearchFilters(city="北京"), top_k=10,
                    embedder=HashEmbedder())
    assert {r.job_id for r in results} == {jobs["py-bj"], jobs["evil"]}
    assert results[0].job_id == jobs["py-bj"]
    interns = match(db, resume_text=ZH_BACKEND, filters=SearchFilters(job_type="intern"), embedder=HashEmbedder())
    assert [r.job_id for r in interns] == [jobs["llm-sh"]]


def test_stored_candidate_uses_its_stored_vector(db, jobs):
    upsert_candidates(db, [parse_resume("fe", EN_FRONTEND)])
    sync_candidate_embeddings(db, HashEmbedder())
    # No embedder: only the stored vector can be used.
    results = match(db, candidate_id="fe", top_k=1, embedder=None)
    assert results[0].job_id == jobs["fe-remote"]
    assert results[0].skill_overlap == 1.0


def test_stored_candidate_without_vector_is_embedded_on_the_fly(db, jobs):
    upsert_candidates(db, [parse_resume("fe", EN_FRONTEND)])
    assert match(db, candidate_id="fe", top_k=1, embedder=HashEmbedder())[0].job_id == jobs["fe-remote"]
    with pytest.raises(MatchError, match="embedder is needed"):
        match(db, candidate_id="fe", embedder=None)


def test_errors_say_what_is_wrong(db, jobs):
    with pytest.raises(UnknownCandidateError, match="unknown candidate_id 'ghost'"):
        match(db, candidate_id="ghost", embedder=HashEmbedder())
    with pytest.raises(ValueError, match="exactly one"):
        match(db, candidate_id="a", resume_text="b", embedder=HashEmbedder())

    other = HashEmbedder()
    other.model = "another-model"
    with pytest.raises(MatchError, match="active model 'test-hash-64'"):
        match(db, resume_text=EN_ML, embedder=other)


def test_no_active_model(db):
    insert_jobs(db)
    with pytest.raises(MatchError, match="no active embedding model"):
        match(db, resume_text=EN_ML, embedder=HashEmbedder())


def test_compute_matches_writes_each_candidates_top_jobs(db, jobs):
    upsert_candidates(db, [parse_resume("ml", EN_ML), parse_resume("zh", ZH_BACKEND), parse_resume("fe", EN_FRONTEND)])
    sync_candidate_embeddings(db, HashEmbedder())
    written = compute_matches(db, HashEmbedder(), top_k=3)
    assert written == 9
    rows = db.execute("SELECT candidate_id, job_id, rank, score, vector_score, skill_score, matched_skills, "
                      "missing_skills, model FROM candidate_matches ORDER BY candidate_id, rank").fetchall()
    assert [(r[0], r[2]) for r in rows] == [(c, k) for c in ("fe", "ml", "zh") for k in (1, 2, 3)]
    by_candidate = {c: [r for r in rows if r[0] == c] for c in ("fe", "ml", "zh")}
    assert by_candidate["ml"][0][1] == jobs["ml-ny"] and by_candidate["fe"][0][1] == jobs["fe-remote"]
    assert by_candidate["zh"][0][1] == jobs["py-bj"]
    assert all(r[1] != jobs["da-sz"] for r in rows) and all(r[8] == "test-hash-64" for r in rows)
    for r in rows:
        assert r[3] == pytest.approx(VECTOR_WEIGHT * r[4] + SKILL_WEIGHT * r[5])
    # A rerun replaces rows rather than adding to them; a smaller top_k leaves no stale ranks.
    assert compute_matches(db, HashEmbedder(), top_k=2) == 6
    assert db.execute("SELECT max(rank), count(*) FROM candidate_matches").fetchone() == (2, 6)
