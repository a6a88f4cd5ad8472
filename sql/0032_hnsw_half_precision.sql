-- 0032: each model's HNSW index indexes its vectors at half precision (unit length), half the
-- size of the float index it replaces (jobpipe.store.index says why, with figures). It stays on
-- job_embeddings, whose rows change only when a posting is embedded again.
--
-- The replacement is built here, with the parameters (m, ef_construction) the old index was
-- built with, before the old one goes, so search always has an index: the new statement
-- (jobpipe.search.vector.hnsw_sql) can only use the new one. Its name is
-- jobpipe.store.index.index_name's: embeddings_half_hnsw_<slug>_<dims>_<md5 of model/dims>.
-- A plain CREATE INDEX (a migration runs in a transaction): writes of vectors wait while it
-- builds (~30 s at 100k postings, ~5 min at 1M with the memory to hold the graph), searches do
-- not. Retired models get none.
DO $$
DECLARE
    m record;
    opts text[];
    slug text;
BEGIN
    -- at least jobpipe.store.index.BUILD_MEMORY: a build whose graph fits in memory is several
    -- times faster; a server configured with more keeps its own setting
    IF pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes('512MB') THEN
        PERFORM set_config('maintenance_work_mem', '512MB', true);
    END IF;
    FOR m IN SELECT model, dims FROM embedding_models WHERE state <> 'retired' ORDER BY model LOOP
        SELECT c.reloptions INTO opts
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE i.indrelid = 'job_embeddings'::regclass AND a.amname = 'hnsw' AND i.indisvalid
          AND pg_get_expr(i.indpred, i.indrelid) = format('(model = %L::text)', m.model)
        LIMIT 1;
        IF NOT FOUND THEN
            CONTINUE;   -- never indexed yet: the night's index stage builds it
        END IF;
        slug := left(trim(BOTH '_' FROM regexp_replace(lower(m.model), '[^a-z0-9]+', '_', 'g')), 28);
        EXECUTE format(
            'CREATE INDEX IF NOT EXISTS %I ON job_embeddings '
            'USING hnsw ((l2_normalize(embedding::vector(%s))::halfvec(%s)) halfvec_cosine_ops) '
            'WITH (m = %s, ef_construction = %s) WHERE model = %L',
            format('embeddings_half_hnsw_%s_%s_%s', slug, m.dims, left(md5(m.model || '/' || m.dims), 8)),
            m.dims, m.dims,
            coalesce((SELECT split_part(o, '=', 2) FROM unnest(opts) o WHERE o LIKE 'm=%'), '16'),
            coalesce((SELECT split_part(o, '=', 2) FROM unnest(opts) o WHERE o LIKE 'ef_construction=%'), '64'),
            m.model);
    END LOOP;
    FOR m IN   -- the float indexes: every HNSW index on job_embeddings that is not a half-precision one
        SELECT c.relname
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE i.indrelid = 'job_embeddings'::regclass AND a.amname = 'hnsw'
          AND c.relname NOT LIKE 'embeddings\_half\_hnsw\_%'
    LOOP
        EXECUTE format('DROP INDEX %I', m.relname);
    END LOOP;
END
$$;
