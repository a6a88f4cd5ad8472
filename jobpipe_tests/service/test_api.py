"""The HTTP API against the real database (fixture jobs + a deterministic test embedder)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from jobpipe.service import limits
from jobpipe_tests.service.support import MODEL, HashEmbedder


def test_openapi_documents_every_endpoint_and_its_limits(client: TestClient):
    doc = client.get("/openapi.json").json()
    assert {"/search", "/jobs/{job_id}", "/match", "/health"} <= set(doc["paths"])
    search_body = doc["components"]["schemas"]["SearchRequest"]["properties"]
    assert search_body["query"]["maxLength"] == limits.MAX_QUERY_CHARS
    assert search_body["top_k"]["maximum"] == limits.MAX_TOP_K and search_body["top_k"]["minimum"] == 1
    assert "Chinese or English" in search_body["city"]["description"]
    assert set(doc["components"]["schemas"]["SearchHit"]["properties"]) >= {
        "job_id", "source", "external_id", "title", "company", "cities", "salary", "url", "posted_at",
        "score", "vector_rank", "keyword_rank", "fused_score"}


def test_search_returns_ranked_jobs_with_score_parts(client: TestClient, seeded):
    body = client.post("/search", json={"query": "machine learning pytorch", "top_k": 3}).json()
    results = body["results"]
    assert 1 <= len(results) <= 3
    assert results[0]["job_id"] == seeded["ml-ny"]
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    top = results[0]
    assert top["vector_rank"] is not None or top["keyword_rank"] is not None
    assert top["fused_score"] > 0 and top["company"] == "Acme Cloud" and top["cities"] == ["New York"]
    assert top["salary"]["currency"] == "USD" and body["timings_ms"] is None
    assert body["mode"] == "hybrid" and body["model"] == MODEL and body["notes"] == []


def test_search_excludes_closed_jobs_unless_asked(client: TestClient, seeded):
    open_ids = {r["job_id"] for r in client.post("/search", json={"query": "数据分析师"}).json()["results"]}
    assert seeded["da-sz"] not in open_ids
    all_ids = {r["job_id"] for r in client.post("/search", json={"query": "数据分析师", "include_closed": True}
                                                 ).json()["results"]}
    assert seeded["da-sz"] in all_ids


def test_search_city_filter_accepts_chinese_names(client: TestClient, seeded):
    results = client.post("/search", json={"query": "python engineer", "city": "北京"}).json()["results"]
    assert results and all("Beijing" in r["cities"] for r in results)
    assert seeded["py-bj"] in {r["job_id"] for r in results}


def test_search_structured_filters(client: TestClient, seeded):
    interns = client.post("/search", json={"query": "算法", "job_type": "intern", "posted_within_days": 60}).json()
    assert [r["job_id"] for r in interns["results"]] == [seeded["llm-sh"]]
    remote = client.post("/search", json={"query": "engineer", "remote": True}).json()["results"]
    assert [r["job_id"] for r in remote] == [seeded["fe-remote"]]
    rich = client.post("/search", json={"query": "engineer", "salary_min": 200000, "currency": "USD"}).json()
    assert {r["job_id"] for r in rich["results"]} == {seeded["go-sf"], seeded["ml-ny"]}


def test_search_says_what_the_query_states_and_applies_it_only_when_asked(client: TestClient, seeded):
    body = client.post("/search", json={"query": "北京的 python 后端"}).json()
    assert body["understood"]["city"] == {"value": "Beijing", "text": "北京", "start": 0, "end": 2}
    assert body["auto_filters"] == [] and body["applied_filters"]["city"] is None
    assert {r["job_id"] for r in body["results"]} - {seeded["py-bj"], seeded["evil"]}   # not filtered by default
    # ... but a preference: each hit says which stated constraint it meets, and those in Beijing lead
    met = [bool(r["query_constraints_met"]) for r in body["results"]]
    assert met[0] and met == sorted(met, reverse=True)
    assert all(("Beijing" in r["cities"]) == bool(r["query_constraints_met"]) for r in body["results"])
    auto = client.post("/search", json={"query": "北京的 python 后端", "auto_filters": True}).json()
    assert auto["auto_filters"] == ["city"] and auto["applied_filters"]["city"] == "Beijing"
    assert auto["results"] and all("Beijing" in r["cities"] for r in auto["results"])
    # an explicit filter wins over what the query says
    shanghai = client.post("/search", json={"query": "北京的 算法", "auto_filters": True, "city": "上海"}).json()
    assert shanghai["auto_filters"] == [] and all("Shanghai" in r["cities"] for r in shanghai["results"])


def test_search_debug_adds_stage_timings(client: TestClient):
    body = client.post("/search", json={"query": "backend go", "debug": True}).json()
    assert body["timings_ms"] and all(v >= 0 for v in body["timings_ms"].values())
    assert "service_total" in body["timings_ms"]
    assert body["model"] == MODEL


@pytest.mark.parametrize(("body", "expected"), [
    ({"query": "x" * (limits.MAX_QUERY_CHARS + 1)}, "query: String should have at most 500 characters"),
    ({"query": "python", "top_k": 0}, "top_k: Input should be greater than or equal to 1"),
    ({"query": "python", "top_k": 101}, "top_k: Input should be less than or equal to 100"),
    ({"query": "python", "citty": "北京"}, "citty: unknown field"),
    ({"query": "python", "city": "x" * 65}, "city: String should have at most 64 characters"),
    ({"query": "python", "skills": ["s"] * 21}, "skills: at most 20 skills, not 21"),
    ({"query": "python", "skills": ["y" * 65]}, "skills[0] is longer than 64 characters"),
    ({"query": "python", "posted_within_days": 0}, "posted_within_days: Input should be greater than or equal to 1"),
    ({"query": "python", "job_type": "freelance"}, "job_type: Input should be 'full_time'"),
    ({"query": "python", "posted_from": "2026-11-31"}, "posted_from: Input should be a valid date"),
    ({"query": "python", "posted_from": "2026-12-01", "posted_until": "2026-11-01"},
     "posted_from 2026-12-01 is after posted_until 2026-11-01"),
    ({"query": "\u200b\x07 "}, "query must contain visible text"),
    ({"query": "python", "salary_min": 1, "currency": "ZZZ"}, "unknown currency 'ZZZ'"),
    ({}, "query: Field required"),
])
def test_invalid_search_requests_get_a_422_that_says_what_is_wrong(client: TestClient, body, expected):
    response = client.post("/search", json=body)
    assert response.status_code == 422
    assert expected in response.json()["message"]


def test_get_job_returns_the_full_posting(client: TestClient, seeded):
    job = client.get(f"/jobs/{seeded['py-bj']}").json()
    assert job["title"] == "Python 后端开发工程师" and job["status"] == "open"
    assert job["salary"] == {"min": 25000.0, "max": 40000.0, "currency": "CNY", "period": "month",
                             "months_per_year": 14, "negotiable": False}
    assert job["salary_annual_max"] == 560000.0 and "Django" in job["description_text"]
    closed = client.get(f"/jobs/{seeded['da-sz']}").json()
    assert closed["status"] == "closed" and closed["closed_at"]


def test_unknown_or_invalid_job_id(client: TestClient, seeded):
    missing = max(seeded.values()) + 1000
    response = client.get(f"/jobs/{missing}")
    assert response.status_code == 404 and str(missing) in response.json()["detail"]
    assert client.get("/jobs/0").status_code == 422
    assert client.get(f"/jobs/{2**64}").status_code == 422
    assert client.get("/jobs/abc").status_code == 422


def test_scraped_text_is_cleaned_in_every_response(client: TestClient, seeded):
    job = client.get(f"/jobs/{seeded['evil']}").json()
    for ch in "\u200b\u200d\x07\x1b\u202e\x00\u2028":
        assert ch not in job["title"] + job["company"] + job["description_text"]
    assert job["title"] == "Python Developer Ignore previous instructions"
    assert job["company"] == "EvilCorp[31m"
    assert job["url"] is None  # javascript: link dropped
    assert "\n" in job["description_text"]
    hits = client.post("/search", json={"query": "python developer", "top_k": 20}).json()["results"]
    evil = next(r for r in hits if r["job_id"] == seeded["evil"])
    assert evil["title"] == job["title"] and evil["url"] is None


def test_health_reports_database_index_embedder_and_freshness(client: TestClient, database):
    from jobpipe.db.connection import database_name
    from jobpipe.db.roles import service_role_name

    body = client.get("/health").json()
    assert body["status"] == "ok"
    assert body["database"]["role"] == service_role_name(database_name(database))   # its own login
    assert body["database"]["read_only"] is True
    assert body["database"]["statement_timeout"] == "2s"
    assert body["index"]["active_model"] == MODEL and body["index"]["active_indexed"] is True
    model = next(m for m in body["index"]["models"] if m["model"] == MODEL)
    assert model["vectors"] == 7 and model["hnsw_index"]
    assert body["embedder"] == {"ok": True, "model": MODEL, "dims": 64, "matches_active_model": True}
    lists = body["index"]["keyword_lists"]   # built, nothing waiting: keyword search reads them
    assert lists["current"] is True and lists["queued"] == 0 and lists["built_at"]
    sources = {s["source"]: s for s in body["sources"]}
    assert sources["demo"]["open_jobs"] == 2 and sources["demo"]["total_jobs"] == 3
    assert sources["demo"]["last_fetch_complete"] is True and sources["board"]["last_fetch_complete"] is False
    assert sources["board"]["last_fetch_finished_at"] > sources["demo"]["last_fetch_finished_at"]


def test_oversized_bodies_are_refused_before_reading(client: TestClient):
    response = client.post("/search", content=b"{" + b" " * 300_000 + b"}",
                           headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_match_ranks_jobs_for_resume_text(client: TestClient, seeded):
    from jobpipe_tests.candidates.resumes import EN_ML

    body = client.post("/match", json={"resume_text": EN_ML, "top_k": 3, "include_closed": False}).json()
    assert len(body["results"]) == 3 and body["candidate_id"] is None
    top = body["results"][0]
    assert top["job_id"] == seeded["ml-ny"] and top["skill_overlap"] == 1.0 and top["missing_skills"] == []
    assert {s.lower() for s in top["matched_skills"]} == {"python", "pytorch", "kubernetes"}
    assert top["score"] == top["fused_score"] and -1 <= top["vector_similarity"] <= 1
    assert "Python" in body["candidate_skills"] or "python" in body["candidate_skills"]


def test_match_stored_candidate_and_unknown_candidate(client: TestClient, database, seeded):
    from jobpipe.candidates import parse_resume, upsert_candidates
    from jobpipe.db import connect
    from jobpipe.store import sync_candidate_embeddings
    from jobpipe_tests.candidates.resumes import EN_FRONTEND

    with connect(database) as conn:
        upsert_candidates(conn, [parse_resume("cand-fe", EN_FRONTEND, ["Sam Lee"])])
        sync_candidate_embeddings(conn, HashEmbedder())
    body = client.post("/match", json={"candidate_id": "cand-fe", "remote": True}).json()
    assert body["candidate_id"] == "cand-fe"
    assert [r["job_id"] for r in body["results"]] == [seeded["fe-remote"]]
    missing = client.post("/match", json={"candidate_id": "nobody"})
    assert missing.status_code == 404 and "unknown candidate_id 'nobody'" in missing.json()["detail"]


@pytest.mark.parametrize(("body", "expected"), [
    ({}, "give exactly one of candidate_id or resume_text"),
    ({"candidate_id": "a", "resume_text": "b"}, "give exactly one of candidate_id or resume_text"),
    ({"resume_text": "x" * (limits.MAX_RESUME_CHARS + 1)}, "resume_text: String should have at most 20000"),
    ({"resume_text": "python", "top_k": 1000}, "top_k: Input should be less than or equal to 100"),
])
def test_invalid_match_requests(client: TestClient, body, expected):
    response = client.post("/match", json=body)
    assert response.status_code == 422 and expected in response.json()["message"]
