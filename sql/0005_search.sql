-- Search support: a title vector for title boosting, richer term statistics for IDF
-- weighting, and indexes for the structured filters.

-- Title terms, computed inside the database so rows need no extra work from the writers
-- (the store only fills jobs.search_tokens). Chinese titles are not segmented here (no
-- jieba in SQL): every CJK run becomes its overlapping character bigrams (测试工程师 ->
-- 测试 试工 工程 程师), a standard segmentation-free scheme that matches the same bigrams
-- of any query word. Latin words are kept whole. The search core builds query-side title
-- terms with this same function, so both sides always agree.
CREATE OR REPLACE FUNCTION jobpipe_title_terms(title text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(string_agg(term, ' '), '')
    FROM (
        SELECT m[1] AS term
        FROM regexp_matches(lower(normalize(title, NFKC)), '[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]', 'g') AS m
        UNION ALL
        SELECT CASE WHEN char_length(r[1]) = 1 THEN r[1] ELSE substr(r[1], i, 2) END
        FROM regexp_matches(normalize(title, NFKC), '[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+', 'g') AS r,
             generate_series(1, greatest(char_length(r[1]) - 1, 1)) AS i
    ) AS terms
$$;

ALTER TABLE jobs
    ADD COLUMN IF NOT EXISTS title_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('simple', jobpipe_title_terms(title))) STORED;
CREATE INDEX IF NOT EXISTS jobs_title_tsv ON jobs USING gin (title_tsv);

-- Tokens per posting, for BM25's length normalization, stored so ranking never has to
-- detoast the large search_tsv of every candidate row.
ALTER TABLE jobs
    ADD COLUMN IF NOT EXISTS search_length integer
    GENERATED ALWAYS AS (coalesce(array_length(string_to_array(search_tokens, ' '), 1), 0)) STORED;

-- ANALYZE keeps the frequencies of the most common lexemes of a tsvector column in
-- pg_stats.most_common_elems; search reads them as document frequencies (IDF) for free.
-- The default target tracks ~1,000 lexemes; 1,000 tracks ~10,000, enough for a job corpus.
ALTER TABLE jobs ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE jobs ALTER COLUMN title_tsv SET STATISTICS 1000;

-- Structured filters. Partial on open postings: what search reads by default.
CREATE INDEX IF NOT EXISTS jobs_open_job_type ON jobs (job_type) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS jobs_open_posted_at ON jobs (posted_at) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS jobs_open_remote ON jobs (remote) WHERE closed_at IS NULL;

-- Keep vectors inline in the heap. With the default EXTENDED storage any vector over ~2 kB
-- (512 dims and up) is moved to the TOAST table, and every exact (filtered) scan or result
-- row pays a TOAST index lookup plus chunk fetches per vector. MAIN keeps a vector in the
-- row unless the row cannot fit a page at all (> ~8 kB, i.e. > ~2,000 dims), where Postgres
-- still falls back to TOAST. Affects rows written from now on.
ALTER TABLE job_embeddings ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE candidate_embeddings ALTER COLUMN embedding SET STORAGE MAIN;
