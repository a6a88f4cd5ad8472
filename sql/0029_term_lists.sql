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
-- phrase lookups; for a filter value ('f': a city, job type, skill, or "stated fully remote")
-- the job id alone, so an equality filter is checked without visiting rows. Only open postings
-- are listed.
--
-- Two tiers, so that a night's merge costs what changed, not the whole catalogue (a changed
-- posting touches a few hundred lists, the long lists of common words among them): tier 0 is
-- built from every open posting at once; the postings changed since (`term_lists_dead`) are
-- void in tier 0 and listed again, as they are now, in tier 1, which each merge rebuilds.
-- A reader takes tier 0 minus the void postings, plus tier 1. Once the void postings pass a
-- share of the catalogue, a merge builds tier 0 again and empties the rest.
--
-- Freshness: every change to a posting's terms or open state queues the posting in
-- `term_lists_queue`, in the writer's own transaction (the triggers below). The store merges
-- the queue once a night (jobpipe.store.term_lists); search reads the lists only in a snapshot
-- where the queue is empty and the lists were built, and otherwise answers from the GIN
-- indexes as before. So the lists are never read stale: at worst unused until the next merge.

CREATE TABLE term_lists (
    field    "char"   NOT NULL CHECK (field IN ('b', 't', 'f')),
    lexeme   text     NOT NULL,
    tier     smallint NOT NULL CHECK (tier IN (0, 1)),
    postings bytea    NOT NULL,
    PRIMARY KEY (field, lexeme, tier)
);
-- Stored uncompressed: a query reads its lists whole, and a build writes every list again
-- (pglz cost 9 s of a 22 s build at 100k postings, for half the size).
ALTER TABLE term_lists ALTER COLUMN postings SET STORAGE EXTERNAL;

-- Postings whose tier-0 records are void (changed or closed since tier 0 was built).
CREATE TABLE term_lists_dead (job_id bigint PRIMARY KEY);

-- Postings changed since the last merge.
CREATE TABLE term_lists_queue (job_id bigint PRIMARY KEY);

CREATE TABLE term_lists_state (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    -- NULL until the first build: search does not read the lists before it.
    built_at  timestamptz,
    merged_at timestamptz,
    -- The transaction id of the last merge: readers keep the void postings per version.
    version   bigint NOT NULL DEFAULT 0
);
INSERT INTO term_lists_state DEFAULT VALUES;

CREATE FUNCTION jobpipe_term_lists_enqueue() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO term_lists_queue SELECT job_id FROM new_rows ON CONFLICT (job_id) DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO term_lists_queue SELECT job_id FROM old_rows ON CONFLICT (job_id) DO NOTHING;
    ELSE
        -- Only what the lists hold: the terms, the length, whether the posting is open and the
        -- filter values listed (a copied salary or date, for one, changes nothing here).
        INSERT INTO term_lists_queue
        SELECT o.job_id FROM old_rows o JOIN new_rows n ON n.job_id = o.job_id
        WHERE (o.closed_at IS NULL) <> (n.closed_at IS NULL)
           OR o.search_length IS DISTINCT FROM n.search_length
           OR (o.cities, o.skills, o.job_type, o.remote, o.field_origins->>'remote')
              IS DISTINCT FROM (n.cities, n.skills, n.job_type, n.remote, n.field_origins->>'remote')
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
-- gone, so they go too, and search answers from the GIN indexes until the next build.
CREATE FUNCTION jobpipe_term_lists_reset() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM term_lists;
    DELETE FROM term_lists_dead;
    DELETE FROM term_lists_queue;
    UPDATE term_lists_state SET built_at = NULL, version = pg_current_xact_id()::text::bigint;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_terms_lists_truncate AFTER TRUNCATE ON job_terms
FOR EACH STATEMENT EXECUTE FUNCTION jobpipe_term_lists_reset();
