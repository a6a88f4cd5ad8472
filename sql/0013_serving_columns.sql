-- serving_jobs names its columns. "SELECT j.*" is expanded once, when a view is created, so a
-- column added to jobs later would be silently missing from the view. A migration that adds a
-- posting field appends it here too (CREATE OR REPLACE VIEW may only add columns at the end);
-- a test checks that every field of the jobs read model is in the view.
CREATE OR REPLACE VIEW serving_jobs AS
SELECT j.job_id, j.source, j.external_id, j.title, j.company, j.location_raw, j.cities, j.country, j.remote,
       j.job_type, j.seniority, j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.salary_months,
       j.salary_negotiable, j.salary_annual_min, j.salary_annual_max, j.experience_min, j.experience_max,
       j.degree, j.skills, j.language, j.description_text, j.url, j.posted_at, j.valid_through, j.content_hash,
       j.record_hash, j.dedupe_key, j.first_seen_at, j.updated_at, j.closed_at,
       e.embedding, e.model AS embedding_model
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;
