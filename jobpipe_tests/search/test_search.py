"""search() against the real PostgreSQL: both legs, fusion, every filter, collapse, fallbacks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from jobpipe.search import SearchFilters, search
from jobpipe.search import core as core_module
from jobpipe.search import vector as vector_module
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.fusion import SCORE_GAIN
from jobpipe.search.vector import QUERY_CACHE, half_query, hnsw_params, hnsw_sql
from jobpipe.store.models import ModelInfo
from jobpipe_tests.search.helpers import DIMS, MODEL, ConceptEmbedder, activate_model, embed_jobs, embedded, insert_job


@pytest.fixture
def corpus(db):
    """A small bilingual catalogue; returns external_id -> job_id."""
    ids = {}
    ids["go_bj"] = insert_job(db, "go_bj", "后端开发工程师（Go）", company="字节跳动", cities=["Beijing"],
                              description="负责推荐系统后端服务开发，熟悉 Golang 和 Kubernetes，有高并发经验。",
                              job_type="full_time", skills=["Go", "Kubernetes"], posted_days_ago=3,
                              salary={"min": 30000, "max": 50000, "currency": "CNY", "period": "month",
                                      "annual_min": 360000, "annual_max": 600000})
    ids["go_sf"] = insert_job(db, "go_sf", "Senior Backend Engineer, Go", company="Acme", cities=["San Francisco"],
                              description="Build distributed payment services in Go on Kubernetes.",
                              job_type="full_time", skills=["Go"], posted_days_ago=40, dedupe_key="acme|backend|sf",
                              salary={"min": 150000, "max": 200000, "currency": "USD", "period": "year",
                                      "annual_min": 150000, "annual_max": 200000})
    ids["go_sf_copy"] = insert_job(db, "go_sf_copy", "Senior Backend Engineer (Go)", source="other_board",
                                   company="Acme Inc.", cities=["San Francisco"],
                                   description="Build distributed payment services in Go on Kubernetes.",
                                   job_type="full_time", skills=["Go"], posted_days_ago=41,
                                   dedupe_key="acme|backend|sf")
    ids["da_sh"] = insert_job(db, "da_sh", "数据分析实习生", company="哔哩哔哩", cities=["Shanghai"],
                              description="参与用户增长数据分析，熟练使用 SQL 和 Python，每周实习4天。",
                              job_type="intern", skills=["SQL", "Python"], posted_days_ago=1)
    ids["da_sg"] = insert_job(db, "da_sg", "Data Analyst", company="Shopee", cities=["Singapore"],
                              description="Analyse marketplace data with SQL and Python dashboards.",
                              job_type="full_time", remote="hybrid", skills=["SQL", "Python"], posted_days_ago=10)
    ids["sol"] = insert_job(db, "sol", "智能合约工程师（远程）", cities=[], remote="remote", job_type="contract",
                            description="使用 Solidity 开发 DeFi 协议，远程办公，按月结算 USDT。",
                            skills=["Solidity"], posted_days_ago=5,
                            salary={"min": 3000, "max": 5000, "currency": "USDT", "period": "month",
                                    "annual_min": 36000, "annual_max": 60000})
    ids["fe_closed"] = insert_job(db, "fe_closed", "前端开发工程师", cities=["Beijing"], job_type="full_time",
                                  description="React 前端开发。", closed=True, posted_days_ago=30)
    ids["vet"] = insert_job(db, "vet", "Veterinary assistant", company="Happy Paws Clinic", cities=["Beijing"],
                            description="Care for animals at our clinic.", job_type="part_time", posted_days_ago=2)
    db.commit()
    return ids


def _ids(response):
    return [r.external_id for r in response.results]


def test_chinese_query_finds_chinese_posting_by_keyword(db, corpus):
    response = search(db, "后端开发 推荐系统", mode="keyword")
    assert response.mode == "keyword"
    assert _ids(response)[0] == "go_bj"
    assert response.results[0].keyword_rank == 1 and response.results[0].vector_rank is None


def test_english_query_finds_english_posting_by_keyword(db, corpus):
    response = search(db, "payment services engineer", mode="keyword")
    assert _ids(response)[0] in {"go_sf", "go_sf_copy"}
    assert "da_sh" not in _ids(response)


def test_cross_lingual_keyword_match_through_term_dictionary(db, corpus):
    # "数据分析师" is not in the English posting; the bilingual term list adds "data analyst".
    response = search(db, "数据分析师", SearchFilters(city="新加坡"), mode="keyword")
    assert _ids(response) == ["da_sg"]


def test_title_match_outranks_description_mention(db, corpus):
    insert_job(db, "mentions", "运营专员", cities=["Shanghai"], description="与数据分析团队合作，偶尔需要看数据分析报表。")
    db.commit()
    response = search(db, "数据分析", mode="keyword")
    assert _ids(response)[0] == "da_sh"


def test_vector_leg_finds_what_keywords_cannot(db, corpus):
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    keyword_only = search(db, "宠物医院", mode="keyword")
    assert "vet" not in _ids(keyword_only)
    response = search(db, "宠物医院", embedder=embedder, debug=True)
    assert response.mode == "hybrid" and response.model == MODEL
    vet = next(r for r in response.results if r.external_id == "vet")
    assert vet.vector_rank == 1 and vet.keyword_rank is None
    assert {"embed", "vector", "fetch", "fuse", "total"} <= set(response.timings_ms)


def test_unfiltered_vector_query_can_use_the_partial_hnsw_index(db, corpus):
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    query = hnsw_sql(ModelInfo(MODEL, DIMS, "active"), build_filter_sql(SearchFilters()), 10)
    qv = embedder.embed_queries(["后端"])[0]
    params = {"qv": qv, "qh": half_query(qv)} | hnsw_params(100, 20_000)
    with db.transaction():
        # A handful of rows: make the planner's other options expensive, as they are at scale.
        db.execute("SET LOCAL enable_seqscan = off")
        db.execute("SET LOCAL enable_sort = off")
        plan = "\n".join(r[0] for r in db.execute(b"EXPLAIN " + query.as_bytes(db), params))
    assert "embeddings_half_hnsw_test" in plan


def test_the_hnsw_statement_makes_its_own_scan_settings(db):
    """ef_search, iterative scan and its bound are set by the statement itself, for it alone:
    with pgvector's defaults (ef_search 40, no iterative scan) 100 rows asked would come back 40."""
    from jobpipe.search.vector import VectorPlan, vector_candidates

    embedder = ConceptEmbedder()
    for i in range(150):
        insert_job(db, f"v{i}", f"Engineer {i}", description=f"role number {i} with skill{i % 17}")
    activate_model(db)
    embed_jobs(db, embedder)
    fsql = build_filter_sql(SearchFilters())
    hits = vector_candidates(db, ModelInfo(MODEL, DIMS, "active"), embedder.embed_queries(["engineer"])[0], fsql,
                             100, VectorPlan("hnsw", None))
    assert len(hits) == 100 and len({h.job_id for h in hits}) == 100
    db.commit()
    assert db.execute("SHOW hnsw.ef_search").fetchone()[0] == "40"   # nothing left behind
    db.commit()


def test_more_rows_than_ef_search_can_bound_are_scanned_for_not_refused(db):
    """pgvector refuses hnsw.ef_search above 1000: a deeper request is capped there and the
    iterative scan goes on (a library caller's top_k of 500 asks each leg for 1020 rows)."""
    from jobpipe.search.vector import EF_SEARCH_MAX, VectorPlan, vector_candidates

    # Distinct random vectors: the concept embedder gives these near-identical titles a handful
    # of distinct vectors, and an HNSW graph of duplicates is what no scan gets through.
    rng = np.random.default_rng(7)
    ids = [insert_job(db, f"d{i}", f"Engineer {i}") for i in range(EF_SEARCH_MAX + 60)]
    raw = rng.normal(size=(len(ids), DIMS)).astype(np.float32)
    activate_model(db)
    embed_jobs(db, ConceptEmbedder(), {job_id: v / np.linalg.norm(v) for job_id, v in zip(ids, raw)})
    query = rng.normal(size=DIMS).astype(np.float32)
    hits = vector_candidates(db, ModelInfo(MODEL, DIMS, "active"), query / np.linalg.norm(query),
                             build_filter_sql(SearchFilters()), EF_SEARCH_MAX + 20, VectorPlan("hnsw", None))
    assert len({h.job_id for h in hits}) == EF_SEARCH_MAX + 20


def test_rrf_puts_a_posting_found_by_both_legs_first(db, corpus):
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    response = search(db, "数据分析 SQL Python", embedder=embedder, top_k=5)
    first = response.results[0]
    assert first.vector_rank is not None and first.keyword_rank is not None
    scores = [r.fused_score for r in response.results]
    assert scores == sorted(scores, reverse=True)
    # Each leg contributes (1 + gain * normalized score) / (60 + rank): between 1x and (1+gain)x plain RRF.
    plain = 1 / (60 + first.vector_rank) + 1 / (60 + first.keyword_rank)
    assert plain <= first.score <= (1 + max(SCORE_GAIN.values())) * plain


@pytest.mark.parametrize("city", ["北京", "Beijing", "beijing", "北京市"])
def test_city_filter_accepts_chinese_and_english(db, corpus, city):
    response = search(db, "工程师 engineer assistant", SearchFilters(city=city), mode="keyword")
    assert set(_ids(response)) == {"go_bj", "vet"}   # fe_closed is Beijing too, but closed


def test_job_type_filter(db, corpus):
    response = search(db, "数据 data", SearchFilters(job_type="intern"), mode="keyword")
    assert _ids(response) == ["da_sh"]
    with pytest.raises(ValueError):
        search(db, "x", SearchFilters(job_type="gig"))


def test_remote_filter_means_fully_remote(db, corpus):
    remote = search(db, "工程师 analyst", SearchFilters(remote=True), mode="keyword")
    assert _ids(remote) == ["sol"]    # the hybrid Data Analyst is not remote
    not_remote = search(db, "工程师 analyst", SearchFilters(remote=False), mode="keyword")
    assert "sol" not in _ids(not_remote) and "da_sg" in _ids(not_remote)


def test_salary_filter_same_and_converted_currency(db, corpus):
    usd = search(db, "engineer 工程师", SearchFilters(salary_min=100_000, currency="USD"), mode="keyword")
    # 600k CNY/year is ~84k USD: below 100k USD. The USD posting qualifies; unknown salaries never do.
    assert _ids(usd) == ["go_sf"]
    cny = search(db, "engineer 工程师", SearchFilters(salary_min=500_000, currency="CNY"), mode="keyword")
    assert set(_ids(cny)) == {"go_bj", "go_sf"}    # 200k USD is ~1.4M CNY
    usdt = search(db, "合约", SearchFilters(salary_min=50_000, currency="usdt"), mode="keyword")
    assert _ids(usdt) == ["sol"]


def test_skills_filter_requires_all(db, corpus):
    both = search(db, "工程师 engineer", SearchFilters(skills=("Go", "Kubernetes")), mode="keyword")
    assert _ids(both) == ["go_bj"]
    any_case = search(db, "data 数据", SearchFilters(skills=("sql", "PYTHON")), mode="keyword")
    assert set(_ids(any_case)) == {"da_sh", "da_sg"}


def test_posted_within_days_filter(db, corpus):
    response = search(db, "engineer 工程师 数据 data", SearchFilters(posted_within_days=7), mode="keyword")
    assert set(_ids(response)) == {"go_bj", "da_sh", "sol"}


def test_posted_window_filter_keeps_whole_utc_days_in_both_legs(db, corpus):
    today = datetime.now(timezone.utc).date()
    window = SearchFilters(posted_from=today - timedelta(days=12), posted_until=today - timedelta(days=4))
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    query = "engineer 工程师 数据 data 合约"
    for mode in ("keyword", "vector", "hybrid"):
        assert set(_ids(search(db, query, window, embedder=embedder, mode=mode))) == {"da_sg", "sol"}, mode
    # The days named are included whole: posted 10 days ago is inside a window ending that day.
    last = SearchFilters(posted_until=today - timedelta(days=10))
    shown = search(db, query, last, mode="keyword", collapse_duplicates=False)
    assert set(_ids(shown)) == {"da_sg", "go_sf", "go_sf_copy"}
    assert "da_sg" in _ids(search(db, query, SearchFilters(posted_from=today - timedelta(days=10)), mode="keyword"))


def test_closed_postings_excluded_by_default(db, corpus):
    assert "fe_closed" not in _ids(search(db, "前端开发", mode="keyword"))
    assert "fe_closed" in _ids(search(db, "前端开发", SearchFilters(include_closed=True), mode="keyword"))


def test_duplicates_collapse_to_the_best_result(db, corpus):
    collapsed = search(db, "Senior Backend Engineer Go", SearchFilters(city="SF"), mode="keyword")
    assert len(collapsed.results) == 1
    shown = collapsed.results[0]
    other = {"go_sf": corpus["go_sf_copy"], "go_sf_copy": corpus["go_sf"]}[shown.external_id]
    assert shown.extra["duplicate_job_ids"] == [other]
    expanded = search(db, "Senior Backend Engineer Go", SearchFilters(city="SF"), mode="keyword",
                      collapse_duplicates=False)
    assert set(_ids(expanded)) == {"go_sf", "go_sf_copy"}


@pytest.mark.parametrize("forced_hnsw", [False, True])
def test_selective_filter_is_not_starved(db, monkeypatch, forced_hnsw):
    """3 matching postings far from the query among 200 near ones: all 3 must come back."""
    embedder = ConceptEmbedder()
    rng = np.random.default_rng(7)
    query_vector = embedder.embed_queries(["后端 工程师"])[0]
    vectors = {}
    for i in range(200):
        job_id = insert_job(db, f"near{i}", f"后端工程师 {i}", cities=["Shenzhen"])
        vectors[job_id] = query_vector + rng.normal(0, 0.05, DIMS).astype(np.float32)
    for i in range(3):
        job_id = insert_job(db, f"far{i}", f"后端工程师 far {i}", cities=["Hangzhou"])
        vectors[job_id] = -query_vector + rng.normal(0, 0.05, DIMS).astype(np.float32)
    db.commit()
    activate_model(db)
    embed_jobs(db, embedder, vectors)
    db.execute("ANALYZE jobs")
    db.execute("ANALYZE job_embeddings")
    if forced_hnsw:
        monkeypatch.setattr(vector_module, "EXACT_MAX_ROWS", 0)
    response = search(db, "后端 工程师", SearchFilters(city="杭州"), embedder=embedder, mode="vector", debug=True)
    assert response.debug["vector_plan"]["method"] == ("hnsw_iterative" if forced_hnsw else "exact")
    # Forced onto HNSW, the scan finds fewer rows than asked and the exact scan answers.
    assert response.debug["vector_plan"]["fallback"] is forced_hnsw
    assert sorted(_ids(response)) == ["far0", "far1", "far2"]
    assert all(r.vector_rank is not None for r in response.results)


def test_no_embeddings_yet_means_keyword_only(db, corpus):
    response = search(db, "后端开发", embedder=ConceptEmbedder())
    assert response.mode == "keyword"
    assert any("no active embedding model" in n for n in response.notes)
    assert _ids(response)[0] == "go_bj"


def test_no_embedder_means_keyword_only_and_says_so(db, corpus):
    activate_model(db)
    embed_jobs(db, ConceptEmbedder())
    response = search(db, "后端开发")
    assert response.mode == "keyword" and response.results
    assert any("no embedder" in n for n in response.notes)
    vector_mode = search(db, "后端开发", mode="vector")
    assert vector_mode.mode == "keyword" and vector_mode.results


def test_embedder_of_another_model_is_not_mixed(db, corpus):
    activate_model(db)
    embed_jobs(db, ConceptEmbedder())
    other = ConceptEmbedder()
    other.model = "some-other-model"
    response = search(db, "后端开发", embedder=other)
    assert response.mode == "keyword"
    assert any("not the active model" in n for n in response.notes)


def test_repeated_query_embedding_comes_from_cache(db, corpus):
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    QUERY_CACHE.clear()
    first = search(db, "Data Analyst SQL", embedder=embedder, debug=True)
    second = search(db, "Data  Analyst SQL ", embedder=embedder, debug=True)
    assert embedder.query_calls == 1
    assert first.debug["embed_cached"] is False and second.debug["embed_cached"] is True
    assert _ids(first) == _ids(second)


def test_query_of_only_filter_words_lists_newest_matches(db, corpus):
    response = search(db, "实习", SearchFilters(job_type="intern"))
    assert response.mode == "browse" and _ids(response) == ["da_sh"]
    newest = search(db, "", SearchFilters(city="Beijing"))
    assert _ids(newest) == ["vet", "go_bj"]     # posted 2 and 3 days ago


def test_result_shape(db, corpus):
    result = search(db, "智能合约 Solidity", mode="keyword").results[0]
    assert result.external_id == "sol" and result.source == "test"
    assert result.salary == {"min": 3000.0, "max": 5000.0, "currency": "USDT", "period": "month",
                             "months_per_year": None, "negotiable": False}
    assert result.posted_at is not None and result.cities == []
    assert result.score == result.fused_score > 0


@pytest.mark.parametrize("filters", [SearchFilters(), SearchFilters(city="北京"), SearchFilters(job_type="intern"),
                                     SearchFilters(remote=True), SearchFilters(salary_min=100_000, currency="USD")])
def test_legs_side_by_side_on_two_connections_answer_exactly_as_in_turn(db, corpus, database, filters):
    from jobpipe.db import connect

    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    db.commit()
    query = "后端 Go 数据分析 SQL remote"
    alone = search(db, query, filters, embedder=embedder, top_k=8, debug=True)
    with connect(database, autocommit=True) as other:
        together = search(db, query, filters, embedder=embedder, top_k=8, debug=True, keyword_conn=other)
    assert [(r.job_id, r.vector_rank, r.keyword_rank, r.score) for r in together.results] == \
        [(r.job_id, r.vector_rank, r.keyword_rank, r.score) for r in alone.results]
    assert together.mode == alone.mode == "hybrid" and together.results
    assert {"vector", "keyword", "total"} <= set(together.timings_ms)
    assert together.debug["keyword_concepts"] == alone.debug["keyword_concepts"]
    # Where the keyword leg's time went, in both ways of running it: its parts add up to it.
    for response in (alone, together):
        parts = response.debug["keyword_ms"]
        assert set(parts) == {"prepare", "statement"} and parts["statement"] > 0
        assert sum(parts.values()) == pytest.approx(response.timings_ms["keyword"], abs=0.01)


def test_the_exact_scan_cap_grows_with_the_square_root_of_the_table():
    cap = vector_module.exact_max_rows
    reference, base = vector_module.EXACT_REFERENCE_ROWS, vector_module.EXACT_MAX_ROWS
    assert cap(reference) == base
    assert cap(reference / 10) == base            # never below the measured cap
    assert cap(0) == base
    assert cap(4 * reference) == 2 * base
    assert cap(100 * reference) == 10 * base


def test_a_larger_table_scans_a_filter_exactly_that_a_small_one_would_walk(db, monkeypatch):
    """choose_plan reads the table's size: the same 3-row filter is exact past the fixed cap."""
    embedder = ConceptEmbedder()
    rng = np.random.default_rng(3)
    vectors = {}
    for i in range(200):
        vectors[insert_job(db, f"near{i}", f"后端工程师 {i}", cities=["Shenzhen"])] = rng.normal(0, 1, DIMS).astype(np.float32)
    for i in range(3):
        vectors[insert_job(db, f"far{i}", f"后端工程师 far {i}", cities=["Hangzhou"])] = rng.normal(0, 1, DIMS).astype(np.float32)
    db.commit()
    activate_model(db)
    embed_jobs(db, embedder, vectors)
    db.execute("ANALYZE jobs")
    db.execute("ANALYZE job_embeddings")
    fsql = build_filter_sql(SearchFilters(city="杭州"))
    monkeypatch.setattr(vector_module, "EXACT_MAX_ROWS", 2)
    monkeypatch.setattr(vector_module, "EXACT_REFERENCE_ROWS", 1_000_000)   # 203 rows: the fixed cap of 2
    assert vector_module.choose_plan(db, fsql).method == "hnsw_iterative"
    monkeypatch.setattr(vector_module, "EXACT_REFERENCE_ROWS", 20)          # 203 rows ~ 10x: cap 2 * sqrt(10)
    plan = vector_module.choose_plan(db, fsql)
    assert (plan.method, plan.filter_rows) == ("exact", 3)


@pytest.mark.parametrize(("filters", "covered"), [
    (SearchFilters(remote=True), True), (SearchFilters(remote=True, salary_min=50_000), True),
    (SearchFilters(job_type="intern"), True), (SearchFilters(job_type="full_time"), False),
    (SearchFilters(city="Beijing"), False), (SearchFilters(remote=True, city="Beijing"), False),
    (SearchFilters(remote=True, include_closed=True), False),
], ids=["remote", "remote+salary", "intern", "full_time", "city", "remote+city", "remote+closed"])
def test_a_filter_read_from_a_covering_index_is_scanned_exactly_further(db, monkeypatch, filters, covered):
    """Its exact scan costs about half as much per match (sql/0034-0035), so its cap is higher:
    an estimate just past the plain cap stays exact for it and walks the graph for the rest."""
    fsql = build_filter_sql(filters)
    assert vector_module.covered(fsql) is covered
    assert not vector_module.covered(fsql, vector_module.COVERED_MAX_DIMS + 1)   # too wide for the index
    rows = int(vector_module.EXACT_MAX_ROWS * 1.1)
    monkeypatch.setattr(vector_module, "_estimated_rows", lambda conn, f: rows)
    monkeypatch.setattr(vector_module, "_embedded_rows", lambda conn: float(vector_module.EXACT_REFERENCE_ROWS))
    assert vector_module.choose_plan(db, fsql).method == ("exact" if covered else "hnsw_iterative")
    monkeypatch.setattr(vector_module, "_estimated_rows", lambda conn, f: 2 * vector_module.EXACT_MAX_ROWS)
    assert vector_module.choose_plan(db, fsql).method == "hnsw_iterative"


def test_a_posting_listing_the_skill_the_query_names_is_lifted(db, monkeypatch):
    """Two postings alike in words and meaning; only one lists Kubernetes among its skills."""
    prose = "平台团队招聘，日常工作涉及 Kubernetes 集群运维与发布流程。"
    mention = insert_job(db, "mention", "平台工程师", description=prose, job_type="full_time")
    listed = insert_job(db, "listed", "平台工程师", description=prose, job_type="full_time", skills=["Kubernetes"])
    db.commit()
    embedder = embedded(db)

    response = search(db, "Kubernetes 平台工程师", embedder=embedder, top_k=5, debug=True)
    order = [r.job_id for r in response.results]
    assert order.index(listed) < order.index(mention)
    assert response.debug["query_stated"] == {"skills": ["Kubernetes"], "seniority": [], "constraints": []}
    held = {r.job_id: r.extra.get("query_skills_held") for r in response.results}
    assert held[listed] == ["Kubernetes"] and held[mention] is None

    monkeypatch.setitem(core_module.LEG_WEIGHTS, "skills", 0.0)   # without it: the tie goes to the older id
    order = [r.job_id for r in search(db, "Kubernetes 平台工程师", embedder=embedder, top_k=5).results]
    assert order.index(mention) < order.index(listed)

    # A filter that already requires the skill leaves nothing for the list to tell apart.
    response = search(db, "Kubernetes 平台工程师", SearchFilters(skills=["kubernetes"]), embedder=embedder, debug=True)
    assert "query_stated" not in response.debug
    # Single-leg modes stay single-leg (they are the comparison).
    assert "query_stated" not in search(db, "Kubernetes 平台工程师", embedder=embedder, mode="vector", debug=True).debug


def test_a_posting_at_the_seniority_the_query_states_is_lifted(db, monkeypatch):
    """Two postings alike in words and meaning; the normalizer read "senior" from one title only."""
    prose = "Build data pipelines and dashboards for the finance team."
    plain = insert_job(db, "plain", "Data engineer, finance", description=prose + " Senior stakeholders.")
    senior = insert_job(db, "senior", "Data engineer, finance", description=prose + " Senior stakeholders.")
    db.execute("UPDATE jobs SET seniority = 'senior' WHERE job_id = %s", (senior,))
    db.commit()
    embedder = embedded(db)

    response = search(db, "senior data engineer finance", embedder=embedder, top_k=5, debug=True)
    order = [r.job_id for r in response.results]
    assert order.index(senior) < order.index(plain)
    assert response.debug["query_stated"]["seniority"] == ["senior"]
    extra = {r.job_id: r.extra for r in response.results}
    assert extra[senior]["query_seniority_held"] == "senior" and "query_seniority_held" not in extra[plain]

    monkeypatch.setitem(core_module.LEG_WEIGHTS, "seniority", 0.0)   # without it: the tie goes to the older id
    order = [r.job_id for r in search(db, "senior data engineer finance", embedder=embedder, top_k=5).results]
    assert order.index(plain) < order.index(senior)


def test_every_level_a_query_names_and_those_between_are_lifted(db, monkeypatch):
    """"lead or principal": a staff posting is between the two, a senior one below both."""
    prose = "Model customer churn and pricing for the analytics team."
    ids = {}
    for level in ("senior", "staff", "lead", "principal"):
        ids[level] = insert_job(db, level, "Data scientist, analytics", description=prose)
        db.execute("UPDATE jobs SET seniority = %s WHERE job_id = %s", (level, ids[level]))
    db.commit()
    embedder = embedded(db)

    response = search(db, "lead or principal data scientist analytics", embedder=embedder, top_k=5, debug=True)
    assert response.understood.seniority.value == "principal"          # the most senior named
    assert response.debug["query_stated"]["seniority"] == ["lead", "staff", "principal"]
    held = {r.job_id: r.extra.get("query_seniority_held") for r in response.results}
    assert [held[ids[level]] for level in ("senior", "staff", "lead", "principal")] == [None, "staff", "lead",
                                                                                        "principal"]
    order = [r.job_id for r in response.results]
    assert order[-1] == ids["senior"]      # the oldest id: first of the four without the list
    monkeypatch.setitem(core_module.LEG_WEIGHTS, "seniority", 0.0)
    assert search(db, "lead or principal data scientist analytics", embedder=embedder).results[0].job_id == ids["senior"]


def test_a_posting_meeting_a_constraint_no_filter_applies_is_lifted(db, monkeypatch):
    """"上海 数据分析" without a city filter (auto_filters off, the API's default): the Shanghai
    posting goes ahead of its Beijing twin; with auto_filters the city is a filter instead."""
    prose = "负责用户增长数据分析，熟练使用 SQL。"
    beijing = insert_job(db, "bj", "数据分析师", cities=["Beijing"], description=prose, job_type="full_time")
    shanghai = insert_job(db, "sh", "数据分析师", cities=["Shanghai"], description=prose, job_type="full_time")
    db.commit()
    embedder = embedded(db)

    response = search(db, "上海 数据分析师", embedder=embedder, top_k=5, debug=True)
    order = [r.job_id for r in response.results]
    assert order == [shanghai, beijing]          # nothing dropped: a preference, not a filter
    assert response.debug["query_stated"]["constraints"] == ["city"]
    extra = {r.job_id: r.extra for r in response.results}
    assert extra[shanghai]["query_constraints_met"] == ["city"] and "query_constraints_met" not in extra[beijing]

    with_list = {r.job_id: r.score for r in response.results}
    monkeypatch.setitem(core_module.LEG_WEIGHTS, "constraints", 0.0)
    without = {r.job_id: r.score for r in search(db, "上海 数据分析师", embedder=embedder, top_k=5).results}
    assert with_list[shanghai] - without[shanghai] == pytest.approx(1 / 61, abs=1e-6)   # first of the list
    assert with_list[beijing] == pytest.approx(without[beijing], abs=1e-6)

    applied = search(db, "上海 数据分析师", embedder=embedder, top_k=5, auto_filters=True, debug=True)
    assert [r.job_id for r in applied.results] == [shanghai]
    assert applied.debug.get("query_stated", {}).get("constraints", []) == []
    explicit = search(db, "上海 数据分析师", SearchFilters(city="Beijing"), embedder=embedder, debug=True)
    assert [r.job_id for r in explicit.results] == [beijing]      # an explicit filter wins; no list for it


def test_a_posting_listing_a_narrower_skill_holds_the_family_the_query_names(db):
    """"智能合约工程师" names Smart Contracts; a posting listing only Solidity holds it, one listing
    nothing does not."""
    prose = "负责链上协议开发与审计。"
    bare = insert_job(db, "bare", "区块链开发工程师", description=prose, job_type="full_time")
    solidity = insert_job(db, "solidity", "区块链开发工程师", description=prose, job_type="full_time",
                          skills=["Solidity"])
    db.commit()
    embedder = embedded(db)
    response = search(db, "智能合约 区块链开发工程师", embedder=embedder, top_k=5, debug=True)
    order = [r.job_id for r in response.results]
    assert order.index(solidity) < order.index(bare)
    held = {r.job_id: r.extra.get("query_skills_held") for r in response.results}
    assert held[solidity] == ["Smart Contracts", "Blockchain"] and held[bare] is None   # Solidity counts for both


def test_every_kind_of_stated_constraint_is_checked_in_one_lookup(db, corpus):
    """City, remote, job type, pay and freshness stated at once, none applied: one statement
    checks them all (their parameters must not collide) and nothing is dropped."""
    embedder = embedded(db)
    query = "上海 远程 实习 月薪1万以上 最近7天发布 数据分析"
    response = search(db, query, embedder=embedder, top_k=10, debug=True)
    assert response.debug["query_stated"]["constraints"] == sorted(
        ["city", "remote", "job_type", "salary_min", "posted_within_days"])
    met = {r.external_id: r.extra.get("query_constraints_met") for r in response.results}
    assert set(met["da_sh"]) == {"city", "job_type", "posted_within_days"}   # no salary stated, not remote
    filtered = search(db, query, embedder=embedder, top_k=10, auto_filters=True)
    assert len(response.results) > len(filtered.results)   # preferences drop nothing


@pytest.mark.parametrize("query", ["(((", "!!!", "🚀", "、。"])
def test_a_query_of_symbols_only_lists_the_newest_without_a_vector(db, query):
    """A vector of punctuation ranks postings at random: such a query lists the newest instead."""
    old = insert_job(db, "old", "Data Engineer", posted_days_ago=5)
    new = insert_job(db, "new", "Office Manager", posted_days_ago=1)
    embedder = ConceptEmbedder()
    activate_model(db)
    embed_jobs(db, embedder)
    db.commit()
    response = search(db, query, embedder=embedder)
    assert response.mode == "browse" and [r.job_id for r in response.results] == [new, old]
    assert embedder.query_calls == 0
    assert any("no searchable words" in n for n in response.notes)
