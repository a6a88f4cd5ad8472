-- 0016: what still needs a vector or keyword terms, read from indexes alone.
--
-- The embedding and keyword-terms steps start by listing the rows whose vector / terms are
-- missing or computed from another content hash: a join of jobs with job_embeddings (per
-- model) or job_terms on (job_id, content_hash). With the content hash carried in the
-- primary keys (as INCLUDE columns: not part of the key, so uniqueness and ON CONFLICT are
-- unchanged) and in one index of jobs, that join reads three narrow indexes (index-only
-- scans) instead of the wide tables -- what an unchanged night pays for "nothing to do".
-- The primary keys keep their names and their leading columns (no index leads with `model`:
-- the planner must keep choosing the HNSW index for vector search).
CREATE INDEX jobs_content ON jobs (job_id) INCLUDE (content_hash, closed_at);
ALTER TABLE job_embeddings DROP CONSTRAINT job_embeddings_pkey,
    ADD CONSTRAINT job_embeddings_pkey PRIMARY KEY (job_id, model) INCLUDE (content_hash);
ALTER TABLE candidate_embeddings DROP CONSTRAINT candidate_embeddings_pkey,
    ADD CONSTRAINT candidate_embeddings_pkey PRIMARY KEY (candidate_id, model) INCLUDE (content_hash);
ALTER TABLE job_terms DROP CONSTRAINT job_terms_pkey,
    ADD CONSTRAINT job_terms_pkey PRIMARY KEY (job_id) INCLUDE (content_hash);
