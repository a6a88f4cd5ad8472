"""sql/0026 marks every keyword-terms row stale; the old terms serve until the next sync rewrites them."""

from __future__ import annotations

import psycopg

from jobpipe.db import migrate
from jobpipe.store import sync_job_terms
from jobpipe_tests.migrations import database_before


def test_terms_written_before_the_grouped_number_tokenizer_are_computed_again(tmp_path):
    with database_before(26, tmp_path) as url:
        with psycopg.connect(url) as conn:
            job_id = conn.execute(
                "INSERT INTO jobs (source, external_id, title, description_text, content_hash, record_hash) "
                "VALUES ('s', 'e1', 'Account Manager', 'Pay: $8,000 a month', 'c1', 'r1') RETURNING job_id"
            ).fetchone()[0]
            sync_job_terms(conn, workers=0)
            # the terms as the old tokenizer wrote them: the digit groups apart
            conn.execute("UPDATE job_terms SET search_tsv = to_tsvector('simple', 'account manager pay 8 000 month') "
                         "WHERE job_id = %s", (job_id,))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            lexemes = "SELECT tsvector_to_array(search_tsv) FROM job_terms WHERE job_id = %s"
            assert "000" in conn.execute(lexemes, (job_id,)).fetchone()[0]   # still serving, until the sync
            counts = sync_job_terms(conn, workers=0)
            conn.commit()
            assert counts.computed == 1
            words = conn.execute(lexemes, (job_id,)).fetchone()[0]
            assert "8000" in words and "000" not in words
            assert conn.execute("SELECT content_hash FROM job_terms WHERE job_id = %s", (job_id,)).fetchone()[0] == "c1"
            assert sync_job_terms(conn, workers=0).computed == 0
