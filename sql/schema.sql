-- The current jobpipe schema, generated from a freshly migrated database by
-- `make schema` (python -m jobpipe.db.schema --write). Do not edit: change sql/NNNN_*.sql.

--
-- PostgreSQL database dump
--

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';

--
-- Name: jobpipe_filter_combinations(text[], text, text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_filter_combinations(cities text[], job_type text, remote text, field_origins jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    WITH s(stated) AS (SELECT remote = 'remote' AND field_origins->>'remote' IS DISTINCT FROM 'inferred')
    SELECT ARRAY(SELECT DISTINCT key FROM (
        SELECT 'city:' || c || '&job_type:' || job_type FROM unnest(cities) c WHERE job_type IS NOT NULL
        UNION ALL SELECT 'city:' || c || '&remote:stated' FROM unnest(cities) c, s WHERE s.stated
        UNION ALL SELECT 'job_type:' || job_type || '&remote:stated' FROM s WHERE job_type IS NOT NULL AND s.stated
        UNION ALL SELECT 'city:' || c || '&job_type:' || job_type || '&remote:stated'
            FROM unnest(cities) c, s WHERE job_type IS NOT NULL AND s.stated
    ) v(key) ORDER BY key)
$$;

--
-- Name: jobpipe_filter_keys(text[], text[], text, text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_filter_keys(cities text[], skills text[], job_type text, remote text, field_origins jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT ARRAY(SELECT DISTINCT key FROM (
        SELECT 'city:' || c FROM unnest(cities) c
        UNION ALL SELECT 'skill:' || s FROM unnest(skills) s
        UNION ALL SELECT 'job_type:' || job_type WHERE job_type IS NOT NULL
        UNION ALL SELECT 'remote:stated' WHERE remote = 'remote' AND field_origins->>'remote' IS DISTINCT FROM 'inferred'
    ) v(key) ORDER BY key)
$$;

--
-- Name: jobpipe_job_filter_vectors_write(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_job_filter_vectors_write() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO job_filter_vectors AS v (job_id, model, embedding, closed_at, cities, skills, job_type, remote,
                                         posted_at, salary_currency, salary_annual_max, salary_annual_min,
                                         location_raw, field_origins)
    SELECT NEW.job_id, NEW.model, l2_normalize(NEW.embedding)::halfvec, j.closed_at, j.cities, j.skills, j.job_type,
           j.remote, j.posted_at, j.salary_currency, j.salary_annual_max, j.salary_annual_min, j.location_raw,
           j.field_origins
    FROM jobs j WHERE j.job_id = NEW.job_id
    FOR SHARE
    ON CONFLICT (job_id, model) DO UPDATE SET
        embedding = EXCLUDED.embedding, closed_at = EXCLUDED.closed_at, cities = EXCLUDED.cities,
        skills = EXCLUDED.skills, job_type = EXCLUDED.job_type, remote = EXCLUDED.remote,
        posted_at = EXCLUDED.posted_at, salary_currency = EXCLUDED.salary_currency,
        salary_annual_max = EXCLUDED.salary_annual_max, salary_annual_min = EXCLUDED.salary_annual_min,
        location_raw = EXCLUDED.location_raw, field_origins = EXCLUDED.field_origins;
    RETURN NULL;
END
$$;

--
-- Name: jobpipe_job_terms_filters(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_job_terms_filters() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE job_terms
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, salary_annual_min = NEW.salary_annual_min,
        location_raw = NEW.location_raw, field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    UPDATE job_filter_vectors
    SET closed_at = NEW.closed_at, cities = NEW.cities, skills = NEW.skills, job_type = NEW.job_type,
        remote = NEW.remote, posted_at = NEW.posted_at, salary_currency = NEW.salary_currency,
        salary_annual_max = NEW.salary_annual_max, salary_annual_min = NEW.salary_annual_min,
        location_raw = NEW.location_raw, field_origins = NEW.field_origins
    WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

--
-- Name: jobpipe_term_lists_enqueue(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_term_lists_enqueue() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO term_lists_queue SELECT job_id FROM new_rows ON CONFLICT (job_id) DO NOTHING;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO term_lists_queue SELECT job_id FROM old_rows ON CONFLICT (job_id) DO NOTHING;
    ELSE
        -- Only what the lists hold: the terms, the length, whether the posting is open and the
        -- filter values listed (a copied salary or date, for one, changes nothing here).
        INSERT INTO term_lists_queue
        SELECT o.job_id FROM old_rows o JOIN new_rows n ON n.job_id = o.job_id
        WHERE (o.closed_at IS NULL) <> (n.closed_at IS NULL)
           OR o.search_length IS DISTINCT FROM n.search_length
           OR (o.cities, o.skills, o.job_type, o.remote, o.field_origins->>'remote')
              IS DISTINCT FROM (n.cities, n.skills, n.job_type, n.remote, n.field_origins->>'remote')
           OR o.search_tsv IS DISTINCT FROM n.search_tsv
           OR o.title_tsv IS DISTINCT FROM n.title_tsv
        ON CONFLICT (job_id) DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

--
-- Name: jobpipe_term_lists_reset(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_term_lists_reset() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM term_lists;
    DELETE FROM term_lists_dead;
    DELETE FROM term_lists_queue;
    UPDATE term_lists_state SET built_at = NULL, version = pg_current_xact_id()::text::bigint;
    RETURN NULL;
END
$$;

--
-- Name: jobpipe_title_terms(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobpipe_title_terms(title text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT coalesce(string_agg(term, ' '), '')
    FROM (
        SELECT m[1] AS term
        FROM regexp_matches(lower(normalize(title, NFKC)), '[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]', 'g') AS m
        UNION ALL
        SELECT CASE WHEN char_length(r[1]) = 1 THEN r[1] ELSE substr(r[1], i, 2) END
        FROM regexp_matches(normalize(title, NFKC), '[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+', 'g') AS r,
             generate_series(1, greatest(char_length(r[1]) - 1, 1)) AS i
    ) AS terms
$$;

--
-- Name: candidate_embeddings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidate_embeddings (
    candidate_id text NOT NULL,
    model text NOT NULL,
    dims integer NOT NULL,
    content_hash text NOT NULL,
    embedding public.vector NOT NULL,
    embedded_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY public.candidate_embeddings ALTER COLUMN embedding SET STORAGE MAIN;

--
-- Name: candidate_match_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidate_match_jobs (
    job_id bigint NOT NULL,
    record_hash text NOT NULL,
    model text NOT NULL
);

--
-- Name: candidate_match_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidate_match_state (
    candidate_id text NOT NULL,
    model text NOT NULL,
    match_hash text NOT NULL,
    similarity_floor real,
    complete boolean DEFAULT false NOT NULL,
    computed_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: candidate_matches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidate_matches (
    candidate_id text NOT NULL,
    job_id bigint NOT NULL,
    model text NOT NULL,
    score real NOT NULL,
    semantic real NOT NULL,
    skills real NOT NULL,
    experience real NOT NULL,
    location real NOT NULL,
    job_type real NOT NULL,
    salary real NOT NULL,
    similarity real NOT NULL,
    matched_skills text[] DEFAULT '{}'::text[] NOT NULL,
    missing_skills text[] DEFAULT '{}'::text[] NOT NULL,
    matched_nice text[] DEFAULT '{}'::text[] NOT NULL,
    missing_nice text[] DEFAULT '{}'::text[] NOT NULL,
    dedupe_key text,
    computed_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: candidate_quarantine; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidate_quarantine (
    source_file text NOT NULL,
    reason text NOT NULL,
    file_hash text,
    file_size bigint,
    file_mtime_ns bigint,
    quarantined_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: candidates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.candidates (
    candidate_id text NOT NULL,
    resume_text text NOT NULL,
    headline text,
    skills text[] DEFAULT '{}'::text[] NOT NULL,
    cities text[] DEFAULT '{}'::text[] NOT NULL,
    experience_years numeric,
    language text,
    content_hash text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    origin text DEFAULT 'folder'::text NOT NULL,
    source_file text,
    file_hash text,
    file_size bigint,
    file_mtime_ns bigint,
    profile jsonb DEFAULT '{}'::jsonb NOT NULL,
    preferences jsonb DEFAULT '{}'::jsonb NOT NULL,
    embedding_text text DEFAULT ''::text NOT NULL,
    match_hash text DEFAULT ''::text NOT NULL,
    parser_version integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT candidates_origin_check CHECK ((origin = ANY (ARRAY['folder'::text, 'api'::text, 'cli'::text])))
);

--
-- Name: COLUMN candidates.resume_text; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.candidates.resume_text IS 'The resume text with contact details and the candidate''s own name removed (jobpipe.candidates.redact).';

--
-- Name: COLUMN candidates.content_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.candidates.content_hash IS 'sha256 of embedding_text: the vector is stale when it differs.';

--
-- Name: close_acceptances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.close_acceptances (
    source text NOT NULL,
    accepted_at timestamp with time zone DEFAULT now() NOT NULL,
    note text
);

--
-- Name: embedding_models; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.embedding_models (
    model text NOT NULL,
    dims integer NOT NULL,
    state text DEFAULT 'building'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    activated_at timestamp with time zone,
    retired_at timestamp with time zone,
    CONSTRAINT embedding_models_state_check CHECK ((state = ANY (ARRAY['building'::text, 'active'::text, 'retired'::text])))
);

--
-- Name: fetch_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.fetch_runs (
    fetch_id bigint NOT NULL,
    source text NOT NULL,
    partition_date date NOT NULL,
    kind text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    complete boolean DEFAULT false NOT NULL,
    error text,
    requests integer DEFAULT 0 NOT NULL,
    not_modified integer DEFAULT 0 NOT NULL,
    bytes_received bigint DEFAULT 0 NOT NULL,
    postings_seen integer DEFAULT 0 NOT NULL,
    dagster_run_id text,
    quarantined integer DEFAULT 0 NOT NULL,
    listing_total integer,
    listing_doubts jsonb DEFAULT '[]'::jsonb NOT NULL,
    ends_on_page_boundary boolean DEFAULT false NOT NULL,
    listing_digest bytea,
    listed_new integer DEFAULT 0 NOT NULL,
    listed_changed integer DEFAULT 0 NOT NULL,
    listed_removed integer DEFAULT 0 NOT NULL,
    unlisted text[],
    listed_only text[],
    normalized_with text,
    curated_at timestamp with time zone
);

--
-- Name: fetch_runs_fetch_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.fetch_runs_fetch_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: fetch_runs_fetch_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.fetch_runs_fetch_id_seq OWNED BY public.fetch_runs.fetch_id;

--
-- Name: http_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.http_cache (
    source text NOT NULL,
    url text NOT NULL,
    config_hash text NOT NULL,
    etag text,
    last_modified text,
    raw_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    links text[] DEFAULT '{}'::text[] NOT NULL,
    next_links text[] DEFAULT '{}'::text[] NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    items integer,
    total integer
);

--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    job_id bigint NOT NULL,
    source text NOT NULL,
    external_id text NOT NULL,
    title text NOT NULL,
    company text,
    location_raw text,
    cities text[] DEFAULT '{}'::text[] NOT NULL,
    country text,
    remote text,
    job_type text,
    seniority text,
    salary_min numeric,
    salary_max numeric,
    salary_currency text,
    salary_period text,
    salary_months integer,
    salary_negotiable boolean DEFAULT false NOT NULL,
    salary_annual_min numeric,
    salary_annual_max numeric,
    experience_min numeric,
    experience_max numeric,
    degree text,
    skills text[] DEFAULT '{}'::text[] NOT NULL,
    language text,
    description_text text DEFAULT ''::text NOT NULL,
    url text,
    posted_at timestamp with time zone,
    valid_through timestamp with time zone,
    content_hash text NOT NULL,
    record_hash text NOT NULL,
    dedupe_key text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    closed_at timestamp with time zone,
    observed_at timestamp with time zone,
    field_origins jsonb DEFAULT '{}'::jsonb NOT NULL,
    notes text[] DEFAULT '{}'::text[] NOT NULL
)
WITH (fillfactor='90');
ALTER TABLE ONLY public.jobs ALTER COLUMN external_id SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN title SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN company SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN location_raw SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN description_text SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN url SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN content_hash SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN record_hash SET STATISTICS 0;
ALTER TABLE ONLY public.jobs ALTER COLUMN dedupe_key SET STATISTICS 0;

--
-- Name: job_duplicate_groups; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.job_duplicate_groups AS
 SELECT dedupe_key,
    count(*) AS postings,
    array_agg(job_id ORDER BY job_id) AS job_ids
   FROM public.jobs
  WHERE ((closed_at IS NULL) AND (dedupe_key IS NOT NULL))
  GROUP BY dedupe_key
 HAVING (count(*) > 1);

--
-- Name: job_embeddings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_embeddings (
    job_id bigint NOT NULL,
    model text NOT NULL,
    dims integer NOT NULL,
    content_hash text NOT NULL,
    embedding public.vector NOT NULL,
    embedded_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY public.job_embeddings ALTER COLUMN embedding SET STORAGE MAIN;

--
-- Name: job_filter_vectors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_filter_vectors (
    job_id bigint NOT NULL,
    model text NOT NULL,
    embedding public.halfvec NOT NULL,
    closed_at timestamp with time zone,
    cities text[] DEFAULT '{}'::text[] NOT NULL,
    skills text[] DEFAULT '{}'::text[] NOT NULL,
    job_type text,
    remote text,
    posted_at timestamp with time zone,
    salary_currency text,
    salary_annual_max numeric,
    salary_annual_min numeric,
    location_raw text,
    field_origins jsonb DEFAULT '{}'::jsonb NOT NULL
)
WITH (fillfactor='90');
ALTER TABLE ONLY public.job_filter_vectors ALTER COLUMN embedding SET STORAGE MAIN;

--
-- Name: job_skill_tiers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_skill_tiers (
    job_id bigint NOT NULL,
    content_hash text NOT NULL,
    nice_to_have text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: job_terms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_terms (
    job_id bigint NOT NULL,
    content_hash text NOT NULL,
    search_length integer NOT NULL,
    search_tsv tsvector NOT NULL,
    title_tsv tsvector NOT NULL,
    closed_at timestamp with time zone,
    cities text[] DEFAULT '{}'::text[] NOT NULL,
    skills text[] DEFAULT '{}'::text[] NOT NULL,
    job_type text,
    remote text,
    posted_at timestamp with time zone,
    salary_currency text,
    salary_annual_max numeric,
    location_raw text,
    field_origins jsonb DEFAULT '{}'::jsonb NOT NULL,
    salary_annual_min numeric
)
WITH (fillfactor='90', toast_tuple_target='256');
ALTER TABLE ONLY public.job_terms ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE ONLY public.job_terms ALTER COLUMN title_tsv SET STATISTICS 1000;

--
-- Name: jobs_deferred_indexes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs_deferred_indexes (
    index_name text NOT NULL,
    definition text NOT NULL,
    deferred_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: jobs_job_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.jobs_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: jobs_job_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.jobs_job_id_seq OWNED BY public.jobs.job_id;

--
-- Name: listing_fingerprints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.listing_fingerprints (
    source text NOT NULL,
    listing_digest bytea NOT NULL,
    postings bigint NOT NULL,
    sum_high numeric NOT NULL,
    sum_low numeric NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: listing_spans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.listing_spans (
    source text NOT NULL,
    external_id text NOT NULL,
    raw_id bigint NOT NULL,
    payload_hash text NOT NULL,
    from_fetch bigint NOT NULL,
    until_fetch bigint,
    CONSTRAINT listing_spans_check CHECK (((until_fetch IS NULL) OR (until_fetch > from_fetch)))
);

--
-- Name: match_calibration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.match_calibration (
    model text NOT NULL,
    similarity_floor real NOT NULL,
    pairs integer NOT NULL,
    computed_at timestamp with time zone DEFAULT now() NOT NULL,
    similarity_ceiling real,
    skill_weights jsonb
);

--
-- Name: normalized_postings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.normalized_postings (
    source text NOT NULL,
    external_id text NOT NULL,
    raw_id bigint NOT NULL,
    fetch_id bigint,
    title text NOT NULL,
    company text,
    location_raw text,
    cities text[] DEFAULT '{}'::text[] NOT NULL,
    country text,
    remote text,
    job_type text,
    seniority text,
    salary_min numeric,
    salary_max numeric,
    salary_currency text,
    salary_period text,
    salary_months integer,
    salary_negotiable boolean DEFAULT false NOT NULL,
    salary_annual_min numeric,
    salary_annual_max numeric,
    experience_min numeric,
    experience_max numeric,
    degree text,
    skills text[] DEFAULT '{}'::text[] NOT NULL,
    language text,
    description_text text DEFAULT ''::text NOT NULL,
    url text,
    posted_at timestamp with time zone,
    valid_through timestamp with time zone,
    content_hash text NOT NULL,
    normalized_at timestamp with time zone DEFAULT now() NOT NULL,
    record_hash text NOT NULL,
    field_origins jsonb DEFAULT '{}'::jsonb NOT NULL,
    notes text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: quarantine; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.quarantine (
    quarantine_id bigint NOT NULL,
    source text NOT NULL,
    partition_date date NOT NULL,
    external_id text,
    raw_id bigint,
    fetch_id bigint,
    failed_checks jsonb NOT NULL,
    dagster_run_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    stage text DEFAULT 'normalize'::text NOT NULL,
    "position" text,
    raw_text text,
    CONSTRAINT quarantine_stage_check CHECK ((stage = ANY (ARRAY['fetch'::text, 'normalize'::text])))
);

--
-- Name: quarantine_quarantine_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.quarantine_quarantine_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: quarantine_quarantine_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.quarantine_quarantine_id_seq OWNED BY public.quarantine.quarantine_id;

--
-- Name: raw_postings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.raw_postings (
    raw_id bigint NOT NULL,
    source text NOT NULL,
    external_id text NOT NULL,
    format text NOT NULL,
    payload jsonb NOT NULL,
    payload_hash text NOT NULL,
    url text,
    first_fetched_at timestamp with time zone DEFAULT now() NOT NULL,
    last_fetched_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: raw_postings_raw_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.raw_postings_raw_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: raw_postings_raw_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.raw_postings_raw_id_seq OWNED BY public.raw_postings.raw_id;

--
-- Name: run_locks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.run_locks (
    lock text NOT NULL,
    stage text NOT NULL,
    run_id text,
    pid integer NOT NULL,
    host text NOT NULL,
    backend_pid integer NOT NULL,
    acquired_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: service_logins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.service_logins (
    role name NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL,
    writes_candidates boolean DEFAULT false NOT NULL
);

--
-- Name: serving_jobs; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.serving_jobs AS
 SELECT j.job_id,
    j.source,
    j.external_id,
    j.title,
    j.company,
    j.location_raw,
    j.cities,
    j.country,
    j.remote,
    j.job_type,
    j.seniority,
    j.salary_min,
    j.salary_max,
    j.salary_currency,
    j.salary_period,
    j.salary_months,
    j.salary_negotiable,
    j.salary_annual_min,
    j.salary_annual_max,
    j.experience_min,
    j.experience_max,
    j.degree,
    j.skills,
    j.language,
    j.description_text,
    j.url,
    j.posted_at,
    j.valid_through,
    j.content_hash,
    j.record_hash,
    j.dedupe_key,
    j.first_seen_at,
    j.updated_at,
    j.closed_at,
    e.embedding,
    e.model AS embedding_model,
    j.observed_at,
    j.field_origins,
    j.notes
   FROM ((public.jobs j
     JOIN public.embedding_models m ON ((m.state = 'active'::text)))
     LEFT JOIN public.job_embeddings e ON (((e.job_id = j.job_id) AND (e.model = m.model))));

--
-- Name: serving_snapshots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.serving_snapshots (
    snapshot_id bigint NOT NULL,
    published_at timestamp with time zone DEFAULT now() NOT NULL,
    model text,
    open_jobs integer NOT NULL,
    with_vector integer NOT NULL,
    closed_jobs integer NOT NULL,
    duplicate_groups integer NOT NULL
);

--
-- Name: serving_snapshots_snapshot_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.serving_snapshots_snapshot_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: serving_snapshots_snapshot_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.serving_snapshots_snapshot_id_seq OWNED BY public.serving_snapshots.snapshot_id;

--
-- Name: source_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.source_days (
    source text NOT NULL,
    partition_date date NOT NULL,
    normalized_at timestamp with time zone,
    passed integer,
    rejected integer,
    reject_rate double precision,
    curated_at timestamp with time zone,
    inserted integer,
    updated integer,
    unchanged integer,
    closed integer,
    would_close integer,
    close_refused boolean DEFAULT false NOT NULL,
    close_reason text,
    problems jsonb DEFAULT '{}'::jsonb NOT NULL,
    dagster_run_id text
);

--
-- Name: term_lists; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.term_lists (
    field "char" NOT NULL,
    lexeme text NOT NULL,
    tier smallint NOT NULL,
    postings bytea NOT NULL,
    CONSTRAINT term_lists_field_check CHECK ((field = ANY (ARRAY['b'::"char", 't'::"char", 'f'::"char"]))),
    CONSTRAINT term_lists_tier_check CHECK ((tier = ANY (ARRAY[0, 1])))
);
ALTER TABLE ONLY public.term_lists ALTER COLUMN postings SET STORAGE EXTERNAL;

--
-- Name: term_lists_dead; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.term_lists_dead (
    job_id bigint NOT NULL
);

--
-- Name: term_lists_queue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.term_lists_queue (
    job_id bigint NOT NULL
);

--
-- Name: term_lists_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.term_lists_state (
    only_row boolean DEFAULT true NOT NULL,
    built_at timestamp with time zone,
    merged_at timestamp with time zone,
    version bigint DEFAULT 0 NOT NULL,
    CONSTRAINT term_lists_state_only_row_check CHECK (only_row)
);

--
-- Name: fetch_runs fetch_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.fetch_runs ALTER COLUMN fetch_id SET DEFAULT nextval('public.fetch_runs_fetch_id_seq'::regclass);

--
-- Name: jobs job_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs ALTER COLUMN job_id SET DEFAULT nextval('public.jobs_job_id_seq'::regclass);

--
-- Name: quarantine quarantine_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quarantine ALTER COLUMN quarantine_id SET DEFAULT nextval('public.quarantine_quarantine_id_seq'::regclass);

--
-- Name: raw_postings raw_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raw_postings ALTER COLUMN raw_id SET DEFAULT nextval('public.raw_postings_raw_id_seq'::regclass);

--
-- Name: serving_snapshots snapshot_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.serving_snapshots ALTER COLUMN snapshot_id SET DEFAULT nextval('public.serving_snapshots_snapshot_id_seq'::regclass);

--
-- Name: candidate_embeddings candidate_embeddings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_embeddings
    ADD CONSTRAINT candidate_embeddings_pkey PRIMARY KEY (candidate_id, model) INCLUDE (content_hash);

--
-- Name: candidate_match_jobs candidate_match_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_match_jobs
    ADD CONSTRAINT candidate_match_jobs_pkey PRIMARY KEY (job_id);

--
-- Name: candidate_match_state candidate_match_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_match_state
    ADD CONSTRAINT candidate_match_state_pkey PRIMARY KEY (candidate_id);

--
-- Name: candidate_matches candidate_matches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_matches
    ADD CONSTRAINT candidate_matches_pkey PRIMARY KEY (candidate_id, job_id);

--
-- Name: candidate_quarantine candidate_quarantine_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_quarantine
    ADD CONSTRAINT candidate_quarantine_pkey PRIMARY KEY (source_file);

--
-- Name: candidates candidates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidates
    ADD CONSTRAINT candidates_pkey PRIMARY KEY (candidate_id);

--
-- Name: close_acceptances close_acceptances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.close_acceptances
    ADD CONSTRAINT close_acceptances_pkey PRIMARY KEY (source);

--
-- Name: embedding_models embedding_models_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.embedding_models
    ADD CONSTRAINT embedding_models_pkey PRIMARY KEY (model);

--
-- Name: fetch_runs fetch_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.fetch_runs
    ADD CONSTRAINT fetch_runs_pkey PRIMARY KEY (fetch_id);

--
-- Name: http_cache http_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.http_cache
    ADD CONSTRAINT http_cache_pkey PRIMARY KEY (source, url);

--
-- Name: job_embeddings job_embeddings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_embeddings
    ADD CONSTRAINT job_embeddings_pkey PRIMARY KEY (job_id, model) INCLUDE (content_hash);

--
-- Name: job_filter_vectors job_filter_vectors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_filter_vectors
    ADD CONSTRAINT job_filter_vectors_pkey PRIMARY KEY (job_id, model);

--
-- Name: job_skill_tiers job_skill_tiers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_skill_tiers
    ADD CONSTRAINT job_skill_tiers_pkey PRIMARY KEY (job_id);

--
-- Name: job_terms job_terms_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_terms
    ADD CONSTRAINT job_terms_pkey PRIMARY KEY (job_id) INCLUDE (content_hash, posted_at, salary_currency, salary_annual_max, salary_annual_min);

--
-- Name: jobs_deferred_indexes jobs_deferred_indexes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs_deferred_indexes
    ADD CONSTRAINT jobs_deferred_indexes_pkey PRIMARY KEY (index_name);

--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (job_id);

--
-- Name: jobs jobs_source_external_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_source_external_id_key UNIQUE (source, external_id);

--
-- Name: listing_fingerprints listing_fingerprints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.listing_fingerprints
    ADD CONSTRAINT listing_fingerprints_pkey PRIMARY KEY (source);

--
-- Name: listing_spans listing_spans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.listing_spans
    ADD CONSTRAINT listing_spans_pkey PRIMARY KEY (source, external_id, from_fetch);

--
-- Name: match_calibration match_calibration_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.match_calibration
    ADD CONSTRAINT match_calibration_pkey PRIMARY KEY (model);

--
-- Name: normalized_postings normalized_postings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.normalized_postings
    ADD CONSTRAINT normalized_postings_pkey PRIMARY KEY (raw_id);

--
-- Name: quarantine quarantine_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quarantine
    ADD CONSTRAINT quarantine_pkey PRIMARY KEY (quarantine_id);

--
-- Name: raw_postings raw_postings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raw_postings
    ADD CONSTRAINT raw_postings_pkey PRIMARY KEY (raw_id);

--
-- Name: raw_postings raw_postings_source_external_id_payload_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.raw_postings
    ADD CONSTRAINT raw_postings_source_external_id_payload_hash_key UNIQUE (source, external_id, payload_hash);

--
-- Name: run_locks run_locks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.run_locks
    ADD CONSTRAINT run_locks_pkey PRIMARY KEY (lock);

--
-- Name: service_logins service_logins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.service_logins
    ADD CONSTRAINT service_logins_pkey PRIMARY KEY (role);

--
-- Name: serving_snapshots serving_snapshots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.serving_snapshots
    ADD CONSTRAINT serving_snapshots_pkey PRIMARY KEY (snapshot_id);

--
-- Name: source_days source_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.source_days
    ADD CONSTRAINT source_days_pkey PRIMARY KEY (source, partition_date);

--
-- Name: term_lists_dead term_lists_dead_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.term_lists_dead
    ADD CONSTRAINT term_lists_dead_pkey PRIMARY KEY (job_id);

--
-- Name: term_lists term_lists_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.term_lists
    ADD CONSTRAINT term_lists_pkey PRIMARY KEY (field, lexeme, tier);

--
-- Name: term_lists_queue term_lists_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.term_lists_queue
    ADD CONSTRAINT term_lists_queue_pkey PRIMARY KEY (job_id);

--
-- Name: term_lists_state term_lists_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.term_lists_state
    ADD CONSTRAINT term_lists_state_pkey PRIMARY KEY (only_row);

--
-- Name: candidate_matches_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX candidate_matches_job ON public.candidate_matches USING btree (job_id);

--
-- Name: candidate_matches_ranked; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX candidate_matches_ranked ON public.candidate_matches USING btree (candidate_id, score DESC, job_id);

--
-- Name: candidates_source_file; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX candidates_source_file ON public.candidates USING btree (source_file) WHERE (source_file IS NOT NULL);

--
-- Name: embedding_models_one_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX embedding_models_one_active ON public.embedding_models USING btree ((true)) WHERE (state = 'active'::text);

--
-- Name: fetch_runs_source_date; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX fetch_runs_source_date ON public.fetch_runs USING btree (source, partition_date, fetch_id DESC);

--
-- Name: job_filter_vectors_cities; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_cities ON public.job_filter_vectors USING gin (cities) WITH (fastupdate=off);

--
-- Name: job_filter_vectors_job_types; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_job_types ON public.job_filter_vectors USING btree (model, job_type, posted_at) INCLUDE (job_id, salary_currency, salary_annual_max, salary_annual_min, embedding) WHERE ((closed_at IS NULL) AND (job_type <> 'full_time'::text) AND (public.vector_dims(embedding) <= 1000));

--
-- Name: job_filter_vectors_keys; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_keys ON public.job_filter_vectors USING gin (((public.jobpipe_filter_keys(cities, skills, job_type, remote, field_origins) || public.jobpipe_filter_combinations(cities, job_type, remote, field_origins)))) WITH (fastupdate=off) WHERE (closed_at IS NULL);

--
-- Name: job_filter_vectors_open_posted_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_open_posted_at ON public.job_filter_vectors USING btree (posted_at) WHERE (closed_at IS NULL);

--
-- Name: job_filter_vectors_skills; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_skills ON public.job_filter_vectors USING gin (skills) WITH (fastupdate=off);

--
-- Name: job_filter_vectors_stated_remote; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_filter_vectors_stated_remote ON public.job_filter_vectors USING btree (model, posted_at) INCLUDE (job_id, salary_currency, salary_annual_max, salary_annual_min, embedding) WHERE ((closed_at IS NULL) AND (remote = 'remote'::text) AND ((field_origins ->> 'remote'::text) IS DISTINCT FROM 'inferred'::text) AND (public.vector_dims(embedding) <= 1000));

--
-- Name: job_terms_cities; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_terms_cities ON public.job_terms USING gin (cities);

--
-- Name: job_terms_search_tsv; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_terms_search_tsv ON public.job_terms USING gin (search_tsv);

--
-- Name: job_terms_title_tsv; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_terms_title_tsv ON public.job_terms USING gin (title_tsv);

--
-- Name: jobs_cities; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_cities ON public.jobs USING gin (cities);

--
-- Name: jobs_content; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_content ON public.jobs USING btree (job_id) INCLUDE (content_hash, closed_at);

--
-- Name: jobs_dedupe_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_dedupe_key ON public.jobs USING btree (dedupe_key);

--
-- Name: jobs_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_open ON public.jobs USING btree (job_id) WHERE (closed_at IS NULL);

--
-- Name: jobs_open_job_type; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_open_job_type ON public.jobs USING btree (job_type) WHERE (closed_at IS NULL);

--
-- Name: jobs_open_posted_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_open_posted_at ON public.jobs USING btree (posted_at) WHERE (closed_at IS NULL);

--
-- Name: jobs_open_remote; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_open_remote ON public.jobs USING btree (remote) WHERE (closed_at IS NULL);

--
-- Name: jobs_open_valid_through; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_open_valid_through ON public.jobs USING btree (source, valid_through) WHERE ((closed_at IS NULL) AND (valid_through IS NOT NULL));

--
-- Name: jobs_skills; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_skills ON public.jobs USING gin (skills);

--
-- Name: jobs_source_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_source_open ON public.jobs USING btree (source) WHERE (closed_at IS NULL);

--
-- Name: jobs_source_open_external; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_source_open_external ON public.jobs USING btree (source, external_id) WHERE (closed_at IS NULL);

--
-- Name: listing_spans_from; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX listing_spans_from ON public.listing_spans USING btree (source, from_fetch);

--
-- Name: listing_spans_open; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX listing_spans_open ON public.listing_spans USING btree (source, external_id) INCLUDE (raw_id, payload_hash) WHERE (until_fetch IS NULL);

--
-- Name: listing_spans_raw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX listing_spans_raw ON public.listing_spans USING btree (raw_id);

--
-- Name: listing_spans_until; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX listing_spans_until ON public.listing_spans USING btree (source, until_fetch) WHERE (until_fetch IS NOT NULL);

--
-- Name: normalized_postings_source_fetch; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX normalized_postings_source_fetch ON public.normalized_postings USING btree (source, fetch_id);

--
-- Name: quarantine_normalize_raw; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX quarantine_normalize_raw ON public.quarantine USING btree (raw_id) WHERE (stage = 'normalize'::text);

--
-- Name: quarantine_source_date; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX quarantine_source_date ON public.quarantine USING btree (source, partition_date);

--
-- Name: raw_postings_source_external; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX raw_postings_source_external ON public.raw_postings USING btree (source, external_id);

--
-- Name: job_embeddings job_embeddings_to_filter_vectors; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_embeddings_to_filter_vectors AFTER INSERT OR UPDATE OF embedding ON public.job_embeddings FOR EACH ROW EXECUTE FUNCTION public.jobpipe_job_filter_vectors_write();

--
-- Name: job_terms job_terms_lists_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_terms_lists_delete AFTER DELETE ON public.job_terms REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.jobpipe_term_lists_enqueue();

--
-- Name: job_terms job_terms_lists_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_terms_lists_insert AFTER INSERT ON public.job_terms REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.jobpipe_term_lists_enqueue();

--
-- Name: job_terms job_terms_lists_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_terms_lists_truncate AFTER TRUNCATE ON public.job_terms FOR EACH STATEMENT EXECUTE FUNCTION public.jobpipe_term_lists_reset();

--
-- Name: job_terms job_terms_lists_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_terms_lists_update AFTER UPDATE ON public.job_terms REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.jobpipe_term_lists_enqueue();

--
-- Name: jobs jobs_filters_to_terms; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_filters_to_terms AFTER UPDATE ON public.jobs FOR EACH ROW WHEN ((((((((((((old.closed_at IS DISTINCT FROM new.closed_at) OR (old.cities IS DISTINCT FROM new.cities)) OR (old.skills IS DISTINCT FROM new.skills)) OR (old.job_type IS DISTINCT FROM new.job_type)) OR (old.remote IS DISTINCT FROM new.remote)) OR (old.posted_at IS DISTINCT FROM new.posted_at)) OR (old.salary_currency IS DISTINCT FROM new.salary_currency)) OR (old.salary_annual_max IS DISTINCT FROM new.salary_annual_max)) OR (old.salary_annual_min IS DISTINCT FROM new.salary_annual_min)) OR (old.location_raw IS DISTINCT FROM new.location_raw)) OR (old.field_origins IS DISTINCT FROM new.field_origins))) EXECUTE FUNCTION public.jobpipe_job_terms_filters();

--
-- Name: candidate_embeddings candidate_embeddings_candidate_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_embeddings
    ADD CONSTRAINT candidate_embeddings_candidate_id_fkey FOREIGN KEY (candidate_id) REFERENCES public.candidates(candidate_id) ON DELETE CASCADE;

--
-- Name: candidate_embeddings candidate_embeddings_model_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_embeddings
    ADD CONSTRAINT candidate_embeddings_model_fkey FOREIGN KEY (model) REFERENCES public.embedding_models(model);

--
-- Name: candidate_match_state candidate_match_state_candidate_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_match_state
    ADD CONSTRAINT candidate_match_state_candidate_id_fkey FOREIGN KEY (candidate_id) REFERENCES public.candidates(candidate_id) ON DELETE CASCADE;

--
-- Name: candidate_matches candidate_matches_candidate_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_matches
    ADD CONSTRAINT candidate_matches_candidate_id_fkey FOREIGN KEY (candidate_id) REFERENCES public.candidates(candidate_id) ON DELETE CASCADE;

--
-- Name: candidate_matches candidate_matches_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.candidate_matches
    ADD CONSTRAINT candidate_matches_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(job_id) ON DELETE CASCADE;

--
-- Name: job_embeddings job_embeddings_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_embeddings
    ADD CONSTRAINT job_embeddings_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(job_id) ON DELETE CASCADE;

--
-- Name: job_embeddings job_embeddings_model_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_embeddings
    ADD CONSTRAINT job_embeddings_model_fkey FOREIGN KEY (model) REFERENCES public.embedding_models(model);

--
-- Name: job_filter_vectors job_filter_vectors_job_id_model_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_filter_vectors
    ADD CONSTRAINT job_filter_vectors_job_id_model_fkey FOREIGN KEY (job_id, model) REFERENCES public.job_embeddings(job_id, model) ON DELETE CASCADE;

--
-- Name: job_skill_tiers job_skill_tiers_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_skill_tiers
    ADD CONSTRAINT job_skill_tiers_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(job_id) ON DELETE CASCADE;

--
-- Name: job_terms job_terms_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_terms
    ADD CONSTRAINT job_terms_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(job_id) ON DELETE CASCADE;

--
-- Name: listing_spans listing_spans_raw_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.listing_spans
    ADD CONSTRAINT listing_spans_raw_id_fkey FOREIGN KEY (raw_id) REFERENCES public.raw_postings(raw_id) ON DELETE CASCADE;

--
-- Name: normalized_postings normalized_postings_raw_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.normalized_postings
    ADD CONSTRAINT normalized_postings_raw_id_fkey FOREIGN KEY (raw_id) REFERENCES public.raw_postings(raw_id) ON DELETE CASCADE;

--
-- Name: quarantine quarantine_raw_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quarantine
    ADD CONSTRAINT quarantine_raw_id_fkey FOREIGN KEY (raw_id) REFERENCES public.raw_postings(raw_id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--
