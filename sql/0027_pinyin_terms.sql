-- 0027: keyword terms are computed again, once, for the pinyin of the Chinese words of each
-- posting's title and company (jobpipe.text.pinyin: 链家 -> the marked term py0lianjia), which an
-- English query naming a Chinese employer in pinyin ("Lianjia real estate agent") looks up.
--
-- Why this way (as sql/0026): a row's terms carry the content_hash they were computed from,
-- and sync_job_terms recomputes every row whose hash differs from its posting's. Clearing the
-- hash marks every row stale without touching the terms themselves, so the old terms keep
-- serving search until the next sync (the nightly run's keyword-terms step, or `jobpipe run`)
-- writes the new ones.
UPDATE job_terms SET content_hash = '';
