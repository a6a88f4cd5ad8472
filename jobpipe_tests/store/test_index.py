import numpy as np
import psycopg
import pytest
from psycopg import sql

from jobpipe.store import ensure_vector_index, index_recall, index_state, upsert_jobs, vector_expr
from jobpipe.store.index import index_name, legacy_index_name, model_predicate, selective_filter
from jobpipe.store.models import register_model
from jobpipe_tests.store.helpers import make_posting

MODEL, DIMS, N = "synthetic-random-24", 24, 800


@pytest.fixture
def vectors(db):
    """N open jobs with random unit vectors; every 25th job is in Oslo (a 4% filter)."""
    # TRUNCATE keeps indexes: drop the per-model ones earlier tests built.
    for (name,) in db.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'embeddings_half_hnsw%' "
                              "OR indexname LIKE 'job_embeddings_hnsw%'").fetchall():
        db.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
    db.commit()
    upsert_jobs(db, [make_posting(i, cities=["Oslo"] if i % 25 == 0 else ["Lima"]) for i in range(N)])
    register_model(db, MODEL, DIMS)
    rng = np.random.default_rng(7)
    data = rng.normal(size=(N, DIMS)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    ids = [r[0] for r in db.execute("SELECT job_id FROM jobs ORDER BY job_id")]
    with db.cursor().copy("COPY job_embeddings (job_id, model, dims, content_hash, embedding) FROM STDIN") as copy:
        for job_id, vec in zip(ids, data):
            copy.write_row((job_id, MODEL, DIMS, "h", "[" + ",".join(f"{x:.6f}" for x in vec) + "]"))
    db.commit()
    return data


def test_index_is_built_once_and_used_by_the_documented_query(db, vectors):
    state = ensure_vector_index(db, MODEL, DIMS, m=8, ef_construction=32)
    assert state.built_now and state.exists and state.valid and state.rows == N
    assert (state.m, state.ef_construction) == (8, 32) and state.name == index_name(MODEL, DIMS)
    again = ensure_vector_index(db, MODEL, DIMS, m=8, ef_construction=32)
    assert not again.built_now and again.valid
    assert [s.name for s in index_state(db)] == [state.name]

    query = sql.SQL("EXPLAIN SELECT job_id FROM job_embeddings WHERE {pred} ORDER BY {expr} <=> %s::halfvec({d}) LIMIT 10").format(
        pred=model_predicate(MODEL), expr=vector_expr(DIMS), d=sql.Literal(DIMS))
    plan = "\n".join(r[0] for r in db.execute(query, ("[" + ",".join(["0.1"] * DIMS) + "]",)))
    assert state.name in plan


def test_changed_parameters_rebuild_and_swap(db, vectors):
    ensure_vector_index(db, MODEL, DIMS, m=8, ef_construction=32)
    rebuilt = ensure_vector_index(db, MODEL, DIMS, m=12, ef_construction=40)
    assert rebuilt.built_now and rebuilt.valid and (rebuilt.m, rebuilt.ef_construction) == (12, 40)
    names = [r[0] for r in db.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'job_embeddings' "
                                      "AND indexdef LIKE '%USING hnsw%'")]
    assert names == [rebuilt.name]


def test_the_float_index_of_before_sql_0032_goes_once_its_replacement_serves(db, vectors):
    """A store whose migration found no valid old index to rebuild from keeps what it had until
    the night's index stage has built the new one; then the old one is dropped."""
    legacy = legacy_index_name(MODEL, DIMS)
    db.execute(sql.SQL("CREATE INDEX {} ON job_embeddings USING hnsw ((embedding::vector({})) vector_cosine_ops) "
                       "WHERE model = {}").format(sql.Identifier(legacy), sql.Literal(DIMS), sql.Literal(MODEL)))
    db.commit()
    state = ensure_vector_index(db, MODEL, DIMS, m=8, ef_construction=32)
    assert state.built_now and state.valid
    assert db.execute("SELECT to_regclass(%s)", (legacy,)).fetchone()[0] is None


def test_invalid_index_is_rebuilt(db, vectors, database):
    # What an interrupted CREATE INDEX CONCURRENTLY leaves behind, made without superuser rights
    # (an external server's owner role cannot edit pg_index): the build waits for an older
    # snapshot, runs out of lock_timeout, and its index stays behind INVALID.
    from jobpipe.db import connect
    from jobpipe.store.index import _create_sql

    db.commit()
    db.autocommit = True
    with connect(database) as holder:
        holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        holder.execute("SELECT count(*) FROM jobs")
        db.execute("SET lock_timeout = '500ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            db.execute(_create_sql(index_name(MODEL, DIMS), MODEL, DIMS, 8, 32))
        db.execute("RESET lock_timeout")
        holder.rollback()
    db.autocommit = False
    assert not index_state(db)[0].valid
    fixed = ensure_vector_index(db, MODEL, DIMS, m=8, ef_construction=32)
    assert fixed.built_now and fixed.valid


def test_recall_against_exact_search_with_and_without_a_selective_filter(db, vectors):
    assert index_recall(db, MODEL, sample=5) == 0.0  # no index yet: nothing to trust
    ensure_vector_index(db, MODEL, DIMS, m=16, ef_construction=64)
    plain = index_recall(db, MODEL, sample=20, k=10)
    filtered = index_recall(db, MODEL, sample=20, k=10, filter_sql="j.cities @> ARRAY['Oslo']")
    assert plain >= 0.95
    assert filtered >= 0.95
    assert selective_filter(db, MODEL) == "j.cities @> ARRAY['Oslo']::text[]"
    assert index_recall(db, MODEL, sample=10, k=10, filter_sql="selective") >= 0.95
    # Without iterative scans a selective filter starves the HNSW scan: the check must see it.
    starved = index_recall(db, MODEL, sample=20, k=10, filter_sql="j.cities @> ARRAY['Oslo']",
                           ef_search=40, iterative_scan="off")
    assert starved < 0.95


def test_selective_filter_falls_back_when_no_city_is_selective(db, vectors):
    db.execute("UPDATE jobs SET cities = ARRAY['Lima']")
    db.commit()
    fallback = selective_filter(db, MODEL)
    assert "%" not in fallback  # it is spliced into statements that also take parameters
    ensure_vector_index(db, MODEL, DIMS, m=16, ef_construction=64)
    assert index_recall(db, MODEL, sample=10, k=10, filter_sql="selective") >= 0.95


def test_a_build_raises_build_memory_to_the_floor_and_keeps_more(db):
    from jobpipe.store.index import BUILD_MEMORY, build_memory

    db.execute("SET maintenance_work_mem = '64MB'")
    assert build_memory(db) == BUILD_MEMORY
    db.execute("SET maintenance_work_mem = '2GB'")
    assert build_memory(db) is None      # an operator's larger setting stays
    db.execute("RESET maintenance_work_mem")
