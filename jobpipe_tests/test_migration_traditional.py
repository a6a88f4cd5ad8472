"""sql/0028 marks every keyword-terms row stale; the next sync writes traditional characters as simplified."""

from __future__ import annotations

import psycopg

from jobpipe.db import migrate
from jobpipe.store import sync_job_terms
from jobpipe_tests.migrations import database_before


def test_terms_written_before_the_folding_are_computed_again(tmp_path):
    with database_before(28, tmp_path) as url:
        with psycopg.connect(url) as conn:
            job_id = conn.execute(
                "INSERT INTO jobs (source, external_id, title, company, description_text, content_hash, record_hash) "
                "VALUES ('s', 'e1', '智能合約工程師', 'SynFutures', '區塊鏈', 'c1', 'r1') RETURNING job_id"
            ).fetchone()[0]
            sync_job_terms(conn, workers=0)
            # the terms as the code before the folding wrote them
            conn.execute("UPDATE job_terms SET search_tsv = to_tsvector('simple', '智能 合約 工程 工程師 區塊鏈'), "
                         "title_tsv = to_tsvector('simple', jobpipe_title_terms('智能合約工程師')) "
                         "WHERE job_id = %s", (job_id,))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            lexemes = "SELECT tsvector_to_array(search_tsv), tsvector_to_array(title_tsv) FROM job_terms WHERE job_id = %s"
            assert "合約" in conn.execute(lexemes, (job_id,)).fetchone()[0]   # still serving, until the sync
            assert sync_job_terms(conn, workers=0).computed == 1
            conn.commit()
            body, title = conn.execute(lexemes, (job_id,)).fetchone()
            assert "合约" in body and "工程师" in body and "合約" not in body
            assert "约工" in title and "約工" not in title
            assert conn.execute("SELECT content_hash FROM job_terms WHERE job_id = %s", (job_id,)).fetchone()[0] == "c1"
            assert sync_job_terms(conn, workers=0).computed == 0
