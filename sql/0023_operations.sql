-- 0023: what an operator reads and acknowledges (jobpipe status, jobpipe sources accept-close).
--
-- source_days: one row per source and partition day, what its stages did there (counts, checks
-- that failed with the one-line reason), written by the normalize and curate stages whichever
-- way they ran (jobpipe run, the Dagster UI, a backfill), so `jobpipe status` reads jobpipe's
-- own database and needs no Dagster instance.
CREATE TABLE source_days (
    source          text        NOT NULL,
    partition_date  date        NOT NULL,
    normalized_at   timestamptz,
    passed          integer,
    rejected        integer,
    reject_rate     double precision,
    curated_at      timestamptz,
    inserted        integer,
    updated         integer,
    unchanged       integer,
    closed          integer,
    would_close     integer,
    close_refused   boolean     NOT NULL DEFAULT false,
    close_reason    text,
    -- check name -> the one line saying what failed and what to do
    problems        jsonb       NOT NULL DEFAULT '{}',
    dagster_run_id  text,
    PRIMARY KEY (source, partition_date)
);

-- An operator's "yes, these postings are really gone": the next confirmed listing of the source
-- may close more than the close guard's share, once; the row is consumed by that close.
CREATE TABLE close_acceptances (
    source       text        PRIMARY KEY,
    accepted_at  timestamptz NOT NULL DEFAULT now(),
    note         text
);
