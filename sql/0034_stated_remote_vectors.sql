-- 0034: the open, stated-remote rows of job_filter_vectors, with their vectors, in one covering
-- index: a remote filter's exact scan reads them in index order instead of one random row each.
--
-- Why: the exact scan of a remote filter (jobpipe.search.vector.exact_sql) found its rows through
-- a btree on `remote` and visited each row in the table: at 100k postings ~10,000 rows on ~7,800
-- pages, ~1 µs each before any distance (remote + salary >= 100k USD: 23 ms of its 26 ms p50,
-- p99 over the 30 ms line). Here those rows lie side by side in the index's leaf pages with
-- everything the filters beside remote read (salary, posted date), so an index-only scan reads
-- ~1,300 pages in order: 17.5-19 -> 9.5-10 ms p50 for that scan (docs/search.md).
--
-- Its size is the stated-remote share of the table (~1.1 kB a row at 512 dimensions). A btree
-- entry holds at most ~2,700 bytes, so vectors of more than 1,000 dimensions (2,008 bytes at
-- half precision) are left out by the predicate rather than failing their write; a remote
-- filter of such a model is found through the filter keys index (sql/0031).
-- jobpipe.search.vector.COVERED_MAX_DIMS states the same bound, and the scan states it too,
-- so the planner can prove the predicate.
--
-- It replaces the btree on `remote`: the planner costs that btree's row visits below the
-- index-only scan (measured 2x slower), so with both it never chose this one.
DROP INDEX IF EXISTS job_filter_vectors_open_remote;

CREATE INDEX job_filter_vectors_stated_remote ON job_filter_vectors (model, posted_at)
    INCLUDE (job_id, salary_currency, salary_annual_max, salary_annual_min, embedding)
    WHERE closed_at IS NULL AND remote = 'remote' AND field_origins->>'remote' IS DISTINCT FROM 'inferred'
      AND vector_dims(embedding) <= 1000;
