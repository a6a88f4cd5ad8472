import threading

import psycopg
import pytest

from jobpipe.db import MigrationError, migrate
from jobpipe.db.migrate import applied_versions, load_migrations
from jobpipe.db.rows import MissingRowError, one
from jobpipe.db.server import machine_memory, memory_settings


def test_migrations_recorded_once(database):
    assert migrate(database) == []  # the session fixture already applied everything
    with psycopg.connect(database) as conn:
        versions = applied_versions(conn)
    assert versions == [m.version for m in load_migrations()]


def test_concurrent_migrate_applies_each_once(database, tmp_path):
    (tmp_path / "0001_a.sql").write_text("CREATE TABLE IF NOT EXISTS mig_probe (n int); INSERT INTO mig_probe VALUES (1);")
    (tmp_path / "0002_b.sql").write_text("INSERT INTO mig_probe VALUES (2);")
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA mig_test")
    url = database + ("&" if "?" in database else "?") + "options=-csearch_path%3Dmig_test"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            migrate(url, tmp_path)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*), sum(n) FROM mig_probe").fetchone() == (2, 3)
        assert applied_versions(conn) == [1, 2]
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("DROP SCHEMA mig_test CASCADE")


def test_database_ahead_of_code_is_refused(database, tmp_path):
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA mig_ahead")
    url = database + ("&" if "?" in database else "?") + "options=-csearch_path%3Dmig_ahead"
    migrate(url, tmp_path)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, name, checksum) VALUES (99, 'future', 'x')")
    with pytest.raises(MigrationError, match="ahead of this jobpipe"):
        migrate(url, tmp_path)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("DROP SCHEMA mig_ahead CASCADE")


def test_embedded_server_lifecycle_through_the_cli(tmp_path):
    """A second embedded server in its own JOBPIPE_HOME: start, tuned settings, status, stop."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("JOBPIPE_DATABASE_URL", "XDG_RUNTIME_DIR")}
    env["JOBPIPE_HOME"] = str(tmp_path / "home")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jobpipe.cli", "db", *args], env=env, capture_output=True,
                              text=True, timeout=120)

    try:
        url = cli("url")
        assert url.returncode == 0, url.stderr
        with psycopg.connect(url.stdout.strip()) as conn:
            wanted = memory_settings(machine_memory())["shared_buffers"]   # sized from this machine's memory
            assert conn.execute("SHOW shared_buffers").fetchone()[0] == wanted
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        status = cli("status")
        assert "running" in status.stdout and str(tmp_path) in status.stdout, (status.stdout, status.stderr)
    finally:
        stopped = cli("stop")
    assert stopped.stdout.strip() == "stopped", (stopped.stdout, stopped.stderr)
    final = cli("status")
    assert "stopped" in final.stdout, (final.stdout, final.stderr)

    # A server that cannot start says why, in one line, from its log (pg_ctl itself says only
    # "returned non-zero exit status 1").
    auto = tmp_path / "home" / "pgdata" / "postgresql.auto.conf"
    auto.write_text(auto.read_text() + "shared_buffers = 'plenty'\n")
    failed = cli("start")
    lines = [line for line in failed.stderr.splitlines() if line.strip()]
    assert failed.returncode != 0 and "Traceback" not in failed.stderr, failed.stderr[-3000:]
    assert lines[-1].startswith("jobpipe: the embedded PostgreSQL in ") and "did not start" in lines[-1]
    assert "shared_buffers" in lines[-1], lines[-1]   # what the server's log says


def test_a_migration_edited_after_it_was_applied_is_refused(database, tmp_path):
    (tmp_path / "0001_a.sql").write_text("CREATE TABLE edited_probe (n int);")
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA mig_edit")
    url = database + ("&" if "?" in database else "?") + "options=-csearch_path%3Dmig_edit"
    try:
        migrate(url, tmp_path)
        (tmp_path / "0001_a.sql").write_text("CREATE TABLE edited_probe (n int, m int);")
        with pytest.raises(MigrationError, match="0001_a.sql changed after it was applied"):
            migrate(url, tmp_path)
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("DROP SCHEMA mig_edit CASCADE")


def test_one_returns_the_row_of_a_one_row_query_and_names_a_missing_one(database):
    with psycopg.connect(database) as conn:
        assert one(conn.execute("SELECT count(*), 2 FROM jobs WHERE false")) == (0, 2)   # an aggregate: one row
        with pytest.raises(MissingRowError, match="returned none"):
            one(conn.execute("SELECT 1 WHERE false"))
