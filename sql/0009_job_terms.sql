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
    job_id            bigint  PRIMARY KEY REFERENCES jobs (job_id) ON DELETE CASCADE,
    -- jobs.content_hash these terms were computed from: different => recompute
    content_hash      text    NOT NULL,
    -- tokens in the search text, for BM25 length normalization
    search_length     integer NOT NULL,
    search_tsv        tsvector NOT NULL,
    title_tsv         tsvector NOT NULL,
    -- Copies of the jobs columns search filters on (kept equal by the trigger below), so the
    -- keyword leg checks every filter on the row its word lookup already visited: no join.
    closed_at         timestamptz,
    cities            text[]  NOT NULL DEFAULT '{}',
    skills            text[]  NOT NULL DEFAULT '{}',
    job_type          text,
    remote            text,
    posted_at         timestamptz,
    salary_currency   text,
    salary_annual_max numeric,
    location_raw      text
) WITH (fillfactor = 90, toast_tuple_target = 256);

-- Keep the heap narrow: the large description tsvector goes out of line (GIN answers the
-- lookups; the keyword leg reads only the length and the filter columns from the heap).
ALTER TABLE job_terms ALTER COLUMN search_tsv SET STORAGE EXTENDED;
-- ANALYZE's lexeme frequencies (pg_stats.most_common_elems) are search's IDF table.
ALTER TABLE job_terms ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE job_terms ALTER COLUMN title_tsv SET STATISTICS 1000;

-- Carry over what `jobs` already holds, so an upgraded database keeps serving keyword
-- search without a gap and nothing is re-tokenized.
INSERT INTO job_terms (job_id, content_hash, search_length, search_tsv, title_tsv, closed_at, cities, skills,
                       job_type, remote, posted_at, salary_currency, salary_annual_max, location_raw)
SELECT job_id, content_hash, search_length, search_tsv, title_tsv, closed_at, cities, skills,
       job_type, remote, posted_at, salary_currency, salary_annual_max, location_raw
FROM jobs;

CREATE INDEX job_terms_search_tsv ON job_terms USING gin (search_tsv);
CREATE INDEX job_terms_title_tsv ON job_terms USING gin (title_tsv);
-- A narrow city filter joins the word lookups inside the indexes (BitmapAnd).
CREATE INDEX job_terms_cities ON job_terms USING gin (cities);

-- Any change to a filtered column of a posting (the store's upsert or closing, or an
-- operator's UPDATE by hand) is copied to its terms row in the same transaction.
CREATE FUNCTION jobpipe_job_terms_filters() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE job_terms
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, location_raw = NEW.location_raw
    WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_filters_to_terms
AFTER UPDATE ON jobs
FOR EACH ROW WHEN (
    (OLD.closed_at, OLD.cities, OLD.skills, OLD.job_type, OLD.remote, OLD.posted_at, OLD.salary_currency,
     OLD.salary_annual_max, OLD.location_raw)
    IS DISTINCT FROM
    (NEW.closed_at, NEW.cities, NEW.skills, NEW.job_type, NEW.remote, NEW.posted_at, NEW.salary_currency,
     NEW.salary_annual_max, NEW.location_raw))
EXECUTE FUNCTION jobpipe_job_terms_filters();

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
-- (The view's grant to the service's login: jobpipe.db.roles, after every migration; see 0017.)
