-- The query service's read-only database role.
--
-- The service (HTTP and MCP) only reads what the pipeline materializes. It runs every
-- statement as `jobpipe_reader`: either it connects with its own login as that role
-- (JOBPIPE_SERVICE_DATABASE_URL) or it connects with the pipeline's login and issues
-- `SET ROLE jobpipe_reader` on each pooled connection. A bug or an injected string in
-- the service can then read, but never change or drop, data.
--
-- Roles are cluster-wide while migrations run per database (tests create one database per
-- session, concurrently), so creation tolerates the role already existing or being
-- created at the same moment by another migration.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobpipe_reader') THEN
        BEGIN
            -- LOGIN without a password: usable only where the server's auth rules allow
            -- it (set one with ALTER ROLE ... PASSWORD for a networked server).
            CREATE ROLE jobpipe_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
END
$$;

DO $$
BEGIN
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO jobpipe_reader', current_database());
END
$$;

GRANT USAGE ON SCHEMA public TO jobpipe_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO jobpipe_reader;
-- Tables and views created by later migrations (run by the same owner) are readable too.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO jobpipe_reader;
-- Nothing else: no INSERT/UPDATE/DELETE/TRUNCATE, no sequence USAGE, no CREATE on the schema.
REVOKE CREATE ON SCHEMA public FROM jobpipe_reader;
