-- 0026: keyword terms are computed again, once, for the tokenizer that reads a number with
-- thousands separators as one token (jobpipe.text.tokenize: "$8,000" -> 8000, as a query
-- writing 8000 or 8k looks it up; before, it was the two tokens 8 and 000).
--
-- Why this way: a row's terms carry the content_hash they were computed from, and
-- sync_job_terms recomputes every row whose hash differs from its posting's. Clearing the
-- hash marks every row stale without touching the terms themselves, so the old terms keep
-- serving search until the next sync (the nightly run's keyword-terms step, or
-- `jobpipe run`) writes the new ones, in parallel processes, as it does for changed postings.
UPDATE job_terms SET content_hash = '';
