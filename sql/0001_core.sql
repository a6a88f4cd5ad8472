-- Core schema shared by every stage. Later migrations (0002+) extend it per domain.
CREATE EXTENSION IF NOT EXISTS vector;

-- ---------------------------------------------------------------- sources / raw snapshots
-- One row per fetch of one source for one partition day.
CREATE TABLE fetch_runs (
    fetch_id        bigserial PRIMARY KEY,
    source          text        NOT NULL,
    partition_date  date        NOT NULL,
    kind            text        NOT NULL,
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    -- true only when every listing page was fetched without error: closing vanished
    -- postings is allowed only on complete listings.
    complete        boolean     NOT NULL DEFAULT false,
    error           text,
    requests        integer     NOT NULL DEFAULT 0,
    not_modified    integer     NOT NULL DEFAULT 0,
    bytes_received  bigint      NOT NULL DEFAULT 0,
    postings_seen   integer     NOT NULL DEFAULT 0,
    dagster_run_id  text
);
CREATE INDEX fetch_runs_source_date ON fetch_runs (source, partition_date, fetch_id DESC);

-- Every distinct payload of a posting, stored once (no new row while it does not change).
CREATE TABLE raw_postings (
    raw_id            bigserial PRIMARY KEY,
    source            text        NOT NULL,
    external_id       text        NOT NULL,
    format            text        NOT NULL,   -- which extractor reads the payload (greenhouse, jsonld, ...)
    payload           jsonb       NOT NULL,
    payload_hash      text        NOT NULL,
    url               text,
    first_fetched_at  timestamptz NOT NULL DEFAULT now(),
    last_fetched_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source, external_id, payload_hash)
);

-- What one fetch run listed: replaying a day = reading these rows' payloads, no refetch.
CREATE TABLE fetch_run_items (
    fetch_id  bigint NOT NULL REFERENCES fetch_runs ON DELETE CASCADE,
    raw_id    bigint NOT NULL REFERENCES raw_postings,
    PRIMARY KEY (fetch_id, raw_id)
);

-- ---------------------------------------------------------------- normalized
CREATE TABLE normalized_postings (
    source              text    NOT NULL,
    partition_date      date    NOT NULL,
    external_id         text    NOT NULL,
    raw_id              bigint  REFERENCES raw_postings,
    fetch_id            bigint,
    title               text    NOT NULL,
    company             text,
    location_raw        text,
    cities              text[]  NOT NULL DEFAULT '{}',
    country             text,
    remote              text,
    job_type            text,
    seniority           text,
    salary_min          numeric,
    salary_max          numeric,
    salary_currency     text,
    salary_period       text,
    salary_months       integer,
    salary_negotiable   boolean NOT NULL DEFAULT false,
    salary_annual_min   numeric,
    salary_annual_max   numeric,
    experience_min      numeric,
    experience_max      numeric,
    degree              text,
    skills              text[]  NOT NULL DEFAULT '{}',
    language            text,
    description_text    text    NOT NULL DEFAULT '',
    url                 text,
    posted_at           timestamptz,
    valid_through       timestamptz,
    content_hash        text    NOT NULL,
    normalized_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, partition_date, external_id)
);

-- Rows that failed validation: never dropped silently.
CREATE TABLE quarantine (
    quarantine_id   bigserial PRIMARY KEY,
    source          text        NOT NULL,
    partition_date  date        NOT NULL,
    external_id     text,
    raw_id          bigint      REFERENCES raw_postings,
    fetch_id        bigint,
    failed_checks   jsonb       NOT NULL,
    dagster_run_id  text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quarantine_source_date ON quarantine (source, partition_date);

-- ---------------------------------------------------------------- curated
CREATE TABLE jobs (
    job_id              bigserial PRIMARY KEY,
    source              text    NOT NULL,
    external_id         text    NOT NULL,
    title               text    NOT NULL,
    company             text,
    location_raw        text,
    cities              text[]  NOT NULL DEFAULT '{}',
    country             text,
    remote              text,
    job_type            text,
    seniority           text,
    salary_min          numeric,
    salary_max          numeric,
    salary_currency     text,
    salary_period       text,
    salary_months       integer,
    salary_negotiable   boolean NOT NULL DEFAULT false,
    salary_annual_min   numeric,
    salary_annual_max   numeric,
    experience_min      numeric,
    experience_max      numeric,
    degree              text,
    skills              text[]  NOT NULL DEFAULT '{}',
    language            text,
    description_text    text    NOT NULL DEFAULT '',
    url                 text,
    posted_at           timestamptz,
    valid_through       timestamptz,
    -- hash of the fields that feed the embedding; a vector is stale when its hash differs
    content_hash        text    NOT NULL,
    -- hash of every stored field: equal => the row is not rewritten at all
    record_hash         text    NOT NULL,
    dedupe_key          text,
    -- space-separated tokens (jieba for Chinese) for full-text search with the 'simple' config
    search_tokens       text    NOT NULL DEFAULT '',
    search_tsv          tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_tokens)) STORED,
    first_seen_at       timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    closed_at           timestamptz,
    UNIQUE (source, external_id)
);
CREATE INDEX jobs_search_tsv ON jobs USING gin (search_tsv);
CREATE INDEX jobs_cities ON jobs USING gin (cities);
CREATE INDEX jobs_skills ON jobs USING gin (skills);
CREATE INDEX jobs_open ON jobs (job_id) WHERE closed_at IS NULL;
CREATE INDEX jobs_dedupe_key ON jobs (dedupe_key);

-- Embedding models ever used; exactly one is 'active' (the one search reads).
CREATE TABLE embedding_models (
    model         text PRIMARY KEY,
    dims          integer     NOT NULL,
    state         text        NOT NULL DEFAULT 'building' CHECK (state IN ('building', 'active', 'retired')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    activated_at  timestamptz
);
CREATE UNIQUE INDEX embedding_models_one_active ON embedding_models ((true)) WHERE state = 'active';

-- Vectors are untyped here so several models (and dimensions) can coexist during a switch;
-- each model gets its own partial HNSW index on an expression cast to its dimensions.
CREATE TABLE job_embeddings (
    job_id        bigint      NOT NULL REFERENCES jobs ON DELETE CASCADE,
    model         text        NOT NULL REFERENCES embedding_models,
    dims          integer     NOT NULL,
    content_hash  text        NOT NULL,
    embedding     vector      NOT NULL,
    embedded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, model)
);

-- ---------------------------------------------------------------- candidates
CREATE TABLE candidates (
    candidate_id     text PRIMARY KEY,
    name             text,
    resume_text      text        NOT NULL,
    headline         text,
    skills           text[]      NOT NULL DEFAULT '{}',
    cities           text[]      NOT NULL DEFAULT '{}',
    experience_years numeric,
    language         text,
    content_hash     text        NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE candidate_embeddings (
    candidate_id  text        NOT NULL REFERENCES candidates ON DELETE CASCADE,
    model         text        NOT NULL REFERENCES embedding_models,
    dims          integer     NOT NULL,
    content_hash  text        NOT NULL,
    embedding     vector      NOT NULL,
    embedded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (candidate_id, model)
);

CREATE TABLE candidate_matches (
    candidate_id    text        NOT NULL REFERENCES candidates ON DELETE CASCADE,
    job_id          bigint      NOT NULL REFERENCES jobs ON DELETE CASCADE,
    rank            integer     NOT NULL,
    score           double precision NOT NULL,
    vector_score    double precision,
    skill_score     double precision,
    matched_skills  text[]      NOT NULL DEFAULT '{}',
    missing_skills  text[]      NOT NULL DEFAULT '{}',
    model           text        NOT NULL,
    computed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (candidate_id, job_id)
);

-- ---------------------------------------------------------------- serving
-- What the query service reads: open jobs with a vector from the active model.
CREATE VIEW serving_jobs AS
SELECT j.*, e.embedding, e.model AS embedding_model
FROM jobs j
JOIN embedding_models m ON m.state = 'active'
LEFT JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = m.model;
