-- Items of a listing that are not postings (a file line that is not JSON, a row without an id,
-- undecodable bytes, an API item without an id, a JobPosting block that cannot be parsed) are
-- quarantined at fetch time, next to the postings normalization rejects: one place for an
-- operator to look. ``stage`` tells them apart; a fetch-stage row keeps where the item was
-- (``position``: "postings.jsonl line 7") and the item as received (``raw_text``), so nothing
-- is lost. Its reason is ``failed_checks``, as for normalization rejects.
ALTER TABLE quarantine
    ADD COLUMN stage     text NOT NULL DEFAULT 'normalize' CHECK (stage IN ('fetch', 'normalize')),
    ADD COLUMN position  text,
    ADD COLUMN raw_text  text;

ALTER TABLE fetch_runs ADD COLUMN quarantined integer NOT NULL DEFAULT 0;
