-- 0020: snapshots that cost nothing when nothing changed, and a curated store that never rolls back.
--
-- 1. A fetch run no longer writes a row per posting. What each run listed is kept as spans:
--    one row per (posting, payload) for the runs during which the source listed that payload
--    (``from_fetch`` inclusive .. ``until_fetch`` exclusive, NULL while it is still listed). A
--    night whose listing equals the stored state writes only its ``fetch_runs`` row; a changed
--    payload closes one span and opens one; a removed posting closes its span. The postings of
--    run F are the spans with from_fetch <= F < coalesce(until_fetch, infinity), minus those it
--    did not list itself when it was incomplete or unconfirmed (``unlisted``, or ``listed_only``
--    when that is the shorter list): such a run closes no span, since absence is not proven.
--    ``listing_digest`` is the digest of the source's open spans after the run, which the next
--    run compares its listing with.
CREATE TABLE listing_spans (
    source        text   NOT NULL,
    external_id   text   NOT NULL,
    raw_id        bigint NOT NULL REFERENCES raw_postings ON DELETE CASCADE,
    payload_hash  text   NOT NULL,
    from_fetch    bigint NOT NULL,
    until_fetch   bigint,
    PRIMARY KEY (source, external_id, from_fetch),
    CHECK (until_fetch IS NULL OR until_fetch > from_fetch)
);
-- The source's current state, read from the index alone; at most one open span per posting.
CREATE UNIQUE INDEX listing_spans_open ON listing_spans (source, external_id) INCLUDE (raw_id, payload_hash)
    WHERE until_fetch IS NULL;
-- What changed at a run (normalization and curation work on these only).
CREATE INDEX listing_spans_from ON listing_spans (source, from_fetch);
CREATE INDEX listing_spans_until ON listing_spans (source, until_fetch) WHERE until_fetch IS NOT NULL;
CREATE INDEX listing_spans_raw ON listing_spans (raw_id);

ALTER TABLE fetch_runs
    ADD COLUMN listing_digest  bytea,
    ADD COLUMN listed_new      integer NOT NULL DEFAULT 0,   -- postings first listed, or listed again
    ADD COLUMN listed_changed  integer NOT NULL DEFAULT 0,   -- postings listed with another payload
    ADD COLUMN listed_removed  integer NOT NULL DEFAULT 0,   -- postings whose span this run closed
    ADD COLUMN unlisted        text[],
    ADD COLUMN listed_only     text[],
    -- the normalizer version (jobpipe.normalize.version) that normalized every posting of
    -- this run's state; NULL until then
    ADD COLUMN normalized_with text,
    -- when the curated store took this run's state in; NULL until then
    ADD COLUMN curated_at      timestamptz;

-- The history so far, converted: per source, runs in order; each run's items (one payload per
-- posting, the highest raw_id as normalization took it) become spans over consecutive runs.
WITH runs AS (
    SELECT fetch_id, source, row_number() OVER (PARTITION BY source ORDER BY fetch_id) AS n,
           lead(fetch_id) OVER (PARTITION BY source ORDER BY fetch_id) AS next_fetch,
           max(fetch_id) OVER (PARTITION BY source) AS last_fetch
    FROM fetch_runs
), items AS (
    SELECT DISTINCT ON (i.fetch_id, r.external_id) i.fetch_id, r.source, r.external_id, r.raw_id, r.payload_hash
    FROM fetch_run_items i JOIN raw_postings r USING (raw_id)
    ORDER BY i.fetch_id, r.external_id, r.raw_id DESC
), numbered AS (
    SELECT it.*, ru.n, ru.next_fetch, ru.last_fetch,
           ru.n - row_number() OVER (PARTITION BY it.source, it.external_id, it.raw_id ORDER BY ru.n) AS island
    FROM items it JOIN runs ru USING (fetch_id)
)
INSERT INTO listing_spans (source, external_id, raw_id, payload_hash, from_fetch, until_fetch)
SELECT source, external_id, raw_id, min(payload_hash), min(fetch_id),
       CASE WHEN bool_or(fetch_id = last_fetch) THEN NULL ELSE max(next_fetch) END
FROM numbered
GROUP BY source, external_id, raw_id, island;

DROP TABLE fetch_run_items;

-- 2. Normalized postings: one row per stored payload (what the normalizer made of it), not one
--    per posting per day. A night normalizes only payloads that are new since the last run its
--    normalizer version normalized (or everything, once, when that version changed), and writes
--    only rows whose output differs (``record_hash``). ``fetch_id`` is now the fetch run whose
--    normalization wrote the row. The old per-day rows are derived data: they are dropped here
--    and re-derived from the stored payloads by the next run (one full normalization).
TRUNCATE normalized_postings;
ALTER TABLE normalized_postings DROP CONSTRAINT normalized_postings_pkey,
    DROP CONSTRAINT normalized_postings_raw_id_fkey,
    DROP COLUMN partition_date,
    ALTER COLUMN raw_id SET NOT NULL,
    ADD COLUMN record_hash text NOT NULL,
    ADD CONSTRAINT normalized_postings_pkey PRIMARY KEY (raw_id),
    ADD CONSTRAINT normalized_postings_raw_id_fkey FOREIGN KEY (raw_id) REFERENCES raw_postings ON DELETE CASCADE;
CREATE INDEX normalized_postings_source_fetch ON normalized_postings (source, fetch_id);

-- Normalization rejects are per payload too; they go with their payload when it is pruned.
DELETE FROM quarantine WHERE stage = 'normalize';
ALTER TABLE quarantine DROP CONSTRAINT quarantine_raw_id_fkey,
    ADD CONSTRAINT quarantine_raw_id_fkey FOREIGN KEY (raw_id) REFERENCES raw_postings ON DELETE CASCADE;
CREATE UNIQUE INDEX quarantine_normalize_raw ON quarantine (raw_id) WHERE stage = 'normalize';

-- 3. The curated row remembers which observation its content came from (the start of the fetch
--    run that listed it): a replay or backfill of an older day never overwrites newer content,
--    and never reopens a posting closed after that day.
ALTER TABLE jobs ADD COLUMN observed_at timestamptz;
CREATE OR REPLACE VIEW serving_jobs AS
SELECT j.job_id, j.source, j.external_id, j.title, j.company, j.location_raw, j.cities, j.country, j.remote,
       j.job_type, j.seniority, j.salary_min, j.salary_max, j.salary_currency, j.salary_period, j.salary_months,
       j.salary_negotiable, j.salary_annual_min, j.salary_annual_max, j.experience_min, j.experience_max,
       j.degree, j.skills, j.language, j.description_text, j.url, j.posted_at, j.valid_through, j.content_hash,
       j.record_hash, j.dedupe_key, j.first_seen_at, j.updated_at, j.closed_at,
       e.embedding, e.model AS embedding_model, j.observed_at
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;
-- Expired postings (valid_through passed) of a source are found without reading the table.
CREATE INDEX jobs_open_valid_through ON jobs (source, valid_through) WHERE closed_at IS NULL AND valid_through IS NOT NULL;
-- Open postings of a source by id: closing compares them with the open spans, index to index.
CREATE INDEX jobs_source_open_external ON jobs (source, external_id) WHERE closed_at IS NULL;
