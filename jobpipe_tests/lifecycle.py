"""A file-drop source driven day by day through the stage functions, for lifecycle tests."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import psycopg

from jobpipe.normalize.store import normalize_fetch
from jobpipe.sources import run_source
from jobpipe.store.curate import curate_fetch
from jobpipe_tests.sources.helpers import make_config

DAY0 = date(2026, 10, 1)


def row(i: int, **changes: Any) -> dict[str, Any]:
    base = {"id": f"p{i}", "title": f"Data Engineer {i}", "company": "Acme", "location": "Berlin",
            "description": f"Build pipelines, number {i}. Python and SQL.", "url": f"https://acme.example/jobs/{i}",
            "posted_at": "2026-09-20"}
    return {**base, **changes}


class FileSource:
    """One JSONL source; ``night(rows, day)`` fetches, normalizes and curates that day."""

    def __init__(self, tmp_path: Path, name: str = "drop"):
        self.path = tmp_path / f"{name}.jsonl"
        self.name = name
        self.path.touch()
        self.config = make_config(name, "file", tmp_path, path=self.path.name)

    def fetch(self, conn: psycopg.Connection, rows: list[dict[str, Any]], day: int):  # noqa: ANN201
        self.path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        # observed now: the order of observations is the real one
        return run_source(conn, self.config, DAY0 + timedelta(days=day))

    def process(self, conn: psycopg.Connection, day: int):  # noqa: ANN201
        normalized = normalize_fetch(conn, self.name, DAY0 + timedelta(days=day))
        curated = curate_fetch(conn, self.name, DAY0 + timedelta(days=day))
        return normalized, curated

    def night(self, conn: psycopg.Connection, rows: list[dict[str, Any]], day: int):  # noqa: ANN201
        fetched = self.fetch(conn, rows, day)
        return (fetched, *self.process(conn, day))


def job(conn: psycopg.Connection, external_id: str) -> dict[str, Any]:
    cur = conn.execute("SELECT title, closed_at, observed_at, valid_through, xmin::text AS xmin FROM jobs "
                       "WHERE external_id = %s", (external_id,))
    names = [d.name for d in cur.description or ()]
    found = cur.fetchone()
    return dict(zip(names, found)) if found else {}


def written(conn: psycopg.Connection, action: Any) -> tuple[Any, dict[str, int]]:
    """Run ``action()``; return its result and the row versions it left, per table (rows whose
    ``xmin`` is a transaction started after the call began: inserted or updated rows)."""
    conn.commit()
    start = conn.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()[0]  # type: ignore[index]
    conn.commit()
    result = action()
    conn.commit()
    tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
    counts = {}
    for table in tables:
        n = conn.execute(f'SELECT count(*) FROM "{table}" WHERE xmin::text::bigint >= %s', (start,)).fetchone()[0]  # type: ignore[index]
        if n:
            counts[table] = n
    conn.commit()
    return result, counts
