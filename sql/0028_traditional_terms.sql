-- 0028: keyword terms are computed again, once, with traditional Chinese characters read as
-- simplified ones (jobpipe.text.traditional: 智能合約 -> 智能合约), so a posting from Taiwan or
-- Hong Kong and a query in simplified characters share their words, and the reverse.
--
-- Why this way (as sql/0026, sql/0027): clearing the content_hash marks every row stale without
-- touching its terms, so the old terms keep serving search until the next sync (the nightly
-- run's keyword-terms step, or `jobpipe run`) writes the new ones.
UPDATE job_terms SET content_hash = '';
