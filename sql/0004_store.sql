-- 0004: curated store upkeep (jobpipe/store).
-- Per-model HNSW indexes on job_embeddings are NOT created here: they depend on which
-- models are in use and are built CONCURRENTLY by jobpipe.store.index.ensure_vector_index.

-- Closing vanished postings counts and scans a source's open postings.
CREATE INDEX IF NOT EXISTS jobs_source_open ON jobs (source) WHERE closed_at IS NULL;

-- Rewritten rows (a changed URL, a reopened posting) usually change no indexed column;
-- free space on the page lets PostgreSQL update them in place (HOT) without index churn.
ALTER TABLE jobs SET (fillfactor = 90);

-- Duplicate groups among open postings: the same job on a board and on the company site,
-- and reposts, share a dedupe_key (see jobpipe/store/dedupe.py).
CREATE OR REPLACE VIEW job_duplicate_groups AS
SELECT dedupe_key, count(*) AS postings, array_agg(job_id ORDER BY job_id) AS job_ids
FROM jobs
WHERE closed_at IS NULL AND dedupe_key IS NOT NULL
GROUP BY dedupe_key
HAVING count(*) > 1;
