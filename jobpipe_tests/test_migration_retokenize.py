"""sql/0026 marks every keyword-terms row stale; the old terms serve until the next sync rewrites them."""

from __future__ import annotations

import os
import shutil
import uuid

import psycopg

from jobpipe.config import SQL_DIR
from jobpipe.db import migrate, with_database
from jobpipe.db.connection import database_url
from jobpipe.store import sync_job_terms


def test_terms_written_before_the_grouped_number_tokenizer_are_computed_again(tmp_path):
    before = tmp_path / "sql"
    before.mkdir()
    for path in SQL_DIR.glob("*.sql"):
        if path.name[:4].isdigit() and int(path.name[:4]) < 26:
            shutil.copy(path, before / path.name)
    base = database_url()
    name = f"jobpipe_test_mig_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = with_database(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    try:
        migrate(url, before)
        with psycopg.connect(url) as conn:
            job_id = conn.execute(
                "INSERT INTO jobs (source, external_id, title, description_text, content_hash, record_hash) "
                "VALUES ('s', 'e1', 'Account Manager', 'Pay: $8,000 a month', 'c1', 'r1') RETURNING job_id"
            ).fetchone()[0]
            sync_job_terms(conn, workers=0)
            # the terms as the old tokenizer wrote them: the digit groups apart
            conn.execute("UPDATE job_terms SET search_tsv = to_tsvector('simple', 'account manager pay 8 000 month') "
                         "WHERE job_id = %s", (job_id,))
            conn.commit()
        migrate(url)
        with psycopg.connect(url) as conn:
            lexemes = "SELECT tsvector_to_array(search_tsv) FROM job_terms WHERE job_id = %s"
            assert "000" in conn.execute(lexemes, (job_id,)).fetchone()[0]   # still serving, until the sync
            counts = sync_job_terms(conn, workers=0)
            conn.commit()
            assert counts.computed == 1
            words = conn.execute(lexemes, (job_id,)).fetchone()[0]
            assert "8000" in words and "000" not in words
            assert conn.execute("SELECT content_hash FROM job_terms WHERE job_id = %s", (job_id,)).fetchone()[0] == "c1"
            assert sync_job_terms(conn, workers=0).computed == 0
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
