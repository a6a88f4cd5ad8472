-- Candidates: private profiles, explicit preferences, quarantined files, and materialized,
-- explained, incremental matches (docs/candidates.md).

-- ---------------------------------------------------------------- profiles
-- Rows written by earlier versions held the resume verbatim (name, e-mail, phone) and the
-- person's name in its own column. They came only from the drop folder, which the next run
-- reads again, so they are dropped rather than kept unredacted.
DELETE FROM candidates;
ALTER TABLE candidates DROP COLUMN name;
COMMENT ON COLUMN candidates.resume_text IS
    'The resume text with contact details and the candidate''s own name removed (jobpipe.candidates.redact).';
COMMENT ON COLUMN candidates.content_hash IS 'sha256 of embedding_text: the vector is stale when it differs.';
ALTER TABLE candidates
    ADD COLUMN origin         text        NOT NULL DEFAULT 'folder' CHECK (origin IN ('folder', 'api', 'cli')),
    -- Path below the drop folder (origin folder): the file leaving the folder deletes the candidate.
    ADD COLUMN source_file    text,
    ADD COLUMN file_hash      text,
    ADD COLUMN file_size      bigint,
    ADD COLUMN file_mtime_ns  bigint,
    ADD COLUMN profile        jsonb       NOT NULL DEFAULT '{}',
    -- Explicit preferences exactly as given (validated); inferred ones live in the profile.
    ADD COLUMN preferences    jsonb       NOT NULL DEFAULT '{}',
    ADD COLUMN embedding_text text        NOT NULL DEFAULT '',
    -- sha256 of what matching reads (profile, preferences, content_hash): the match list is stale when it differs.
    ADD COLUMN match_hash     text        NOT NULL DEFAULT '',
    ADD COLUMN parser_version integer     NOT NULL DEFAULT 0,
    ADD COLUMN created_at     timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX candidates_source_file ON candidates (source_file) WHERE source_file IS NOT NULL;

-- Files of the drop folder that could not be read, with the reason (never skipped silently).
CREATE TABLE candidate_quarantine (
    source_file     text        PRIMARY KEY,
    reason          text        NOT NULL,
    file_hash       text,
    file_size       bigint,
    file_mtime_ns   bigint,
    quarantined_at  timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------- matches
-- The old table had 0-1 scores without the fit parts; it is derived data, rebuilt next run.
DROP TABLE candidate_matches;
CREATE TABLE candidate_matches (
    candidate_id    text        NOT NULL REFERENCES candidates ON DELETE CASCADE,
    job_id          bigint      NOT NULL REFERENCES jobs ON DELETE CASCADE,
    model           text        NOT NULL,
    score           real        NOT NULL,   -- 0-100, the weighted sum of the parts below
    semantic        real        NOT NULL,   -- each part 0-100 (jobpipe.candidates.scoring)
    skills          real        NOT NULL,
    experience      real        NOT NULL,
    location        real        NOT NULL,
    job_type        real        NOT NULL,
    salary          real        NOT NULL,
    similarity      real        NOT NULL,   -- raw cosine similarity of the two vectors
    matched_skills  text[]      NOT NULL DEFAULT '{}',   -- required skills the candidate has
    missing_skills  text[]      NOT NULL DEFAULT '{}',   -- required skills the candidate lacks
    matched_nice    text[]      NOT NULL DEFAULT '{}',   -- nice-to-have skills the candidate has
    missing_nice    text[]      NOT NULL DEFAULT '{}',
    dedupe_key      text,
    computed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (candidate_id, job_id)
);
CREATE INDEX candidate_matches_ranked ON candidate_matches (candidate_id, score DESC, job_id);
CREATE INDEX candidate_matches_job ON candidate_matches (job_id);

-- What each candidate's list was computed from, so a run recomputes only what changed.
CREATE TABLE candidate_match_state (
    candidate_id      text        PRIMARY KEY REFERENCES candidates ON DELETE CASCADE,
    model             text        NOT NULL,
    match_hash        text        NOT NULL,
    -- Similarity of the last job of the vector pool (NULL: the pool held every job passing the
    -- hard preferences); a changed job below it would not have been in a full build's pool either.
    similarity_floor  real,
    -- The list holds every job passing the hard preferences (fewer than its depth exist).
    complete          boolean     NOT NULL DEFAULT false,
    computed_at       timestamptz NOT NULL DEFAULT now()
);

-- The open jobs (and their record hashes) the stored lists reflect: the next run's diff
-- against ``jobs`` is exactly the jobs inserted, updated, closed or reopened meanwhile.
CREATE TABLE candidate_match_jobs (
    job_id       bigint NOT NULL PRIMARY KEY,
    record_hash  text   NOT NULL,
    model        text   NOT NULL
);

-- Per model: the cosine similarity of unrelated postings, where the semantic part starts above 0.
CREATE TABLE match_calibration (
    model             text        PRIMARY KEY,
    similarity_floor  real        NOT NULL,
    pairs             integer     NOT NULL,
    computed_at       timestamptz NOT NULL DEFAULT now()
);

-- Skills a posting names only as nice-to-have ("a plus", "preferred", "加分", "优先"), by content hash.
CREATE TABLE job_skill_tiers (
    job_id        bigint NOT NULL PRIMARY KEY REFERENCES jobs ON DELETE CASCADE,
    content_hash  text   NOT NULL,
    nice_to_have  text[] NOT NULL DEFAULT '{}'
);

-- ---------------------------------------------------------------- the service's candidate writer
-- POST/DELETE /candidates write through a login of their own (jobpipe.db.roles: it reads what
-- the service reads and writes the candidate tables only); registered like the reader, its
-- grants follow every migration. Migrating creates no role.
ALTER TABLE service_logins ADD COLUMN writes_candidates boolean NOT NULL DEFAULT false;
