"""The optional reranker against a real local HTTP server: both kinds, TEI, timeouts and fallbacks."""

from __future__ import annotations

import pytest

from jobpipe.search.rerank import RerankSettings, document_text, make_reranker, rerank
from jobpipe_tests.search.fake_rerank_server import RerankState, rerank_server

DOCS = ["Frontend engineer | Acme", "Go backend engineer, payments | Beta", "Office manager | Gamma"]


@pytest.mark.parametrize("kind", ["rerank", "chat"])
def test_reranker_reorders_by_the_models_scores(kind):
    with rerank_server() as (url, state):
        reranker = make_reranker(RerankSettings(url=url, kind=kind, model="m", api_key="k"))
        outcome = rerank(reranker, "go backend payments", DOCS)
    assert outcome.order == [1, 0, 2]
    assert outcome.info["applied"] is True and outcome.info["model"] == "m"
    assert outcome.scores[1] > outcome.scores[0]
    assert state.auth == ["Bearer k"]
    path, body = state.requests[0]
    assert path == ("/v1/rerank" if kind == "rerank" else "/v1/chat/completions")
    if kind == "rerank":
        assert body["documents"] == DOCS and body["top_n"] == 3 and body["model"] == "m"


def test_tei_endpoint_shape():
    with rerank_server() as (url, state):
        reranker = make_reranker(RerankSettings(url=url + "/rerank"))
        outcome = rerank(reranker, "office manager", DOCS)
    assert outcome.order[0] == 2 and state.requests[0][0] == "/rerank"


@pytest.mark.parametrize("setup, reason", [
    (RerankState(delay_ms=400), "timed out"),
    (RerankState(fail_with=503), "HTTP 503"),
    (RerankState(malformed=True), "scored 2 of 3"),
])
def test_failures_keep_the_fused_order_and_say_why(setup, reason):
    with rerank_server(setup) as (url, _):
        reranker = make_reranker(RerankSettings(url=url, timeout_ms=100))
        outcome = rerank(reranker, "go backend", DOCS)
    assert outcome.order == [0, 1, 2] and outcome.info["applied"] is False and reason in outcome.info["fallback"]


def test_chat_answer_that_is_not_scores_falls_back():
    with rerank_server(RerankState(malformed=True)) as (url, _):
        outcome = rerank(make_reranker(RerankSettings(url=url, kind="chat")), "go", DOCS)
    assert outcome.info["applied"] is False and "scores" in outcome.info["fallback"]


def test_unreachable_endpoint_falls_back():
    reranker = make_reranker(RerankSettings(url="http://127.0.0.1:9", timeout_ms=200))
    outcome = rerank(reranker, "go", DOCS)
    assert outcome.order == [0, 1, 2] and outcome.info["applied"] is False


def test_settings_from_env():
    assert make_reranker(RerankSettings.from_env({})) is None          # off unless configured
    s = RerankSettings.from_env({"JOBPIPE_RERANK_URL": "http://127.0.0.1:1", "JOBPIPE_RERANK_KIND": "chat",
                                 "JOBPIPE_RERANK_TIMEOUT_MS": "250", "JOBPIPE_RERANK_DEPTH": "20"})
    assert (s.kind, s.timeout_ms, s.depth) == ("chat", 250, 20)
    with pytest.raises(ValueError, match="JOBPIPE_RERANK_KIND"):
        RerankSettings.from_env({"JOBPIPE_RERANK_KIND": "magic"})


def test_document_text_is_posting_text_only():
    text = document_text({"title": "Data Engineer", "company": "Acme", "cities": ["Berlin"],
                          "description_text": "x " * 1000})
    assert text.startswith("Data Engineer | Acme | Berlin\n") and len(text) < 700


def test_search_reranks_the_top_results_and_keeps_the_fused_order_on_failure(db):
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import insert_job

    for i, title in enumerate(("Backend engineer", "Payments engineer", "Platform engineer")):
        insert_job(db, f"j{i}", title, description=f"{title} working on backend payments.")
    db.commit()
    query = "backend payments engineer"
    fused = [r.job_id for r in search(db, query, mode="keyword").results]
    assert len(fused) == 3
    last = search(db, query, mode="keyword").results[-1]
    with rerank_server(RerankState(prefer=last.title)) as (url, state):
        reranker = make_reranker(RerankSettings(url=url, depth=10))
        reranked = search(db, query, mode="keyword", rerank=True, reranker=reranker, debug=True)
        assert [r.job_id for r in reranked.results] == [last.job_id] + fused[:-1]
        assert reranked.rerank["applied"] is True and reranked.results[0].extra["rerank_score"] > 100
        assert "rerank" in reranked.timings_ms
        assert any("working on backend payments" in d for d in state.requests[0][1]["documents"])
        state.fail_with = 500
        failed = search(db, query, mode="keyword", rerank=True, reranker=reranker)
    assert [r.job_id for r in failed.results] == fused
    assert failed.rerank["applied"] is False and "HTTP 500" in failed.rerank["fallback"]
    assert any("fused order" in n for n in failed.notes)
    unconfigured = search(db, query, mode="keyword", rerank=True)
    assert unconfigured.rerank == {"applied": False, "fallback": "no reranker configured"}
    with rerank_server(RerankState(prefer=last.title)) as (url, _):
        top1 = search(db, query, mode="keyword", rerank=True, top_k=1,
                      reranker=make_reranker(RerankSettings(url=url, depth=10)))
    assert [r.job_id for r in top1.results] == [last.job_id]   # reranked over the depth, then cut to top_k


def test_http_api_reranks_when_asked_and_says_so(db, database, monkeypatch):
    from fastapi.testclient import TestClient

    from jobpipe.service.api import create_app
    from jobpipe.service.settings import ServiceSettings
    from jobpipe_tests.search.helpers import ConceptEmbedder, insert_job

    for i, title in enumerate(("Backend engineer", "Payments engineer")):
        insert_job(db, f"j{i}", title, description=f"{title}, backend payments.")
    db.commit()
    with rerank_server(RerankState(prefer="Payments engineer")) as (url, _):
        monkeypatch.setenv("JOBPIPE_RERANK_URL", url)
        app = create_app(ServiceSettings(), database_url=database, embedder=ConceptEmbedder())
        with TestClient(app) as client:
            plain = client.post("/search", json={"query": "backend payments engineer"}).json()
            assert plain["rerank"] is None and all(r["rerank_score"] is None for r in plain["results"])
            body = client.post("/search", json={"query": "backend payments engineer", "rerank": True}).json()
    assert body["rerank"]["applied"] is True
    assert body["results"][0]["title"] == "Payments engineer" and body["results"][0]["rerank_score"] > 100
