#!/bin/sh
# First start of the compose Postgres (pgvector image): what an administrator of a managed
# server does once. jobpipe then connects as an ordinary owner role; the query service as its
# own login, which the `setup` service grants SELECT on the serving objects (jobpipe db
# service-role --no-create), and the candidate writer's login, granted writes on the candidate
# tables (--candidate-writer). Passwords come from the environment (deploy/.env).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
     -v owner_pw="$JOBPIPE_DB_PASSWORD" -v service_pw="$JOBPIPE_SERVICE_DB_PASSWORD" \
     -v writer_pw="$JOBPIPE_CANDIDATES_DB_PASSWORD" <<'SQL'
CREATE ROLE jobpipe_owner LOGIN PASSWORD :'owner_pw' NOSUPERUSER NOCREATEDB NOCREATEROLE;
-- The service's login: no rights of its own and a member of no role (nothing to SET ROLE to).
CREATE ROLE jobpipe_service LOGIN PASSWORD :'service_pw' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
-- The candidate writer's login (POST/DELETE /candidates): likewise; granted writes on the
-- candidate tables only, by the `setup` service.
CREATE ROLE jobpipe_candidates LOGIN PASSWORD :'writer_pw' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
CREATE DATABASE jobpipe OWNER jobpipe_owner;
CREATE DATABASE jobpipe_dagster OWNER jobpipe_owner;
REVOKE CONNECT ON DATABASE jobpipe_dagster FROM PUBLIC;
\connect jobpipe
CREATE EXTENSION vector;
SQL
