-- Superseded by 0017_service_logins.sql (see jobpipe/db/migrate.py: SUPERSEDED).
--
-- This migration used to create a cluster-wide `jobpipe_reader` role and grant it SELECT on
-- every table: a server-wide side effect of migrating one database, and a role the service
-- reached with SET ROLE from the owner's login, one RESET ROLE away from the owner again.
-- The service now logs in as its own per-database role, created by an explicit step
-- (jobpipe.db.roles); migrating creates no role. Databases that ran the old text keep it
-- recorded (its checksum is accepted), and 0017 takes back what it granted there.
SELECT 1;
