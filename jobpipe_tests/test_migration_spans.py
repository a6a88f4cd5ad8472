"""sql/0020 converts the per-run item lists of an existing database into listing spans losslessly."""

from __future__ import annotations

from datetime import date

import psycopg

from jobpipe.db import migrate
from jobpipe.sources import load_snapshot
from jobpipe_tests.migrations import database_before


def test_legacy_item_lists_become_spans_that_replay_every_day_alike(tmp_path):
    with database_before(20, tmp_path) as url:
        days = [date(2026, 9, d) for d in (1, 2, 3, 4)]
        # p1: A, A, B, A ; p2: listed days 1-2 and 4 (missing on day 3); p3: day 4 only; p4 listed twice on day 1
        listings = [{"p1": "A", "p2": "x", "p4": "old"}, {"p1": "A", "p2": "x"}, {"p1": "B"},
                    {"p1": "A", "p2": "x", "p3": "y"}]
        with psycopg.connect(url) as conn:
            raw: dict[tuple[str, str], int] = {}
            for day, listing in zip(days, listings):
                fetch_id = conn.execute("INSERT INTO fetch_runs (source, partition_date, kind, complete) "
                                        "VALUES ('s', %s, 'file', true) RETURNING fetch_id", (day,)).fetchone()[0]
                items = list(listing.items()) + ([("p4", "new")] if day == days[0] else [])
                for eid, title in items:
                    key = (eid, title)
                    if key not in raw:
                        raw[key] = conn.execute(
                            "INSERT INTO raw_postings (source, external_id, format, payload, payload_hash) "
                            "VALUES ('s', %s, 'file', %s, %s) RETURNING raw_id",
                            (eid, psycopg.types.json.Jsonb({"id": eid, "title": title}), f"h-{eid}-{title}")).fetchone()[0]
                    conn.execute("INSERT INTO fetch_run_items VALUES (%s, %s)", (fetch_id, raw[key]))
            conn.commit()
            legacy = {day: sorted((r[0], r[1]) for r in conn.execute(
                "SELECT r.external_id, r.payload->>'title' FROM fetch_run_items i JOIN raw_postings r USING (raw_id) "
                "JOIN fetch_runs f USING (fetch_id) WHERE f.partition_date = %s", (day,))) for day in days}
        migrate(url)
        with psycopg.connect(url) as conn:
            for day, listing in zip(days, listings):
                replayed = sorted((p.external_id, p.payload["title"]) for p in load_snapshot(conn, "s", day).postings)
                expected = sorted({**listing, **({"p4": "new"} if day == days[0] else {})}.items())
                assert replayed == expected, day
                assert {eid for eid, _ in legacy[day]} == {eid for eid, _ in replayed}
            spans = conn.execute("SELECT count(*), count(*) FILTER (WHERE until_fetch IS NULL) FROM listing_spans"
                                 ).fetchone()
            assert spans == (7, 3)   # p1: A, B, A; p2: twice; p4: once; p3: once -- open: p1, p2, p3
            assert conn.execute("SELECT to_regclass('fetch_run_items')").fetchone()[0] is None
