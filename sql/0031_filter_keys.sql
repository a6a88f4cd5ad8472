-- 0031: a posting's equality-filter values as one set of keys, declared once, indexed on the
-- exact vector scan's table.
--
-- Why: the exact filtered vector scan (jobpipe.search.vector.exact_sql) found the rows of a
-- filter with several equality conditions (a city, a job type, stated remote) by building one
-- bitmap per condition from that column's own index and ANDing them: a cost in proportion to
-- the rows of every value, not to the rows they share. At 1M postings, Berlin AND intern AND
-- remote (7,001 rows) built bitmaps of 91k and 272k rows (48 ms) and visited 21k rows to keep
-- 7k. One GIN index over the keys answers the conjunction in one scan: 70-76 -> 25-31 ms there.
--
-- jobpipe_filter_keys is the one declaration of the keys: the keyword leg's filter-value
-- posting lists (jobpipe.store.term_lists, field 'f') are built from it, and search names its
-- keys with jobpipe.store.term_lists.city_key / job_type_key / skill_key / REMOTE_KEY.
-- "Stated fully remote" excludes a remote value the normalizer inferred from a benefits line
-- (jobpipe.search.filters, docs/normalization.md).
CREATE FUNCTION jobpipe_filter_keys(cities text[], skills text[], job_type text, remote text, field_origins jsonb)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ARRAY(SELECT DISTINCT key FROM (
        SELECT 'city:' || c FROM unnest(cities) c
        UNION ALL SELECT 'skill:' || s FROM unnest(skills) s
        UNION ALL SELECT 'job_type:' || job_type WHERE job_type IS NOT NULL
        UNION ALL SELECT 'remote:stated' WHERE remote = 'remote' AND field_origins->>'remote' IS DISTINCT FROM 'inferred'
    ) v(key) ORDER BY key)
$$;

-- Open postings only, as search filters them (a search with include_closed keeps the per-column
-- indexes). No pending list: rows arrive a few at a time, and every search would read it.
CREATE INDEX job_filter_vectors_keys ON job_filter_vectors
    USING gin (jobpipe_filter_keys(cities, skills, job_type, remote, field_origins)) WITH (fastupdate = off)
    WHERE closed_at IS NULL;

ANALYZE job_filter_vectors;
