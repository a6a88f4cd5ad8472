-- What jobpipe cut or left out of a posting's text, and why (jobpipe.normalize.caps: a
-- description past the size cap; jobpipe.normalize.salary: an implausible salary). Written by
-- jobpipe, never quoting the posting. serving_jobs gains it at its end (a view may only grow there).
ALTER TABLE normalized_postings ADD COLUMN notes text[] NOT NULL DEFAULT '{}';
ALTER TABLE jobs ADD COLUMN notes text[] NOT NULL DEFAULT '{}';

CREATE OR REPLACE VIEW serving_jobs AS
SELECT j.job_id, j.source, j.external_id, j.title, j.company, j.location_raw, j.cities, j.country, j.remote,
       j.job_type, j.seniority, j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.salary_months,
       j.salary_negotiable, j.salary_annual_min, j.salary_annual_max, j.experience_min, j.experience_max,
       j.degree, j.skills, j.language, j.description_text, j.url, j.posted_at, j.valid_through, j.content_hash,
       j.record_hash, j.dedupe_key, j.first_seen_at, j.updated_at, j.closed_at,
       e.embedding, e.model AS embedding_model, j.observed_at, j.field_origins, j.notes
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;
