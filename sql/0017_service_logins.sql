-- The query service's logins, one per database and opt-in (jobpipe.db.roles, `jobpipe db
-- service-role`; the embedded server sets one up itself). Each registered role is granted
-- SELECT on the serving objects and nothing else, again after every migration, so a serving
-- table added later is readable without another step. Migrating never creates a role.
CREATE TABLE service_logins (
    role       name PRIMARY KEY,
    granted_at timestamptz NOT NULL DEFAULT now()
);

-- Databases migrated while 0006 still created the cluster-wide `jobpipe_reader`: take back
-- what it was given in this database (the role itself is the server's; drop it with
-- DROP ROLE jobpipe_reader once no database on the server uses it).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobpipe_reader') THEN
        EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM jobpipe_reader';
        EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM jobpipe_reader';
        EXECUTE 'REVOKE ALL ON SCHEMA public FROM jobpipe_reader';
        EXECUTE format('REVOKE ALL ON DATABASE %I FROM jobpipe_reader', current_database());
    END IF;
END
$$;
