"""sql/0032 rebuilds each model's HNSW index at half precision, with the old one's parameters, and
drops the float index: search uses the new one from the first query."""

from __future__ import annotations

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from jobpipe.db import migrate
from jobpipe.store.index import index_name, index_state, legacy_index_name


def test_an_upgraded_store_has_the_new_index_with_the_old_parameters(tmp_path):
    from jobpipe_tests.migrations import database_before

    models = [("Model A/v2", 4, "active", True), ("retired-m", 4, "retired", True), ("building-m", 4, "building", False)]
    with database_before(32, tmp_path) as url:
        with psycopg.connect(url) as conn:
            register_vector(conn)
            job_id = conn.execute("INSERT INTO jobs (source, external_id, title, content_hash, record_hash) "
                                  "VALUES ('s', 'e', 't', 'c', 'r') RETURNING job_id").fetchone()[0]
            for model, dims, state, indexed in models:
                conn.execute("INSERT INTO embedding_models (model, dims, state) VALUES (%s, %s, %s)", (model, dims, state))
                conn.execute("INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) "
                             "VALUES (%s, %s, %s, 'c', %s)", (job_id, model, dims, np.ones(dims, dtype=np.float32)))
                if indexed:     # as ensure_vector_index built them before sql/0032
                    conn.execute(psycopg.sql.SQL(
                        "CREATE INDEX {} ON job_embeddings USING hnsw ((embedding::vector({})) vector_cosine_ops) "
                        "WITH (m = 12, ef_construction = 40) WHERE model = {}").format(
                        psycopg.sql.Identifier(legacy_index_name(model, dims)), psycopg.sql.Literal(dims),
                        psycopg.sql.Literal(model)))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            states = {s.model: s for s in index_state(conn)}
            assert set(states) == {"Model A/v2", "building-m"}          # retired models need none
            a = states["Model A/v2"]
            assert a.name == index_name("Model A/v2", 4) and a.valid and (a.m, a.ef_construction) == (12, 40)
            assert not states["building-m"].exists                      # never indexed: the night builds it
            left = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'job_embeddings' "
                                               "AND indexdef LIKE '%USING hnsw%' ORDER BY 1")]
            assert left == [a.name]      # the float indexes are gone, the retired model's too
