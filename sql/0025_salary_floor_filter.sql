-- The salary filter ("pays at least X") reads the top of a posting's range; a posting that states
-- only a floor ("from $6,000/month", "25k+") has no top, and was excluded from every salary
-- filter. The filter now reads coalesce(salary_annual_max, salary_annual_min): a floor of at
-- least X pays at least X. The keyword leg filters on job_terms, so it carries the floor too,
-- and the trigger copies it (jobpipe.store.terms.FILTER_COLUMNS).
ALTER TABLE job_terms ADD COLUMN salary_annual_min numeric;

UPDATE job_terms t SET salary_annual_min = j.salary_annual_min
FROM jobs j
WHERE j.job_id = t.job_id AND j.salary_annual_min IS NOT NULL;

CREATE OR REPLACE FUNCTION jobpipe_job_terms_filters() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE job_terms
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, salary_annual_min = NEW.salary_annual_min,
        location_raw = NEW.location_raw, field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

DROP TRIGGER jobs_filters_to_terms ON jobs;
CREATE TRIGGER jobs_filters_to_terms
AFTER UPDATE ON jobs
FOR EACH ROW WHEN (
    (OLD.closed_at, OLD.cities, OLD.skills, OLD.job_type, OLD.remote, OLD.posted_at, OLD.salary_currency,
     OLD.salary_annual_max, OLD.salary_annual_min, OLD.location_raw, OLD.field_origins)
    IS DISTINCT FROM
    (NEW.closed_at, NEW.cities, NEW.skills, NEW.job_type, NEW.remote, NEW.posted_at, NEW.salary_currency,
     NEW.salary_annual_max, NEW.salary_annual_min, NEW.location_raw, NEW.field_origins))
EXECUTE FUNCTION jobpipe_job_terms_filters();
