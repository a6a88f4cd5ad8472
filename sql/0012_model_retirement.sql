-- 0012: when a model was retired, so its vectors can be dropped after a grace period.
--
-- A model switch keeps the previous model's vectors (switching back within the grace period
-- re-embeds only what changed). After it they cost disk, an HNSW index and vacuum time for
-- nothing: jobpipe.store.prune_retired_models deletes them once retired_at is old enough.
ALTER TABLE embedding_models ADD COLUMN retired_at timestamptz;
UPDATE embedding_models SET retired_at = now() WHERE state = 'retired';
