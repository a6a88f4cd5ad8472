-- 0010: ANALYZE jobs only where the planner can use it.
--
-- The store runs ANALYZE after every large upsert (a first load, a big new source), and its
-- cost is per sampled row and column: long text columns nobody filters or joins on (the
-- description above all) made it a tenth of a 100k first load. Search filters on source,
-- cities, skills, job_type, remote, posted_at, closed_at and the salary columns; those keep
-- their statistics. (Unique keys need none: their index says every value is distinct.)
ALTER TABLE jobs
    ALTER COLUMN description_text SET STATISTICS 0,
    ALTER COLUMN url SET STATISTICS 0,
    ALTER COLUMN location_raw SET STATISTICS 0,
    ALTER COLUMN record_hash SET STATISTICS 0,
    ALTER COLUMN content_hash SET STATISTICS 0,
    ALTER COLUMN external_id SET STATISTICS 0,
    ALTER COLUMN title SET STATISTICS 0,
    ALTER COLUMN company SET STATISTICS 0,
    ALTER COLUMN dedupe_key SET STATISTICS 0;
