-- 0029: the keyword leg's own posting lists, read without visiting a posting's row.
--
-- Why: the keyword leg's GIN lookups found their postings fast, then visited one `job_terms`
-- heap row per matching posting (~2,500 a query at 100k postings) to read its length and
-- check that it is open: 7-9 ms of a 12 ms hybrid query, and 20 ms at 1M (docs/search.md,
-- "Speed"). `term_lists` keeps, per lexeme, the open postings that contain it in one value:
-- a query reads a handful of rows and scores in the client.
--
-- `postings` is fixed-width big-endian records sorted by job id: for a description lexeme
-- ('b', from search_tsv) the job id (int8) and the posting's search_length (int4); for a title
-- lexeme ('t', from title_tsv) the job id (int8) and one position (int2) per occurrence, for
-- phrase lookups. Only open postings are listed.
--
-- Freshness: every change to a posting's terms or open state enqueues the posting in
-- `term_lists_queue`, in the writer's own transaction (the triggers below), with the lexemes
-- the lists held for it (so a merge knows which lists to take it out of). The store merges the
-- queue into the lists after every terms sync and closing (jobpipe.store.term_lists); search
-- reads the lists only in a snapshot where the queue is empty and the lists were built, and
-- otherwise answers from the GIN indexes as before. So the lists are never stale: at worst
-- unused until the next merge.

CREATE TABLE term_lists (
    field    "char" NOT NULL CHECK (field IN ('b', 't')),
    lexeme   text   NOT NULL,
    postings bytea  NOT NULL,
    PRIMARY KEY (field, lexeme)
);
-- Stored uncompressed: a query reads its lists whole, and a build writes every list again
-- (pglz cost 9 s of a 22 s build at 100k postings, for half the size).
ALTER TABLE term_lists ALTER COLUMN postings SET STORAGE EXTERNAL;

CREATE TABLE term_lists_queue (
    job_id    bigint PRIMARY KEY,
    -- The lexemes the lists held for this posting (its terms at the last merge, if it was open
    -- then); NULL when it was not listed. Set by the first change after a merge only.
    old_body  text[],
    old_title text[]
);

CREATE TABLE term_lists_state (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    -- NULL until the first full build: search does not read the lists before it.
    built_at timestamptz,
    merged_at timestamptz
);
INSERT INTO term_lists_state DEFAULT VALUES;

CREATE FUNCTION jobpipe_term_lists_enqueue() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO term_lists_queue (job_id)
        SELECT job_id FROM new_rows
        ON CONFLICT (job_id) DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO term_lists_queue (job_id, old_body, old_title)
        SELECT job_id,
               CASE WHEN closed_at IS NULL THEN tsvector_to_array(search_tsv) END,
               CASE WHEN closed_at IS NULL THEN tsvector_to_array(title_tsv) END
        FROM old_rows
        ON CONFLICT (job_id) DO NOTHING;
    ELSE
        -- Only what the lists hold: the terms, the length and whether the posting is open
        -- (a filter column copied from jobs, such as a new salary, changes nothing here).
        INSERT INTO term_lists_queue (job_id, old_body, old_title)
        SELECT o.job_id,
               CASE WHEN o.closed_at IS NULL THEN tsvector_to_array(o.search_tsv) END,
               CASE WHEN o.closed_at IS NULL THEN tsvector_to_array(o.title_tsv) END
        FROM old_rows o JOIN new_rows n ON n.job_id = o.job_id
        WHERE (o.closed_at IS NULL) <> (n.closed_at IS NULL)
           OR o.search_length IS DISTINCT FROM n.search_length
           OR o.search_tsv IS DISTINCT FROM n.search_tsv
           OR o.title_tsv IS DISTINCT FROM n.title_tsv
        ON CONFLICT (job_id) DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_terms_lists_insert AFTER INSERT ON job_terms
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobpipe_term_lists_enqueue();
CREATE TRIGGER job_terms_lists_update AFTER UPDATE ON job_terms
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobpipe_term_lists_enqueue();
CREATE TRIGGER job_terms_lists_delete AFTER DELETE ON job_terms
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION jobpipe_term_lists_enqueue();

-- TRUNCATE fires no row or DELETE trigger: the lists it leaves would name postings that are
-- gone, so they go too, and search answers from the GIN indexes until the next full build.
CREATE FUNCTION jobpipe_term_lists_reset() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM term_lists;
    DELETE FROM term_lists_queue;
    UPDATE term_lists_state SET built_at = NULL;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_terms_lists_truncate AFTER TRUNCATE ON job_terms
FOR EACH STATEMENT EXECUTE FUNCTION jobpipe_term_lists_reset();
