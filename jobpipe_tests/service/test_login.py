"""The service logs in as its own reader and cannot become the owner; migrating creates no role.

Real server, real roles: each test connects as the service's login and tries what an
injected statement would try.
"""

from __future__ import annotations

import shutil
import uuid

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from jobpipe.db import migrate, with_database
from jobpipe.db.connection import database_name
from jobpipe.db.migrate import SUPERSEDED, load_migrations
from jobpipe.db.roles import (
    SERVING_OBJECTS,
    ServiceRoleError,
    drop_service_login,
    ensure_service_login,
    login_url,
    service_role_name,
)
from jobpipe.service.api import create_app
from jobpipe.service.login import resolve_login
from jobpipe.service.pool import connect_service
from jobpipe.service.settings import ServiceConfigError, ServiceSettings
from jobpipe_tests.service.support import HashEmbedder


@pytest.fixture
def role_admin(database: str) -> str:
    """The test database's URL, when its login may create roles; else the test skips, saying why.

    On an operator's server the app's owner rightly lacks CREATEROLE, so the tests that set up
    logins of their own cannot run there; the rest of this module still does.
    """
    with psycopg.connect(database) as conn:
        allowed = conn.execute("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
                               ).fetchone()[0]
    if not allowed:
        pytest.skip("the test database's login may not create roles (an operator's server): "
                    "this test sets logins up itself")
    return database


def _owner(database: str) -> str:
    with psycopg.connect(database) as conn:
        return conn.execute("SELECT current_user").fetchone()[0]


def test_the_service_cannot_become_the_owner(database, service_database, seeded):
    owner = _owner(database)
    me = conninfo_to_dict(service_database)["user"]
    assert me != owner
    with connect_service(service_database, ServiceSettings()) as conn:
        assert conn.execute("SELECT current_user, session_user").fetchone() == (me, me)
        assert conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == len(seeded)
        conn.commit()

        # RESET ROLE goes back to the login itself: there is no other role to return to.
        conn.execute("RESET ROLE")
        assert conn.execute("SELECT current_user").fetchone()[0] == me
        # Everything below fails on privileges alone, with the read-only transaction default off.
        conn.execute("SET default_transaction_read_only = off")
        conn.commit()
        for escalate in [sql.SQL("SET ROLE {}").format(sql.Identifier(owner)),
                         sql.SQL("SET SESSION AUTHORIZATION {}").format(sql.Identifier(owner)),
                         sql.SQL("SET ROLE pg_write_all_data"), sql.SQL("SET ROLE pg_read_server_files"),
                         sql.SQL("GRANT {} TO {}").format(sql.Identifier(owner), sql.Identifier(me)),
                         sql.SQL("ALTER ROLE {} SUPERUSER").format(sql.Identifier(me))]:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(escalate)
            conn.rollback()
            assert conn.execute("SELECT current_user").fetchone()[0] == me
            conn.rollback()

        for statement in [
            "INSERT INTO jobs (source, external_id, title, content_hash, record_hash) VALUES ('x', 'x', 'x', 'x', 'x')",
            "UPDATE jobs SET title = 'pwned'", "DELETE FROM candidates", "TRUNCATE jobs",
            "CREATE TABLE scratch (x int)", "CREATE TEMP TABLE scratch (x int)", "DROP TABLE jobs",
            "ALTER TABLE jobs ADD COLUMN pwned int", "CREATE INDEX ON jobs (title)", "CREATE SCHEMA pwned",
            "CREATE FUNCTION public.pwned() RETURNS int LANGUAGE sql AS 'SELECT 1'",
            "COPY jobs FROM PROGRAM 'true'", "COPY (SELECT 1) TO '/tmp/jobpipe_pwned'",
            "SELECT count(*) FROM raw_postings", "SELECT count(*) FROM quarantine",
            "SELECT pg_read_file('postgresql.conf')",
        ]:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
        # What it may read, it reads: every serving object.
        for name in SERVING_OBJECTS:
            conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(sql.Identifier(name)))
        conn.rollback()


def test_the_login_runs_the_search_functions_where_public_may_not(database, service_database, seeded):
    """A hardened server revokes EXECUTE from PUBLIC; the login's own grant still lets search
    evaluate two equality filters through their keys (jobpipe.search.vector.exact_filter)."""
    from jobpipe.db.roles import SERVING_FUNCTIONS, refresh_grants

    signatures = [sql.SQL("public.{}").format(sql.SQL(f)) for f in SERVING_FUNCTIONS]
    with psycopg.connect(database, autocommit=True) as owner:
        for signature in signatures:
            owner.execute(sql.SQL("REVOKE EXECUTE ON FUNCTION {} FROM PUBLIC").format(signature))
        refresh_grants(owner)
    try:
        with connect_service(service_database, ServiceSettings()) as conn:
            keys = conn.execute("SELECT jobpipe_filter_keys('{Berlin}', '{Python}', 'intern', 'remote', '{}')"
                                ).fetchone()[0]
            assert keys == ["city:Berlin", "job_type:intern", "remote:stated", "skill:Python"]
            combined = conn.execute("SELECT jobpipe_filter_combinations('{Berlin}', 'intern', 'remote', '{}')"
                                    ).fetchone()[0]
            assert combined == ["city:Berlin&job_type:intern", "city:Berlin&job_type:intern&remote:stated",
                                "city:Berlin&remote:stated", "job_type:intern&remote:stated"]
            conn.rollback()
    finally:
        with psycopg.connect(database, autocommit=True) as owner:
            for signature in signatures:
                owner.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO PUBLIC").format(signature))


def test_the_embedded_default_sets_the_login_up_itself(database, seeded):
    # Pointed at the owner's URL on jobpipe's own server, the service swaps it for its login.
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    with TestClient(app) as client:
        role = client.get("/health").json()["database"]["role"]
    assert role == service_role_name(database_name(database)) != _owner(database)
    assert conninfo_to_dict(resolve_login(database))["user"] == role


def test_elsewhere_the_service_refuses_the_owner_login(database, monkeypatch):
    monkeypatch.setattr("jobpipe.service.login.serves", lambda url, settings=None: False)   # a server jobpipe does not run
    with pytest.raises(ServiceConfigError, match=r"jobpipe db service-role.*JOBPIPE_SERVICE_DATABASE_URL"):
        resolve_login(database)
    app = create_app(ServiceSettings(database_url=database), embedder=HashEmbedder())
    with pytest.raises(ServiceConfigError, match="superuser|owns"):
        with TestClient(app):
            pass


def test_a_login_with_memberships_is_refused(role_admin, database, monkeypatch):
    name = f"jobpipe_test_member_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
        conn.execute(sql.SQL("GRANT pg_read_all_data TO {}").format(sql.Identifier(name)))
    try:
        with pytest.raises(ServiceRoleError, match="member of pg_read_all_data"):
            ensure_service_login(database, role=name, create=False)
        monkeypatch.setattr("jobpipe.service.login.serves", lambda url, settings=None: False)
        with pytest.raises(ServiceConfigError, match="member of pg_read_all_data"):
            resolve_login(login_url(database, name))
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def test_an_operator_created_login_is_only_granted(role_admin, database):
    name = f"jobpipe_test_operator_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
    try:
        login = ensure_service_login(database, role=name, create=False)
        assert not login.created and login.role == name
        with connect_service(login.url, ServiceSettings()) as conn:
            assert conn.execute("SELECT current_user").fetchone()[0] == name
            conn.execute("SELECT count(*) FROM jobs")
        with pytest.raises(ServiceRoleError, match="does not exist"):
            ensure_service_login(database, role=name + "_missing", create=False)
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(name)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def test_a_login_that_still_holds_grants_is_left_in_place(role_admin, database):
    """DROP ROLE refuses a role with grants in a database that exists: drop_service_login keeps it, says so."""
    name = f"jobpipe_test_held_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
        conn.execute(sql.SQL("GRANT SELECT ON jobs TO {}").format(sql.Identifier(name)))
    try:
        assert drop_service_login(admin, database_name(database), role=name) is False
        with psycopg.connect(admin) as conn:
            assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (name,)).fetchone() == (1,)
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(name)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def test_migrating_creates_no_role_and_grants_follow_new_migrations(database, tmp_path):
    """Issue 13: a migration must not be a server-wide side effect; a registered login keeps its grants."""
    name = f"jobpipe_test_roles_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        roles_before = {r[0] for r in conn.execute("SELECT rolname FROM pg_roles")}
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = with_database(database, name)
    try:
        migrate(url)
        with psycopg.connect(admin) as conn:
            assert {r[0] for r in conn.execute("SELECT rolname FROM pg_roles")} == roles_before
        login = ensure_service_login(url)
        assert login.created and login.role == service_role_name(name)
        # A later migration adds a serving object: the registered login reads it without another step.
        sql_dir = tmp_path / "sql"
        shutil.copytree(migrate.__globals__["SQL_DIR"], sql_dir)
        (sql_dir / "9000_more.sql").write_text("DROP VIEW job_duplicate_groups; "
                                               "CREATE VIEW job_duplicate_groups AS SELECT 1 AS x;")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("REVOKE SELECT ON jobs FROM {}").format(sql.Identifier(login.role)))
        migrate(url, sql_dir)
        with psycopg.connect(login.url) as conn:
            assert conn.execute("SELECT x FROM job_duplicate_groups").fetchone() == (1,)
            assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        drop_service_login(admin, name)
    with psycopg.connect(admin) as conn:
        assert {r[0] for r in conn.execute("SELECT rolname FROM pg_roles")} == roles_before


def test_a_database_that_ran_the_old_0006_stays_current_and_loses_the_global_grants(role_admin, database):
    """The released 0006 (a cluster-wide jobpipe_reader) is accepted as applied; 0017 revokes its grants."""
    old = next(iter(SUPERSEDED[6]))
    assert next(m for m in load_migrations() if m.version == 6).checksum != old
    with psycopg.connect(database, autocommit=True) as conn:
        current = conn.execute("SELECT checksum FROM schema_migrations WHERE version = 6").fetchone()[0]
        created = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'jobpipe_reader'").fetchone() is None
        if created:
            conn.execute("CREATE ROLE jobpipe_reader NOLOGIN")
        try:
            conn.execute("UPDATE schema_migrations SET checksum = %s WHERE version = 6", (old,))
            conn.execute("GRANT SELECT ON jobs, raw_postings TO jobpipe_reader")
            migrate(database)   # no "changed after it was applied" error
            body = next(m for m in load_migrations() if m.version == 17).sql
            conn.execute(body[body.index("DO $$"):])
            granted = conn.execute("SELECT count(*) FROM information_schema.role_table_grants "
                                   "WHERE grantee = 'jobpipe_reader' AND table_catalog = current_database()").fetchone()
            assert granted == (0,)
        finally:
            conn.execute("UPDATE schema_migrations SET checksum = %s WHERE version = 6", (current,))
            if created:
                conn.execute("DROP OWNED BY jobpipe_reader")
                conn.execute("DROP ROLE jobpipe_reader")


def test_the_opt_in_step_prints_the_services_url(database, capsys):
    from jobpipe.cli import main

    assert main(["db", "service-role"]) == 0   # JOBPIPE_DATABASE_URL is the session database
    out = capsys.readouterr()
    assert "SELECT on" in out.err and "no role memberships" in out.err
    (line,) = [line for line in out.out.splitlines() if line.startswith("JOBPIPE_SERVICE_DATABASE_URL=")]
    url = line.split("=", 1)[1]
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == service_role_name(database_name(database))
