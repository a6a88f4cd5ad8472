-- Where each filterable field's value came from (jobpipe.models.NormalizedPosting.field_origins):
-- {"remote": "source_field" | "title" | "description" | "inferred", "salary": ..., "job_type": ...,
-- "seniority": ..., "cities": ...}. The search filters read it: remote = true accepts a remote
-- arrangement stated in a source field, the title or the description, not one inferred from a
-- benefits line ("home-office stipend", "远程办公补贴"). Rows written before this migration get '{}'
-- until the next normalization of their day rewrites them (origin unknown: the filter keeps them).
ALTER TABLE normalized_postings ADD COLUMN field_origins jsonb NOT NULL DEFAULT '{}';
ALTER TABLE jobs ADD COLUMN field_origins jsonb NOT NULL DEFAULT '{}';

CREATE OR REPLACE VIEW serving_jobs AS
SELECT j.job_id, j.source, j.external_id, j.title, j.company, j.location_raw, j.cities, j.country, j.remote,
       j.job_type, j.seniority, j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.salary_months,
       j.salary_negotiable, j.salary_annual_min, j.salary_annual_max, j.experience_min, j.experience_max,
       j.degree, j.skills, j.language, j.description_text, j.url, j.posted_at, j.valid_through, j.content_hash,
       j.record_hash, j.dedupe_key, j.first_seen_at, j.updated_at, j.closed_at,
       e.embedding, e.model AS embedding_model, j.observed_at, j.field_origins
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;

-- The keyword leg filters on job_terms, which carries a copy of every filtered column
-- (jobpipe.store.terms.FILTER_COLUMNS): field_origins joins them, and the trigger copies it too.
ALTER TABLE job_terms ADD COLUMN field_origins jsonb NOT NULL DEFAULT '{}';

CREATE OR REPLACE FUNCTION jobpipe_job_terms_filters() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE job_terms
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, location_raw = NEW.location_raw,
        field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

DROP TRIGGER jobs_filters_to_terms ON jobs;
CREATE TRIGGER jobs_filters_to_terms
AFTER UPDATE ON jobs
FOR EACH ROW WHEN (
    (OLD.closed_at, OLD.cities, OLD.skills, OLD.job_type, OLD.remote, OLD.posted_at, OLD.salary_currency,
     OLD.salary_annual_max, OLD.location_raw, OLD.field_origins)
    IS DISTINCT FROM
    (NEW.closed_at, NEW.cities, NEW.skills, NEW.job_type, NEW.remote, NEW.posted_at, NEW.salary_currency,
     NEW.salary_annual_max, NEW.location_raw, NEW.field_origins))
EXECUTE FUNCTION jobpipe_job_terms_filters();
