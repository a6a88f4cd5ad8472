-- Who holds each stage lock (jobpipe.store.locks). The lock itself is a PostgreSQL advisory
-- lock, released with its session (a killed run leaves none behind); this row only names the
-- holder for the run that finds the lock taken, and counts only while its backend holds it.
CREATE TABLE run_locks (
    lock        text PRIMARY KEY,                 -- 'source:<name>', 'embeddings', 'indexes', 'candidates'
    stage       text NOT NULL,
    run_id      text,                              -- the Dagster run, when there is one
    pid         integer NOT NULL,
    host        text NOT NULL,
    backend_pid integer NOT NULL,
    acquired_at timestamptz NOT NULL DEFAULT now()
);
