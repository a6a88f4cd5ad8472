-- Source layer: conditional-request memory, so an unchanged page costs a 304 and no parsing.
-- One row per (source, URL) that answered with an ETag or Last-Modified: the validators, and
-- what the page yielded last time (raw payload ids, links to detail pages, next listing
-- pages), so a 304 replays the page without downloading or parsing it.
CREATE TABLE http_cache (
    source         text        NOT NULL,
    url            text        NOT NULL,
    -- fingerprint of the source's kind + options: changing selectors or mappings invalidates
    config_hash    text        NOT NULL,
    etag           text,
    last_modified  text,
    raw_ids        bigint[]    NOT NULL DEFAULT '{}',
    links          text[]      NOT NULL DEFAULT '{}',
    next_links     text[]      NOT NULL DEFAULT '{}',
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, url)
);

-- load_snapshot / replay read a run's items by fetch_id (the primary key covers it); raw rows
-- of one posting are looked up by (source, external_id) when tracing history.
CREATE INDEX raw_postings_source_external ON raw_postings (source, external_id);
