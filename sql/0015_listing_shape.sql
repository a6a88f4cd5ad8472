-- A short listing is never taken for a complete one (see jobpipe/store/closing.py): each fetch
-- run records what its pages looked like. ``listing_doubts`` are reasons to doubt it is the
-- whole listing (an empty or short page in the middle, a total that disagrees with the
-- postings seen); ``ends_on_page_boundary`` says it ended on an empty page, which counts
-- against it only when it is shorter than the listing before.
ALTER TABLE fetch_runs
    ADD COLUMN listing_total         integer,
    ADD COLUMN listing_doubts        jsonb   NOT NULL DEFAULT '[]',
    ADD COLUMN ends_on_page_boundary boolean NOT NULL DEFAULT false;

-- A page replayed from a 304 must still say how many items it listed and the total it stated.
ALTER TABLE http_cache
    ADD COLUMN items integer,
    ADD COLUMN total integer;
