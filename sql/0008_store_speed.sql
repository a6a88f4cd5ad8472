-- 0008: first-load speed of the curated store (jobpipe/store/upsert.py).
--
-- Loading a large batch into an empty `jobs` table is several times cheaper per row when
-- the GIN indexes (full text, title, cities, skills) are built once after the load than
-- when every inserted row updates them. The store drops them for such a load and builds
-- them again from their own definitions afterwards. The definitions are parked here, in
-- the same transaction as the drop, so a load that dies half-way leaves a note that the
-- next upsert acts on (it rebuilds whatever is listed) instead of a silently index-less table.
CREATE TABLE IF NOT EXISTS jobs_deferred_indexes (
    index_name  text PRIMARY KEY,
    definition  text        NOT NULL,
    deferred_at timestamptz NOT NULL DEFAULT now()
);
