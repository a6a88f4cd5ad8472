"""The query service's own login: SELECT on the serving objects of one database, nothing else.

The service never logs in as the pipeline's owner. It has a login role of its own -- by
default ``<database>_service``, one per jobpipe database, never a server-wide name -- that is
no superuser, creates nothing, is a member of no role (so there is nothing to ``SET ROLE`` or
``RESET ROLE`` into) and holds SELECT on the objects the service reads and on nothing else.

Who creates it:

* the embedded server (jobpipe's own, where jobpipe is the superuser): the service sets it up
  itself the first time it starts on a database;
* any other server: an explicit, opt-in step, ``jobpipe db service-role`` (run with the
  pipeline's login, which needs CREATEROLE to create the role; an operator can instead create
  the login and let the step only grant), or the operator by hand with the grants below.

A registered login (``service_logins``) gets its grants refreshed by every migration, so a
serving table added later is readable without another step. Migrating creates no role.

``POST``/``DELETE /candidates`` write through a second login of the same kind, the candidate
writer (``<database>_candidates``, ``jobpipe db service-role --candidate-writer``): it reads
what the reader reads and may write the candidate tables (:data:`CANDIDATE_WRITES`) and
nothing else, so the read pool stays read-only whatever a request does.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from urllib.parse import quote

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from jobpipe.db.migrate import MIGRATION_LOCK_ID
from jobpipe.db.rows import one

#: Everything the service reads (tables and views in ``public``); SELECT on these, nothing else.
SERVING_OBJECTS: tuple[str, ...] = (
    "jobs", "job_terms", "job_embeddings", "job_filter_vectors", "embedding_models", "serving_jobs",
    "job_duplicate_groups", "serving_snapshots", "fetch_runs", "candidates", "candidate_embeddings", "candidate_matches",
    "candidate_match_state", "match_calibration", "job_skill_tiers", "schema_migrations",
    "term_lists", "term_lists_queue", "term_lists_state", "term_lists_dead",
)
#: Functions search calls (by signature): granted to the login itself, so a server where PUBLIC
#: may not execute functions (a hardened managed service) still serves every filter.
SERVING_FUNCTIONS: tuple[str, ...] = ("jobpipe_filter_keys(text[], text[], text, text, jsonb)",
                                      "jobpipe_filter_combinations(text[], text, text, jsonb)")
#: What the candidate writer may do beyond reading: the candidate tables only (adding, editing
#: and deleting one candidate: its profile, vector, match list; a deleted drop-folder file's
#: quarantine entry). Never jobs, never the pipeline's own state.
CANDIDATE_WRITES: dict[str, str] = {
    "candidates": "SELECT, INSERT, UPDATE, DELETE",
    "candidate_embeddings": "SELECT, INSERT, UPDATE, DELETE",
    "candidate_matches": "SELECT, INSERT, UPDATE, DELETE",
    "candidate_match_state": "SELECT, INSERT, UPDATE, DELETE",
    "candidate_quarantine": "SELECT, DELETE",
}
WRITER_SUFFIX = "_candidates"
_MAX_NAME = 63   # PostgreSQL truncates identifiers beyond NAMEDATALEN - 1 bytes


class ServiceRoleError(RuntimeError):
    """The service's login cannot be set up or is not safe to use (the message says why and what to do)."""


@dataclass(frozen=True)
class ServiceLogin:
    role: str
    url: str                  # connection string for the service (with the password when one was set now)
    created: bool = False     # created by this call
    password: str | None = None


def service_role_name(database: str, suffix: str = "_service") -> str:
    """``<database>_service`` (the candidate writer: ``<database>_candidates``), shortened with a
    hash when the name would pass 63 bytes."""
    name = f"{database}{suffix}"
    if len(name.encode()) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(database.encode()).hexdigest()[:8]
    head = database.encode()[:_MAX_NAME - len(suffix) - 9].decode(errors="ignore")
    return f"{head}_{digest}{suffix}"


def writer_role_name(database: str) -> str:
    """``<database>_candidates``: the login ``POST``/``DELETE /candidates`` write with."""
    return service_role_name(database, WRITER_SUFFIX)


def login_url(url: str, role: str, password: str | None = None) -> str:
    """``url`` (URL or key=value form) logging in as ``role``; a URL stays a URL."""
    params = conninfo_to_dict(url)
    params["user"] = role
    params.pop("password", None)
    if password is not None:
        params["password"] = password
    if not url.startswith(("postgresql://", "postgres://")):
        return make_conninfo("", **params)
    host, port, dbname = params.pop("host", ""), params.pop("port", None), params.pop("dbname", "")
    auth = quote(role, safe="") + (":" + quote(password, safe="") if password is not None else "")
    query = {k: v for k, v in params.items() if k not in ("user", "password")}
    netloc = "" if host and str(host).startswith("/") else f"{host}{':' + str(port) if port else ''}"
    if host and str(host).startswith("/"):
        query = {"host": host, **({"port": port} if port else {}), **query}
    text = f"postgresql://{auth}@{netloc}/{quote(str(dbname), safe='')}"
    if query:
        text += "?" + "&".join(f"{k}={quote(str(v), safe='/')}" for k, v in query.items())
    return text


def unsafe_reasons(conn: psycopg.Connection, role: str) -> list[str]:
    """Why ``role`` must not serve (empty when it is a plain login with no memberships)."""
    row = conn.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, "
        "(SELECT array_agg(g.rolname ORDER BY g.rolname) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
        " WHERE m.member = r.oid) FROM pg_roles r WHERE rolname = %s", (role,)).fetchone()
    if row is None:
        return [f"role {role!r} does not exist"]
    reasons = [what for flag, what in zip(row[:5], ("is a superuser", "can create roles", "can create databases",
                                                    "can start replication", "bypasses row security")) if flag]
    if row[5]:
        reasons.append(f"is a member of {', '.join(row[5])} (it could SET ROLE to them)")
    owned = conn.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND pg_get_userbyid(c.relowner) = %s", (role,)).fetchone()
    if owned and owned[0]:
        reasons.append(f"owns {owned[0]} of the database's tables")
    if one(conn.execute("SELECT pg_get_userbyid(datdba) = %s FROM pg_database WHERE datname = current_database()",
                        (role,)))[0]:
        reasons.append("owns the database")
    return reasons


def _role_exists(conn: psycopg.Connection, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


def grant_serving(conn: psycopg.Connection, role: str, *, candidate_writer: bool = False) -> int:
    """Give ``role`` SELECT on the serving objects that exist, and take back anything else it holds here.

    ``candidate_writer``: also the writes of :data:`CANDIDATE_WRITES`. Run as the objects' owner.
    Returns how many objects it can read.
    """
    with conn.transaction():
        # Serialized with migrations (and other grants): concurrent GRANTs on one object fail.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_ID,))
        ident = sql.Identifier(role)
        database = sql.Identifier(one(conn.execute("SELECT current_database()"))[0])
        conn.execute(sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}").format(ident))
        conn.execute(sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {}").format(ident))
        conn.execute(sql.SQL("REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM {}").format(ident))
        conn.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM {}").format(ident))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(ident))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(database, ident))
        present = [r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relname = ANY(%s) AND c.relkind IN ('r', 'v', 'm', 'p')",
            (list(SERVING_OBJECTS),))]
        if present:
            conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier("public", name) for name in sorted(present)), ident))
        for signature in SERVING_FUNCTIONS:
            if one(conn.execute("SELECT to_regprocedure(%s) IS NOT NULL", (f"public.{signature}",)))[0]:
                conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION public.{} TO {}").format(sql.SQL(signature), ident))
        if candidate_writer:
            writable = [r[0] for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relname = ANY(%s) AND c.relkind IN ('r', 'p')",
                (list(CANDIDATE_WRITES),))]
            for name in writable:
                conn.execute(sql.SQL("GRANT {} ON {} TO {}").format(
                    sql.SQL(CANDIDATE_WRITES[name]), sql.Identifier("public", name), ident))
        # Temporary tables are DDL too: by default every role may create them (PUBLIC holds TEMP).
        # Only the database's owner (or a superuser) can take that back; otherwise it stays.
        can_alter = one(conn.execute(
            "SELECT pg_has_role(current_user, datdba, 'USAGE') OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
            "FROM pg_database WHERE datname = current_database()"))[0]
        if can_alter:
            conn.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(database))
            conn.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(database, ident))
        if _has_writer_column(conn):
            conn.execute("INSERT INTO service_logins (role, writes_candidates) VALUES (%s, %s) ON CONFLICT (role) "
                         "DO UPDATE SET granted_at = now(), writes_candidates = EXCLUDED.writes_candidates",
                         (role, candidate_writer))
        else:   # migrations before 0018
            conn.execute("INSERT INTO service_logins (role) VALUES (%s) ON CONFLICT (role) DO UPDATE SET "
                         "granted_at = now()", (role,))
    return len(present)


def _has_writer_column(conn: psycopg.Connection) -> bool:
    return one(conn.execute(
        "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' "
        "AND table_name = 'service_logins' AND column_name = 'writes_candidates')"))[0]


def refresh_grants(conn: psycopg.Connection) -> list[str]:
    """Re-grant every registered service login that still exists (after migrations added objects)."""
    if one(conn.execute("SELECT to_regclass('service_logins') IS NULL"))[0]:
        return []
    writer = "writes_candidates" if _has_writer_column(conn) else "false"
    roles = conn.execute(f"SELECT role, {writer} FROM service_logins ORDER BY role").fetchall()
    done = []
    for role, writes in roles:
        if _role_exists(conn, role):
            grant_serving(conn, role, candidate_writer=bool(writes))
            done.append(role)
    return done


def ensure_service_login(owner_url: str, *, role: str | None = None, password: bool | str = False,
                         create: bool = True, candidate_writer: bool = False) -> ServiceLogin:
    """The service's login for the database at ``owner_url``, created if missing, with its grants.

    ``owner_url`` logs in as the owner of jobpipe's tables (the pipeline's login). ``password``:
    True draws a random one (for a server reached over the network), a string sets that one,
    False sets none (the embedded server trusts its local socket). An existing role keeps its
    password unless one is given. ``create=False`` only grants (an operator created the role).
    Refuses a role that could act as more than a reader (superuser, memberships, ownership).
    ``candidate_writer``: the candidate writer's login instead (default name ``<database>_candidates``).
    """
    with psycopg.connect(owner_url, autocommit=True) as conn:
        database = one(conn.execute("SELECT current_database()"))[0]
        name = role or (writer_role_name(database) if candidate_writer else service_role_name(database))
        secret = secrets.token_urlsafe(24) if password is True else (password or None)
        created = False
        if not _role_exists(conn, name):
            if not create:
                raise ServiceRoleError(f"role {name!r} does not exist; create it (CREATE ROLE {name} LOGIN "
                                       "PASSWORD '...') or let `jobpipe db service-role` create it")
            statement = sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION "
                                "NOBYPASSRLS").format(sql.Identifier(name))
            if secret is not None:
                statement += sql.SQL(" PASSWORD {}").format(sql.Literal(secret))
            try:
                conn.execute(statement)
                created = True
            except psycopg.errors.DuplicateObject:
                pass   # created at the same moment by another process
            except psycopg.errors.InsufficientPrivilege:
                raise ServiceRoleError(
                    f"cannot create role {name!r}: this login may not create roles. Ask the server's "
                    f"administrator to run CREATE ROLE {name} LOGIN PASSWORD '...', then run "
                    f"`jobpipe db service-role --role {name} --no-create`") from None
        elif secret is not None:
            try:
                conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(name), sql.Literal(secret)))
            except psycopg.errors.InsufficientPrivilege:
                raise ServiceRoleError(
                    f"cannot set the password of role {name!r}: this login may not alter roles. Leave out "
                    "--password (the administrator's password stays) or ask the administrator to set it") from None
        reasons = unsafe_reasons(conn, name)
        if reasons:
            raise ServiceRoleError(f"refusing to use {name!r} as the service's login: it {'; '.join(reasons)}. "
                                   "The service needs a plain login role with no memberships")
        if one(conn.execute("SELECT to_regclass('service_logins') IS NULL"))[0]:
            raise ServiceRoleError("the database is not migrated: run any jobpipe command with the pipeline's login first")
        grant_serving(conn, name, candidate_writer=candidate_writer)
    return ServiceLogin(role=name, url=login_url(owner_url, name, secret), created=created, password=secret)


def drop_service_login(admin_url: str, database: str, role: str | None = None) -> bool:
    """Drop the service logins (reader and candidate writer) of a database that is gone (test
    databases), or ``role``; False if there was none to drop."""
    names = [role] if role else [service_role_name(database), writer_role_name(database)]
    dropped = False
    with psycopg.connect(admin_url, autocommit=True) as conn:
        for name in names:
            if not _role_exists(conn, name):
                continue
            try:
                conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))
                dropped = True
            except psycopg.errors.DependentObjectsStillExist:
                pass   # it still holds grants in a database that exists: leave it
    return dropped
