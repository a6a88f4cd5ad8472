-- 0009: keyword-search terms move from `jobs` into their own narrow table, `job_terms`.
--
-- Why: the terms (jieba tokens -> tsvector, title bigrams) are a derived search
-- representation, like a vector, not part of the posting record. Kept in `jobs` as generated
-- columns they were recomputed on every rewrite of a row (a new URL or salary re-tokenized
-- the whole description and churned two GIN indexes), they made the bulk upsert pay for
-- tokenizing on one core, and the keyword leg of search visited wide `jobs` rows only to read
-- a length. Now `jobpipe.store.terms.sync_job_terms` computes them per `content_hash`, exactly
-- like embeddings: only for postings whose search text changed, in parallel processes, after
-- the upsert. The old terms keep serving until the new ones are written (no gap).

CREATE TABLE job_terms (
    job_id        bigint  PRIMARY KEY REFERENCES jobs (job_id) ON DELETE CASCADE,
    -- jobs.content_hash these terms were computed from: different => recompute
    content_hash  text    NOT NULL,
    -- mirrors jobs.closed_at IS NULL (trigger below), so unfiltered search never joins jobs
    open          boolean NOT NULL,
    -- tokens in the search text, for BM25 length normalization
    search_length integer NOT NULL,
    search_tsv    tsvector NOT NULL,
    title_tsv     tsvector NOT NULL
) WITH (fillfactor = 90, toast_tuple_target = 256);

-- Keep the heap narrow: the large description tsvector goes out of line (GIN answers the
-- lookups; the keyword leg reads only job_id, open and search_length from the heap).
ALTER TABLE job_terms ALTER COLUMN search_tsv SET STORAGE EXTENDED;
-- ANALYZE's lexeme frequencies (pg_stats.most_common_elems) are search's IDF table.
ALTER TABLE job_terms ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE job_terms ALTER COLUMN title_tsv SET STATISTICS 1000;

-- Carry over what `jobs` already holds, so an upgraded database keeps serving keyword
-- search without a gap and nothing is re-tokenized.
INSERT INTO job_terms (job_id, content_hash, open, search_length, search_tsv, title_tsv)
SELECT job_id, content_hash, closed_at IS NULL, search_length, search_tsv, title_tsv FROM jobs;

CREATE INDEX job_terms_search_tsv ON job_terms USING gin (search_tsv);
CREATE INDEX job_terms_title_tsv ON job_terms USING gin (title_tsv);

-- Closing or reopening a posting (the store, or an operator by hand) flips `open` here too.
CREATE FUNCTION jobpipe_job_terms_open() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE job_terms SET open = (NEW.closed_at IS NULL) WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_open_to_terms
AFTER UPDATE OF closed_at ON jobs
FOR EACH ROW WHEN ((OLD.closed_at IS NULL) IS DISTINCT FROM (NEW.closed_at IS NULL))
EXECUTE FUNCTION jobpipe_job_terms_open();

-- The view expands j.* at creation: rebuild it without the moved columns.
DROP VIEW serving_jobs;
DROP INDEX IF EXISTS jobs_search_tsv;
DROP INDEX IF EXISTS jobs_title_tsv;
ALTER TABLE jobs DROP COLUMN search_length, DROP COLUMN title_tsv, DROP COLUMN search_tsv,
                 DROP COLUMN search_tokens;
CREATE VIEW serving_jobs AS
SELECT j.*, e.embedding, e.model AS embedding_model
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;
GRANT SELECT ON serving_jobs TO jobpipe_reader;
