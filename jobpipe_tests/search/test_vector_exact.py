"""The exact scan ranks at half precision, then answers exactly what a float scan over the filtered rows answers."""

from __future__ import annotations

import numpy as np
import pytest
from psycopg import sql

from jobpipe.search import SearchFilters
from jobpipe.search import vector as vector_module
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.vector import VectorPlan, half_distance_error, half_query, vector_candidates
from jobpipe.store.models import active_model
from jobpipe_tests.search.helpers import DIMS, ConceptEmbedder, activate_model, embed_jobs, insert_job


def _float_scan(db, model, fsql, query_vector, limit):
    """The float scan over jobs JOIN job_embeddings the exact plan must equal (ids and distances, in order)."""
    cast = sql.SQL("vector({})").format(sql.Literal(model.dims))
    query = sql.SQL(
        "SELECT e.job_id, cosine_distance(e.embedding::{cast}, %(qv)s::{cast}) AS dist "
        "FROM jobs j JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = {model} "
        "WHERE {where} ORDER BY dist, e.job_id LIMIT {limit}"
    ).format(cast=cast, model=sql.Literal(model.model), where=sql.SQL(fsql.where), limit=sql.Literal(limit))
    return [(r[0], r[1]) for r in db.execute(query, {**fsql.params, "qv": query_vector})]


def _half_order(db, model, fsql, query_vector):
    """The filtered rows in half-precision order (the first pass alone)."""
    query = sql.SQL(
        "SELECT j.job_id FROM job_filter_vectors j WHERE j.model = {model} AND {where} "
        "ORDER BY cosine_distance(j.embedding, %(qh)s::halfvec), j.job_id"
    ).format(model=sql.Literal(model.model), where=sql.SQL(fsql.where))
    return [r[0] for r in db.execute(query, {**fsql.params, "qh": half_query(query_vector)})]


@pytest.fixture()
def near_ties(db):
    """300 Hangzhou postings whose vectors differ from each other by less than half precision
    resolves (the half-precision order is not the float order), 100 Shenzhen ones, 3 closed."""
    rng = np.random.default_rng(11)
    base = rng.normal(0, 1, DIMS).astype(np.float32)
    base /= np.linalg.norm(base)
    vectors = {}
    for i in range(300):
        job_id = insert_job(db, f"hz{i}", f"工程师 {i}", cities=["Hangzhou"])
        vectors[job_id] = base + rng.normal(0, 2e-4, DIMS).astype(np.float32) * (1 + i % 7)
    for i in range(100):
        vectors[insert_job(db, f"sz{i}", f"工程师 sz {i}", cities=["Shenzhen"])] = rng.normal(0, 1, DIMS).astype(np.float32)
    for i in range(3):
        vectors[insert_job(db, f"closed{i}", f"工程师 closed {i}", cities=["Hangzhou"], closed=True)] = base
    db.commit()
    activate_model(db)
    embed_jobs(db, ConceptEmbedder(), vectors)
    db.execute("ANALYZE job_filter_vectors")
    db.commit()
    query = (base + rng.normal(0, 1e-3, DIMS)).astype(np.float32)
    return active_model(db), query


@pytest.mark.parametrize("limit", [1, 10, 50, 299, 300, 400])
def test_exact_plan_returns_the_float_scans_rows_and_order(db, near_ties, limit):
    model, query = near_ties
    fsql = build_filter_sql(SearchFilters(city="杭州"))
    got = vector_candidates(db, model, query, fsql, limit, VectorPlan("exact", 300))
    want = _float_scan(db, model, fsql, query, limit)
    assert [h.job_id for h in got] == [job_id for job_id, _ in want]
    assert [h.distance for h in got] == [dist for _, dist in want]
    assert len(got) == min(limit, 300)      # closed postings stay out


def test_the_half_precision_order_alone_would_be_wrong_here(db, near_ties):
    """The fixture is a real test of the re-check: half precision cannot tell these rows apart."""
    model, query = near_ties
    fsql = build_filter_sql(SearchFilters(city="杭州"))
    want = [job_id for job_id, _ in _float_scan(db, model, fsql, query, 50)]
    half = _half_order(db, model, fsql, query)
    assert half[:50] != want
    assert set(half[:50]) != set(want)


def test_unnormalized_vectors_and_queries_rank_as_cosine_does(db):
    rng = np.random.default_rng(5)
    vectors = {}
    for i in range(120):
        scale = 10.0 ** rng.uniform(-3, 3)      # far from unit length, both ways
        vectors[insert_job(db, f"u{i}", f"工程师 {i}", cities=["Berlin"])] = (rng.normal(0, 1, DIMS) * scale).astype(
            np.float32)
    db.commit()
    activate_model(db)
    embed_jobs(db, ConceptEmbedder(), vectors)
    model = active_model(db)
    fsql = build_filter_sql(SearchFilters(city="Berlin"))
    query = (rng.normal(0, 1, DIMS) * 1e4).astype(np.float32)
    got = vector_candidates(db, model, query, fsql, 25, VectorPlan("exact", 120))
    assert [(h.job_id, h.distance) for h in got] == _float_scan(db, model, fsql, query, 25)


@pytest.mark.parametrize("dims", [8, 64, 512, 1536])
def test_half_distance_error_bounds_what_half_precision_does(db, dims):
    """Random vectors (some with components below half precision's normal range): every
    half-precision distance lies within the bound of the float one."""
    rng = np.random.default_rng(dims)
    a = rng.normal(0, 1, (200, dims)).astype(np.float32)
    a[:50] *= rng.uniform(0, 1, (50, dims)) < 0.2      # sparse rows
    a[50:100, : dims // 2] *= 1e-6                      # tiny components
    b = rng.normal(0, 1, (200, dims)).astype(np.float32)
    b[100:] = a[100:] + rng.normal(0, 1e-3, (100, dims)).astype(np.float32)   # near pairs
    rows = db.execute(
        "SELECT cosine_distance(x::vector, y::vector), "
        "cosine_distance(l2_normalize(x::vector)::halfvec, l2_normalize(y::vector)::halfvec) "
        "FROM unnest(%s::text[], %s::text[]) AS t(x, y)",
        ([str(v.tolist()) for v in a], [str(v.tolist()) for v in b])).fetchall()
    worst = max(abs(f - h) for f, h in rows)
    assert worst <= half_distance_error(dims)
    assert half_distance_error(512) < 0.0025


def test_a_filter_with_no_match_and_one_with_fewer_matches_than_asked(db, near_ties):
    model, query = near_ties
    none = build_filter_sql(SearchFilters(city="Tokyo"))
    assert vector_candidates(db, model, query, none, 10, VectorPlan("exact", 5)) == []
    closed = build_filter_sql(SearchFilters(city="杭州", include_closed=True))
    got = vector_candidates(db, model, query, closed, 1000, VectorPlan("exact", 303))
    assert [(h.job_id, h.distance) for h in got] == _float_scan(db, model, closed, query, 1000)
    assert len(got) == 303


@pytest.mark.parametrize("method", ["exact", "hnsw_iterative"])
def test_plan_settings_do_not_outlive_the_vector_statement(db, near_ties, method):
    """jit and parallel workers are off for the exact statement alone, inside a caller's transaction
    too; the HNSW statement's own settings (made in the statement, one round trip) last at most
    until the caller's transaction ends, as SET LOCAL would."""
    model, query = near_ties
    fsql = build_filter_sql(SearchFilters(city="杭州"))
    names = ["jit", "max_parallel_workers_per_gather", "hnsw.ef_search", "hnsw.iterative_scan"]
    db.execute("SELECT 1")      # a transaction is open, as in the service's connections
    before = [db.execute("SELECT current_setting(%s, true)", (n,)).fetchone()[0] for n in names]
    hits = vector_candidates(db, model, query, fsql, 10, VectorPlan(method, 300, table_rows=403.0))
    assert len(hits) == 10
    after = [db.execute("SELECT current_setting(%s, true)", (n,)).fetchone()[0] for n in names]
    assert after[:2] == before[:2]
    assert db.info.transaction_status.name == "INTRANS"
    db.commit()
    ended = [db.execute("SELECT current_setting(%s, true)", (n,)).fetchone()[0] for n in names]
    assert ended == before


def test_the_exact_scan_reads_one_table_without_parallel_workers(db, near_ties, monkeypatch):
    model, query = near_ties
    fsql = build_filter_sql(SearchFilters(city="杭州"))
    # Planner costs that would otherwise ask for workers on any table.
    db.execute("SET parallel_setup_cost = 0")
    db.execute("SET parallel_tuple_cost = 0")
    db.execute("SET min_parallel_table_scan_size = 0")
    statements = []
    real_run = vector_module._run

    def spy(conn, query_sql, params, settings):
        statements.append(settings)
        explain = sql.SQL("EXPLAIN ") + query_sql
        with conn.transaction(force_rollback=True):
            conn.execute(sql.SQL("SELECT ") + sql.SQL(", ").join(
                sql.SQL("set_config({}, {}, true)").format(sql.Literal(k), sql.Literal(v)) for k, v in settings.items()))
            statements.append("\n".join(r[0] for r in conn.execute(explain, params)))
        return real_run(conn, query_sql, params, settings)

    monkeypatch.setattr(vector_module, "_run", spy)
    vector_candidates(db, model, query, fsql, 10, VectorPlan("exact", 300))
    settings, plan = statements
    assert settings["max_parallel_workers_per_gather"] == "0" and settings["jit"] == "off"
    assert "Gather" not in plan
    assert "job_filter_vectors" in plan and " jobs " not in plan


@pytest.fixture()
def mixed_filters(db):
    """240 postings over every combination of a few cities, job types, remote values (some
    inferred), skills and salaries, 6 of them closed."""
    rng = np.random.default_rng(23)
    vectors = {}
    for i in range(240):
        pick = rng.integers(0, 210, 6)     # independent draws: every combination occurs
        job_id = insert_job(
            db, f"m{i}", f"工程师 {i}", cities=[["Beijing"], ["Shanghai"], ["Beijing", "Shanghai"], []][pick[0] % 4],
            job_type=["intern", "full_time", None][pick[1] % 3], remote=["remote", None, "hybrid"][pick[2] % 3],
            skills=[["Python"], ["Go"], ["Python", "Go"], []][pick[3] % 4],
            salary={"annual_max": 40_000 + 20_000 * int(pick[4] % 4), "currency": "USD"} if pick[5] % 3 else None,
            closed=i % 40 == 0)
        vectors[job_id] = rng.normal(0, 1, DIMS).astype(np.float32)
    db.commit()
    activate_model(db)
    embed_jobs(db, ConceptEmbedder(), vectors)
    # A remote value the normalizer inferred (a benefits line) is not "stated fully remote".
    db.execute("UPDATE jobs SET field_origins = '{\"remote\": \"inferred\"}' WHERE remote = 'remote' AND job_id % 3 = 0")
    db.execute("ANALYZE job_filter_vectors")
    db.commit()
    return active_model(db), rng.normal(0, 1, DIMS).astype(np.float32)


MIXED = [
    SearchFilters(city="北京", job_type="intern"),
    SearchFilters(city="Shanghai", remote=True),
    SearchFilters(job_type="full_time", remote=True, skills=["python"]),
    SearchFilters(city="Beijing", skills=["Python", "Go"]),
    SearchFilters(city="Beijing", job_type="intern", salary_min=80_000),
    SearchFilters(city="Shanghai", job_type="full_time", remote=False),
    SearchFilters(city="Beijing", job_type="intern", include_closed=True),
    SearchFilters(city="Shanghai", skills=["Go"], remote=False),
]


@pytest.mark.parametrize("filters", MIXED, ids=[f"mixed{i}" for i in range(len(MIXED))])
def test_several_equality_values_find_the_same_rows_through_their_keys(db, mixed_filters, filters):
    model, query = mixed_filters
    fsql = build_filter_sql(filters)
    want = _float_scan(db, model, fsql, query, 1000)
    assert want, "the fixture has rows for every filter"
    got = vector_candidates(db, model, query, fsql, 1000, VectorPlan("exact", len(want)))
    assert [(h.job_id, h.distance) for h in got] == want


def _exact_plan(db, fsql):
    where, params = vector_module.exact_filter(fsql, DIMS)
    model = active_model(db)
    query = sql.SQL("EXPLAIN ") + vector_module.exact_sql(model, fsql, 10, where)
    qv = np.ones(DIMS, dtype=np.float32)
    return "\n".join(r[0] for r in db.execute(query, {**fsql.params, **params, "qv": qv, "qh": half_query(qv)}))


def test_two_equality_values_are_one_scan_of_the_keys_index_and_one_value_its_own(db, mixed_filters):
    db.execute("SET enable_seqscan = off")     # a 240-row table would otherwise be read whole
    two = _exact_plan(db, build_filter_sql(SearchFilters(city="Beijing", job_type="intern", salary_min=1)))
    assert "job_filter_vectors_keys" in two and "BitmapAnd" not in two
    one = _exact_plan(db, build_filter_sql(SearchFilters(city="Beijing", salary_min=1)))
    assert "job_filter_vectors_keys" not in one and "job_filter_vectors_cities" in one
    closed = _exact_plan(db, build_filter_sql(SearchFilters(city="Beijing", job_type="intern", include_closed=True)))
    assert "job_filter_vectors_keys" not in closed


@pytest.mark.parametrize("filters", [SearchFilters(), SearchFilters(city="杭州")], ids=["open", "city"])
def test_a_row_has_the_same_distance_whichever_plan_found_it(db, near_ties, filters):
    """The graph orders rows at half precision; the distances it returns are the float ones the
    exact scan returns (match scores are built on them)."""
    model, query = near_ties
    fsql = build_filter_sql(filters)
    method = "hnsw" if not fsql.selective else "hnsw_iterative"
    graph = vector_candidates(db, model, query, fsql, 50, VectorPlan(method, 300, table_rows=403.0))
    exact = {h.job_id: h.distance for h in vector_candidates(db, model, query, fsql, 400, VectorPlan("exact", 300))}
    assert len(graph) == 50
    assert all(h.distance == exact[h.job_id] for h in graph)
    assert [h.distance for h in graph] == sorted(h.distance for h in graph)


def test_city_job_type_and_remote_are_asked_as_their_one_combined_key():
    """sql/0033 lists each posting's combinations of the three: a filter naming two or three of
    them reads one posting list; skills stay single keys."""
    fsql = build_filter_sql(SearchFilters(city="Beijing", job_type="intern", remote=True, skills=["python"]))
    _, params = vector_module.exact_filter(fsql, DIMS)
    assert params["f_keys"] == ["city:Beijing&job_type:intern&remote:stated", "skill:Python"]
    _, params = vector_module.exact_filter(build_filter_sql(SearchFilters(remote=True, city="北京")), DIMS)
    assert params["f_keys"] == ["city:Beijing&remote:stated"]
    _, params = vector_module.exact_filter(build_filter_sql(SearchFilters(job_type="intern", skills=["python"])), DIMS)
    assert params["f_keys"] == ["job_type:intern", "skill:Python"]     # one of the three: nothing to combine


COVERED_ALONE = [
    (SearchFilters(remote=True), "job_filter_vectors_stated_remote"),
    (SearchFilters(remote=True, salary_min=60_000), "job_filter_vectors_stated_remote"),
    (SearchFilters(remote=True, salary_min=50_000, currency="EUR"), "job_filter_vectors_stated_remote"),
    (SearchFilters(job_type="intern"), "job_filter_vectors_job_types"),
    (SearchFilters(job_type="intern", salary_min=60_000), "job_filter_vectors_job_types"),
]


@pytest.mark.parametrize(("filters", "index"), COVERED_ALONE,
                         ids=["remote", "remote+salary", "remote+salary-eur", "intern", "intern+salary"])
def test_stated_remote_or_a_job_type_alone_is_read_from_its_covering_index(db, mixed_filters, filters, index):
    """sql/0034, sql/0035: the rows and their vectors side by side, an index-only scan; the same
    rows and order as the float scan over jobs."""
    model, query = mixed_filters
    fsql = build_filter_sql(filters)
    want = _float_scan(db, model, fsql, query, 1000)
    assert want, "the fixture has rows for every filter"
    assert [(h.job_id, h.distance) for h in
            vector_candidates(db, model, query, fsql, 1000, VectorPlan("exact", len(want)))] == want
    db.execute("SET enable_seqscan = off")     # a 240-row table would otherwise be read whole
    assert index in _exact_plan(db, fsql)
    db.commit()
    # Once (auto)vacuum has marked the pages all-visible, the scan reads no table row at all.
    db.autocommit = True        # VACUUM runs outside a transaction
    db.execute("VACUUM job_filter_vectors")
    db.autocommit = False
    db.execute("SET enable_seqscan = off")
    assert f"Index Only Scan using {index}" in _exact_plan(db, fsql)


def test_the_common_job_type_is_found_through_its_key(db, mixed_filters):
    """Full-time is not copied into the job types' covering index (the graph answers it at any
    size that matters); on a small table its exact scan reads the filter keys index."""
    model, query = mixed_filters
    fsql = build_filter_sql(SearchFilters(job_type="full_time"))
    assert vector_module.exact_filter(fsql, DIMS)[1] == {"f_keys": ["job_type:full_time"]}
    want = _float_scan(db, model, fsql, query, 1000)
    assert want
    assert [(h.job_id, h.distance) for h in
            vector_candidates(db, model, query, fsql, 1000, VectorPlan("exact", len(want)))] == want


def test_a_model_too_wide_for_the_covering_index_still_writes_and_filters_remote(db):
    """A btree entry holds ~2,700 bytes: a 1,536-dim vector (3,080 at half precision) must be
    left out of the covering index by its predicate, not fail its write, and a remote filter
    of that model is found through the filter keys instead."""
    dims = 1536
    assert dims > vector_module.COVERED_MAX_DIMS
    rng = np.random.default_rng(5)
    for i in range(30):
        insert_job(db, f"w{i}", f"远程工程师 {i}", remote=["remote", None, "hybrid"][i % 3],
                   job_type=["full_time", "intern", None][i % 3],
                   salary={"annual_max": 50_000 + 10_000 * (i % 5), "currency": "USD"})
    activate_model(db, "test-wide-1536", dims)
    for (job_id,) in db.execute("SELECT job_id FROM jobs ORDER BY job_id").fetchall():
        db.execute("INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) "
                   "VALUES (%s, 'test-wide-1536', %s, 'h', %s)", (job_id, dims, rng.normal(0, 1, dims).astype(np.float32)))
    db.execute("ANALYZE job_filter_vectors")
    db.commit()
    model = active_model(db)
    query = rng.normal(0, 1, dims).astype(np.float32)
    for filters in (SearchFilters(remote=True), SearchFilters(remote=True, salary_min=70_000)):
        fsql = build_filter_sql(filters)
        want = _float_scan(db, model, fsql, query, 100)
        assert len(want) == sum(1 for i in range(30) if i % 3 == 0 and (filters.salary_min or 0) <= 50_000 + 10_000 * (i % 5))
        got = vector_candidates(db, model, query, fsql, 100, VectorPlan("exact", len(want)))
        assert [(h.job_id, h.distance) for h in got] == want
    fsql = build_filter_sql(SearchFilters(job_type="intern"))
    want = _float_scan(db, model, fsql, query, 100)
    assert len(want) == 10
    assert [(h.job_id, h.distance) for h in vector_candidates(db, model, query, fsql, 100, VectorPlan("exact", 10))] == want
    assert vector_module.exact_filter(build_filter_sql(SearchFilters(remote=True)), dims)[1] == {"f_keys": ["remote:stated"]}
    assert vector_module.exact_filter(fsql, dims)[1] == {"f_keys": ["job_type:intern"]}
