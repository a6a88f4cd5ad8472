import threading

import psycopg
import pytest

from jobpipe.db import MigrationError, migrate
from jobpipe.db.migrate import applied_versions, load_migrations


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
