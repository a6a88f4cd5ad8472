"""sql/0029 on a store that already has keyword terms: search keeps answering, from the GIN indexes,
until the first merge builds the posting lists; then from the lists, with the same results."""

from __future__ import annotations

import psycopg

from jobpipe.db import migrate
from jobpipe.search import SearchFilters, search
from jobpipe.store import sync_job_terms, upsert_jobs
from jobpipe.store.term_lists import merge_term_lists
from jobpipe_tests.store.helpers import make_postings


def test_an_upgraded_store_searches_from_gin_until_its_lists_are_built(tmp_path):
    from jobpipe_tests.migrations import database_before

    with database_before(29, tmp_path) as url:
        with psycopg.connect(url) as conn:
            upsert_jobs(conn, make_postings(12))
            sync_job_terms(conn, workers=0)
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            before = search(conn, "engineer python", SearchFilters(city="Beijing"), mode="keyword", debug=True)
            assert before.debug["keyword_path"] == "gin" and before.results
            assert conn.execute("SELECT count(*) FROM term_lists_queue").fetchone()[0] == 0
            conn.commit()
            assert merge_term_lists(conn).mode == "full"
            after = search(conn, "engineer python", SearchFilters(city="Beijing"), mode="keyword", debug=True)
            assert after.debug["keyword_path"] == "lists"
            assert [(r.job_id, r.score) for r in after.results] == [(r.job_id, r.score) for r in before.results]
