-- 0030: the exact filtered vector scan reads one narrow table, `job_filter_vectors`: each stored
-- vector at half precision beside copies of its posting's filter columns.
--
-- Why: a selective filter is answered by an exact scan over its matching rows
-- (jobpipe.search.vector). Over jobs JOIN job_embeddings that cost ~3 µs per match at 100k
-- postings: a visit to the wide jobs row, a primary-key probe of job_embeddings and a 2 kB
-- float vector, each one a cache miss. Here a match is one visit to a ~1.1 kB row whose filter
-- is checked in place; half-precision distances are computed by pgvector's F16C code.
-- Measured on the 100k-posting speed bench (2026-12-06): 1.4-2x faster per filter (docs/search.md).
--
-- The scan stays exact: it ranks by the half-precision distance, then recomputes the float
-- distance from job_embeddings for every row within a proven error bound of the cut-off
-- (jobpipe.search.vector.exact_sql), so it returns exactly what a float scan returns.
--
-- Triggers keep it equal to its sources, as job_terms' filter columns are kept:
--   * a vector written to job_embeddings (insert, or a re-embedding) is copied here, with the
--     posting's filter columns read under FOR SHARE (a concurrent update of the posting is waited
--     for and read; a later one waits for this commit and then finds the row to update);
--   * a change to a filtered column of jobs is copied to its rows here, by the same trigger that
--     copies it into job_terms;
--   * deleting a vector (a retired model's prune, a deleted posting) deletes its copy (FK).
CREATE TABLE job_filter_vectors (
    job_id            bigint  NOT NULL,
    model             text    NOT NULL,
    -- l2_normalize(job_embeddings.embedding)::halfvec: cosine distance ignores length, and a
    -- unit vector's components cannot overflow half precision
    embedding         halfvec NOT NULL,
    -- Copies of the jobs columns search filters on (jobpipe.store.terms.FILTER_COLUMNS)
    closed_at         timestamptz,
    cities            text[]  NOT NULL DEFAULT '{}',
    skills            text[]  NOT NULL DEFAULT '{}',
    job_type          text,
    remote            text,
    posted_at         timestamptz,
    salary_currency   text,
    salary_annual_max numeric,
    salary_annual_min numeric,
    location_raw      text,
    field_origins     jsonb   NOT NULL DEFAULT '{}',
    PRIMARY KEY (job_id, model),
    FOREIGN KEY (job_id, model) REFERENCES job_embeddings (job_id, model) ON DELETE CASCADE
) WITH (fillfactor = 90);
-- In the row, never in TOAST (a 1 kB vector at 512 dims; see 0005 for job_embeddings).
ALTER TABLE job_filter_vectors ALTER COLUMN embedding SET STORAGE MAIN;

INSERT INTO job_filter_vectors (job_id, model, embedding, closed_at, cities, skills, job_type, remote, posted_at,
                                salary_currency, salary_annual_max, salary_annual_min, location_raw, field_origins)
SELECT e.job_id, e.model, l2_normalize(e.embedding)::halfvec, j.closed_at, j.cities, j.skills, j.job_type, j.remote,
       j.posted_at, j.salary_currency, j.salary_annual_max, j.salary_annual_min, j.location_raw, j.field_origins
FROM job_embeddings e JOIN jobs j ON j.job_id = e.job_id;

-- The indexes of the jobs filters, on the copies. GIN without a pending list: rows arrive a
-- few at a time (each embedding batch), and a pending list is read by every search until it is
-- merged (docs/search.md "After a write"); a row's cities and skills are a few entries.
CREATE INDEX job_filter_vectors_cities ON job_filter_vectors USING gin (cities) WITH (fastupdate = off);
CREATE INDEX job_filter_vectors_skills ON job_filter_vectors USING gin (skills) WITH (fastupdate = off);
CREATE INDEX job_filter_vectors_open_job_type ON job_filter_vectors (job_type) WHERE closed_at IS NULL;
CREATE INDEX job_filter_vectors_open_posted_at ON job_filter_vectors (posted_at) WHERE closed_at IS NULL;
CREATE INDEX job_filter_vectors_open_remote ON job_filter_vectors (remote) WHERE closed_at IS NULL;

CREATE FUNCTION jobpipe_job_filter_vectors_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_filter_vectors AS v (job_id, model, embedding, closed_at, cities, skills, job_type, remote,
                                         posted_at, salary_currency, salary_annual_max, salary_annual_min,
                                         location_raw, field_origins)
    SELECT NEW.job_id, NEW.model, l2_normalize(NEW.embedding)::halfvec, j.closed_at, j.cities, j.skills, j.job_type,
           j.remote, j.posted_at, j.salary_currency, j.salary_annual_max, j.salary_annual_min, j.location_raw,
           j.field_origins
    FROM jobs j WHERE j.job_id = NEW.job_id
    FOR SHARE
    ON CONFLICT (job_id, model) DO UPDATE SET
        embedding = EXCLUDED.embedding, closed_at = EXCLUDED.closed_at, cities = EXCLUDED.cities,
        skills = EXCLUDED.skills, job_type = EXCLUDED.job_type, remote = EXCLUDED.remote,
        posted_at = EXCLUDED.posted_at, salary_currency = EXCLUDED.salary_currency,
        salary_annual_max = EXCLUDED.salary_annual_max, salary_annual_min = EXCLUDED.salary_annual_min,
        location_raw = EXCLUDED.location_raw, field_origins = EXCLUDED.field_origins;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_embeddings_to_filter_vectors
AFTER INSERT OR UPDATE OF embedding ON job_embeddings
FOR EACH ROW EXECUTE FUNCTION jobpipe_job_filter_vectors_write();

-- The trigger that copies a posting's filtered columns into job_terms (sql/0009, 0025) copies them
-- here too: one list of columns, one trigger on jobs.
CREATE OR REPLACE FUNCTION jobpipe_job_terms_filters() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE job_terms
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, salary_annual_min = NEW.salary_annual_min,
        location_raw = NEW.location_raw, field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    UPDATE job_filter_vectors
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, salary_annual_min = NEW.salary_annual_min,
        location_raw = NEW.location_raw, field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

ANALYZE job_filter_vectors;
