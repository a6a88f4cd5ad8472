"""sql/0033 rebuilds the filter keys index with each posting's combinations of city, job type and
stated remote: an upgraded store answers a two- or three-dimension filter through one key."""

from __future__ import annotations

import psycopg

from jobpipe.db import migrate


def test_an_upgraded_store_finds_rows_by_their_combined_key(tmp_path):
    from jobpipe_tests.migrations import database_before

    rows = [  # cities, job type, remote, field_origins
        (["Berlin"], "intern", "remote", "{}"),
        (["Berlin", "Hamburg"], "intern", "remote", "{}"),
        (["Berlin"], "intern", "remote", '{"remote": "inferred"}'),   # a perk, not the arrangement
        (["Berlin"], "full_time", "remote", "{}"),
        (["Hamburg"], "intern", None, "{}"),
    ]
    with database_before(33, tmp_path) as url:
        with psycopg.connect(url) as conn:
            conn.execute("INSERT INTO embedding_models (model, dims, state) VALUES ('m', 2, 'active')")
            for i, (cities, job_type, remote, origins) in enumerate(rows):
                job_id = conn.execute(
                    "INSERT INTO jobs (source, external_id, title, content_hash, record_hash, cities, job_type, "
                    "remote, field_origins) VALUES ('s', %s, 't', 'c', 'r', %s, %s, %s, %s::jsonb) RETURNING job_id",
                    (str(i), cities, job_type, remote, origins)).fetchone()[0]
                # the store's trigger copies the vector, with these filter columns, into job_filter_vectors
                conn.execute("INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) "
                             "VALUES (%s, 'm', 2, 'c', %s::vector)", (job_id, str([1.0, 0.0])))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            indexdef = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'job_filter_vectors_keys'"
                                    ).fetchone()[0]
            assert "jobpipe_filter_combinations" in indexdef
            conn.execute("SET enable_seqscan = off")
            expr = ("(jobpipe_filter_keys(cities, skills, job_type, remote, field_origins) || "
                    "jobpipe_filter_combinations(cities, job_type, remote, field_origins))")

            def count(key: str) -> int:
                return conn.execute(f"SELECT count(*) FROM job_filter_vectors WHERE closed_at IS NULL "
                                    f"AND {expr} @> ARRAY[%s]", (key,)).fetchone()[0]

            assert count("city:Berlin&job_type:intern&remote:stated") == 2
            assert count("city:Hamburg&job_type:intern") == 2
            assert count("job_type:intern&remote:stated") == 2
            assert count("city:Berlin&remote:stated") == 3
            plan = "\n".join(r[0] for r in conn.execute(
                f"EXPLAIN SELECT 1 FROM job_filter_vectors WHERE closed_at IS NULL AND {expr} @> ARRAY['x']"))
            assert "job_filter_vectors_keys" in plan
