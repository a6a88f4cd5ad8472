-- 0036: the keyword leg checks a date or salary filter on its candidates from the primary key
-- of job_terms alone: the columns those filters read ride in it (INCLUDE, as content_hash does
-- since sql/0016), so the check is an index-only scan instead of a visit to each ~2 kB row.
--
-- Why: a filter the posting lists cannot hold (a salary floor, posted within N days: a range,
-- not a value) is checked on the rows of the keyword leg's best-scored candidates
-- (jobpipe.search.lists._checked): ~1,900 of them for a filter that keeps 8% of postings, each a
-- probe of the key and a read of the date at the end of the row, past its tsvectors. Measured on
-- the 100k speed bench: 1,875 random candidates 9.7-10.1 ms through the key and the rows, 4.1-7.5
-- ms from the key alone (three interleaved rounds of 60).
--
-- The key and its name are unchanged (uniqueness, ON CONFLICT and the content-hash scans of
-- sql/0016 read it as before); the rebuild locks job_terms for a few seconds at 1M postings.
ALTER TABLE job_terms DROP CONSTRAINT job_terms_pkey,
    ADD CONSTRAINT job_terms_pkey PRIMARY KEY (job_id)
        INCLUDE (content_hash, posted_at, salary_currency, salary_annual_max, salary_annual_min);
