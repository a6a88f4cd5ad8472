-- The scales a model's match scores are computed on, beside its similarity floor, frozen with it
-- (jobpipe.candidates.matching.calibrate) so that every list of a model, built in full or
-- refreshed in part at night, is scored alike:
--   similarity_ceiling: the similarity the semantic part reaches 100 at (the 99th percentile of
--                       random posting pairs: as close as the closest 1% of postings);
--   skill_weights:      each skill's weight in the skills part, by its rarity among the open jobs.
-- NULL: measured before these existed; the next refresh measures all again and rebuilds every list.
ALTER TABLE match_calibration ADD COLUMN similarity_ceiling real;
ALTER TABLE match_calibration ADD COLUMN skill_weights jsonb;
