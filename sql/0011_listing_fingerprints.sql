-- 0011: what each source's last listing hashed to, so an identical re-run skips per-posting hashing.
--
-- A source is unchanged when the count and two sums of record-hash prefixes over its open rows
-- equal those of the postings being upserted. Computing that from the postings means hashing
-- every one of them, which was most of an unchanged nightly re-run. This table remembers, per
-- source, the digest of the last upsert call that held it (jobpipe.hashing.listing_digest) and
-- the fingerprint of that call's postings of the source: a pure function of the call's input,
-- so it stays true whatever happened to the rows since -- the database still compares the open
-- rows with it on every run.
CREATE TABLE listing_fingerprints (
    source         text PRIMARY KEY,
    listing_digest bytea NOT NULL,
    postings       bigint NOT NULL,
    sum_high       numeric NOT NULL,
    sum_low        numeric NOT NULL,
    recorded_at    timestamptz NOT NULL DEFAULT now()
);
