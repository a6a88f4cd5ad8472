"""sql/0030 copies every stored vector, with its posting's filter columns, into job_filter_vectors."""

from __future__ import annotations

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from jobpipe.db import migrate


def test_vectors_stored_before_the_table_are_copied_with_their_filters(tmp_path):
    from jobpipe_tests.migrations import database_before

    with database_before(30, tmp_path) as url:
        with psycopg.connect(url) as conn:
            register_vector(conn)
            conn.execute("INSERT INTO embedding_models (model, dims, state) VALUES ('m', 3, 'active')")
            for i, (city, closed) in enumerate([("Beijing", False), ("Berlin", True)]):
                job_id = conn.execute(
                    "INSERT INTO jobs (source, external_id, title, cities, job_type, content_hash, record_hash, closed_at) "
                    "VALUES ('s', %s, 't', %s, 'intern', 'c', 'r', CASE WHEN %s THEN now() END) RETURNING job_id",
                    (f"e{i}", [city], closed)).fetchone()[0]
                conn.execute("INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) "
                             "VALUES (%s, 'm', 3, 'c', %s)", (job_id, np.array([3.0, 4.0, 0.0 + i], dtype=np.float32)))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            register_vector(conn)
            rows = conn.execute("SELECT j.external_id, v.cities, v.job_type, v.closed_at IS NULL, v.embedding "
                                "FROM job_filter_vectors v JOIN jobs j USING (job_id) ORDER BY 1").fetchall()
            assert [r[:4] for r in rows] == [("e0", ["Beijing"], "intern", True), ("e1", ["Berlin"], "intern", False)]
            assert np.allclose(rows[0][4].to_numpy().astype(np.float32), [0.6, 0.8, 0.0], atol=1e-3)
            # From now on the triggers keep it: a filter edit reaches the copy.
            conn.execute("UPDATE jobs SET cities = '{Tokyo}' WHERE external_id = 'e0'")
            assert conn.execute("SELECT v.cities FROM job_filter_vectors v JOIN jobs j USING (job_id) "
                                "WHERE j.external_id = 'e0'").fetchone()[0] == ["Tokyo"]
