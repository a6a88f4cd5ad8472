"""sql/0027 marks every keyword-terms row stale; the next sync adds the title's and company's pinyin."""

from __future__ import annotations

import psycopg

from jobpipe.db import migrate
from jobpipe.store import sync_job_terms
from jobpipe_tests.migrations import database_before


def test_terms_written_before_the_pinyin_terms_are_computed_again(tmp_path):
    with database_before(27, tmp_path) as url:
        with psycopg.connect(url) as conn:
            job_id = conn.execute(
                "INSERT INTO jobs (source, external_id, title, company, description_text, content_hash, record_hash) "
                "VALUES ('s', 'e1', '链家地产 置业顾问', '链家', '五险一金', 'c1', 'r1') RETURNING job_id"
            ).fetchone()[0]
            sync_job_terms(conn, workers=0)
            # the terms as the code before the pinyin terms wrote them
            conn.execute("UPDATE job_terms SET search_tsv = to_tsvector('simple', '链家 地产 置业 顾问 五险一金'), "
                         "title_tsv = to_tsvector('simple', jobpipe_title_terms('链家地产 置业顾问')) "
                         "WHERE job_id = %s", (job_id,))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            lexemes = ("SELECT tsvector_to_array(search_tsv), tsvector_to_array(title_tsv), search_length "
                       "FROM job_terms WHERE job_id = %s")
            assert "py0lianjia" not in conn.execute(lexemes, (job_id,)).fetchone()[0]   # still serving, until the sync
            counts = sync_job_terms(conn, workers=0)
            conn.commit()
            assert counts.computed == 1
            body, title, _ = conn.execute(lexemes, (job_id,)).fetchone()
            assert "py0lianjia" in body and "py0lianjia" in title and "py0wuxianyijin" not in body
            assert conn.execute("SELECT content_hash FROM job_terms WHERE job_id = %s", (job_id,)).fetchone()[0] == "c1"
            assert sync_job_terms(conn, workers=0).computed == 0
