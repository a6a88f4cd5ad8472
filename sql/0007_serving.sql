-- What the serving asset published: how much of the open catalogue search can reach by vector.
CREATE TABLE serving_snapshots (
    snapshot_id       bigserial PRIMARY KEY,
    published_at      timestamptz NOT NULL DEFAULT now(),
    model             text,
    open_jobs         integer NOT NULL,
    with_vector       integer NOT NULL,
    closed_jobs       integer NOT NULL,
    duplicate_groups  integer NOT NULL
);
