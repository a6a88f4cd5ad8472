-- 0035: the open rows of every job type but full-time, with their vectors, in one covering index,
-- as sql/0034 does for stated remote: a job-type filter's exact scan is an index-only scan of its
-- rows in order instead of one random row visit each.
--
-- Why: an intern filter (8% of postings at 100k) visited ~8,000 rows on as many pages through the
-- btree on job_type: 14.6-19.2 ms for the exact statement; from this index 8.7-13.8 ms (part-time
-- 7.5 -> 3.3-4.5 ms; docs/search.md). Full-time is left out: it is the common type (40% of the eval
-- corpus' postings, 85% on the speed bench; the other types together 9.5% and 15%), which the
-- vector leg answers through the HNSW graph, not an exact scan, so copying it would double the
-- vectors for nothing. A posting without a type is in no job-type filter.
--
-- The key (model, job_type, posted_at) also serves a type with a posted-within filter as one range;
-- the included salary columns serve a type with a salary filter. Vectors of more than 1,000
-- dimensions are left out as in sql/0034 (jobpipe.search.vector.COVERED_MAX_DIMS); such a model's
-- job-type filter, and full-time's, are found through the filter keys index (sql/0031).
--
-- It replaces the btree on job_type, which the planner costs below the index-only scan.
DROP INDEX IF EXISTS job_filter_vectors_open_job_type;

CREATE INDEX job_filter_vectors_job_types ON job_filter_vectors (model, job_type, posted_at)
    INCLUDE (job_id, salary_currency, salary_annual_max, salary_annual_min, embedding)
    WHERE closed_at IS NULL AND job_type <> 'full_time' AND vector_dims(embedding) <= 1000;
