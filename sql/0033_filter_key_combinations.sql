-- 0033: the filter keys index also holds each posting's combinations of city, job type and
-- stated remote, so a filter naming two or three of them reads one posting list of its rows.
--
-- Why: a GIN scan for several keys intersects their posting lists, decoding nearly every entry
-- of each when the rows they share are spread over the table. At 1M postings, Berlin AND intern
-- AND remote (7,001 rows) decoded Berlin's 91k, intern's 330k and remote's 274k entries: 11.2 ms
-- of the exact scan's 26. One combined key lists exactly the 7,001: 0.65 ms, and the planner's
-- estimate goes from 1 row to ~5,000. These three columns have few values, so a posting gains at
-- most four keys per city (city+type, city+remote, type+remote, all three); skills are left out
-- (many per posting, so their combinations would not be few).
--
-- jobpipe_filter_keys stays the one declaration of the single keys (the keyword leg's value lists
-- are built from it alone); a combination is its keys joined by '&' in the order city, job_type,
-- remote (jobpipe.store.term_lists.combined_key).
CREATE FUNCTION jobpipe_filter_combinations(cities text[], job_type text, remote text, field_origins jsonb)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH s(stated) AS (SELECT remote = 'remote' AND field_origins->>'remote' IS DISTINCT FROM 'inferred')
    SELECT ARRAY(SELECT DISTINCT key FROM (
        SELECT 'city:' || c || '&job_type:' || job_type FROM unnest(cities) c WHERE job_type IS NOT NULL
        UNION ALL SELECT 'city:' || c || '&remote:stated' FROM unnest(cities) c, s WHERE s.stated
        UNION ALL SELECT 'job_type:' || job_type || '&remote:stated' FROM s WHERE job_type IS NOT NULL AND s.stated
        UNION ALL SELECT 'city:' || c || '&job_type:' || job_type || '&remote:stated'
            FROM unnest(cities) c, s WHERE job_type IS NOT NULL AND s.stated
    ) v(key) ORDER BY key)
$$;

DROP INDEX job_filter_vectors_keys;
CREATE INDEX job_filter_vectors_keys ON job_filter_vectors
    USING gin ((jobpipe_filter_keys(cities, skills, job_type, remote, field_origins)
                || jobpipe_filter_combinations(cities, job_type, remote, field_origins)))
    WITH (fastupdate = off) WHERE closed_at IS NULL;

ANALYZE job_filter_vectors;
