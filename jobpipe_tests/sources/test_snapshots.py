"""Raw snapshots on the real database: dedupe, replay, failed runs, 304 reuse."""

from __future__ import annotations

import json
from datetime import date

import psycopg
import pytest

from jobpipe.db import connect
from jobpipe.sources import (
    PoliteClient,
    SourceFetchError,
    extract,
    fetch_source,
    load_snapshot,
    record_fetch,
    run_source,
)
from jobpipe.sources.payloads import payload_hash
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture, html_reply, json_reply

DAY1, DAY2 = date(2026, 10, 1), date(2026, 10, 2)
LISTING = "/v1/boards/nimbus/jobs?content=true&pay_transparency=true"


def greenhouse(server: FixtureServer):  # noqa: ANN201
    return make_config("gh", "greenhouse", board="nimbus", base_url=server.base)


def count(db: psycopg.Connection, table: str) -> int:
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_unchanged_payloads_are_stored_once(db: psycopg.Connection, server: FixtureServer, client: PoliteClient) -> None:
    server.route(LISTING, Reply(body=fixture("greenhouse_jobs.json")))
    config = greenhouse(server)
    first = record_fetch(db, config, DAY1, fetch_source(config, client), dagster_run_id="run-1")
    assert (first.fetched, first.new_payloads, first.complete, first.error) == (2, 2, True, None)
    before = dict(db.execute("SELECT raw_id, xmin::text FROM raw_postings").fetchall())
    second = record_fetch(db, config, DAY2, fetch_source(config, client))
    assert (second.fetched, second.new_payloads, second.unchanged) == (2, 0, True)
    assert count(db, "raw_postings") == 2 and count(db, "fetch_runs") == 2 and count(db, "listing_spans") == 2
    after = dict(db.execute("SELECT raw_id, xmin::text FROM raw_postings").fetchall())
    assert after == before   # not even touched: the listing spans say which runs listed them
    run = db.execute("SELECT source, kind, complete, requests, postings_seen, dagster_run_id, bytes_received "
                     "FROM fetch_runs WHERE fetch_id = %s", (first.fetch_id,)).fetchone()
    assert run[:6] == ("gh", "greenhouse", True, 2, 2, "run-1") and run[6] > 1000
    stored = db.execute("SELECT payload, payload_hash FROM raw_postings WHERE external_id = '4011'").fetchone()
    assert stored[0] == json.loads(fixture("greenhouse_jobs.json"))["jobs"][0]
    assert stored[1] == payload_hash(stored[0])


def test_changed_payload_adds_a_row_and_replay_reads_the_day(db: psycopg.Connection, server: FixtureServer,
                                                             client: PoliteClient) -> None:
    jobs = json.loads(fixture("greenhouse_jobs.json"))
    server.route(LISTING, json_reply(jobs))
    config = greenhouse(server)
    day1 = record_fetch(db, config, DAY1, fetch_source(config, client))
    jobs["jobs"][0]["title"] = "Principal Backend Engineer (Go)"
    server.route(LISTING, json_reply(jobs))
    day2 = record_fetch(db, config, DAY2, fetch_source(config, client))
    assert day2.new_payloads == 1 and count(db, "raw_postings") == 3
    assert db.execute("SELECT count(*) FROM raw_postings WHERE external_id = '4011'").fetchone()[0] == 2

    old = load_snapshot(db, "gh", DAY1)
    new = load_snapshot(db, "gh", DAY2)
    assert old.fetch_id == day1.fetch_id and new.fetch_id == day2.fetch_id and old.complete
    titles = lambda snap: {p.external_id: extract(p.format, p.payload).title for p in snap.postings}  # noqa: E731
    assert titles(old) == {"4011": "Senior Backend Engineer (Go)", "4012": "数据工程实习生"}
    assert titles(new) == {"4011": "Principal Backend Engineer (Go)", "4012": "数据工程实习生"}
    unchanged_raw = {raw_id for raw_id, p in old.items if p.external_id == "4012"}
    assert unchanged_raw == {raw_id for raw_id, p in new.items if p.external_id == "4012"}
    assert all(p.fetched_at is not None and p.url for p in new.postings)
    assert load_snapshot(db, "gh", date(2026, 9, 30)) is None


def test_failed_source_is_recorded_then_raised(db: psycopg.Connection, database: str, server: FixtureServer,
                                               client: PoliteClient) -> None:
    server.route(LISTING, Reply(status=503))
    with pytest.raises(SourceFetchError) as info:
        run_source(db, greenhouse(server), DAY1, client=client, dagster_run_id="run-9")
    message = f"GET {server.url(LISTING)}: HTTP 503 Service Unavailable (after 3 attempts)"
    assert str(info.value) == f"source 'gh': {message}"
    with connect(database) as other:        # committed: visible from another connection
        row = other.execute("SELECT fetch_id, complete, error, postings_seen, dagster_run_id FROM fetch_runs").fetchone()
    assert row == (info.value.fetch_id, False, message, 0, "run-9")
    snap = load_snapshot(db, "gh", DAY1)
    assert snap.complete is False and snap.error == message and snap.items == []


def test_unchanged_listing_costs_a_304_and_reuses_stored_postings(db: psycopg.Connection, server: FixtureServer,
                                                                 client: PoliteClient) -> None:
    server.route(LISTING, Reply(body=fixture("greenhouse_jobs.json"), etag='"gh-v1"'))
    config = greenhouse(server)
    first = run_source(db, config, DAY1, client=client)
    assert first.not_modified == 0 and count(db, "http_cache") == 1
    second = run_source(db, config, DAY2, client=client)
    assert server.hits(LISTING)[1].headers["if-none-match"] == '"gh-v1"'
    assert second.complete and second.not_modified == 1 and second.bytes == 0
    assert second.fetched == 2 and second.new_payloads == 0
    day1, day2 = load_snapshot(db, "gh", DAY1), load_snapshot(db, "gh", DAY2)
    assert [r for r, _ in day1.items] == [r for r, _ in day2.items]
    # a changed listing is downloaded and parsed again
    jobs = json.loads(fixture("greenhouse_jobs.json"))
    jobs["jobs"].pop()
    server.route(LISTING, json_reply(jobs, etag='"gh-v2"'))
    third = run_source(db, config, date(2026, 10, 3), client=client)
    assert third.not_modified == 0 and third.fetched == 1
    assert db.execute("SELECT etag FROM http_cache").fetchone()[0] == '"gh-v2"'


def test_changed_options_do_not_reuse_cached_pages(db: psycopg.Connection, server: FixtureServer,
                                                   client: PoliteClient) -> None:
    server.route("/list", html_reply('<ul class="jobs"><li><a href="/j/1">x</a></li></ul>', etag='"l1"'))
    server.route("/j/1", html_reply('<h1>Ops</h1><p class="c">Berlin</p>', etag='"j1"'))
    config = make_config("c", "html", start_url=server.url("/list"), item_links="ul.jobs a", fields={"title": "h1"})
    run_source(db, config, DAY1, client=client)
    wider = make_config("c", "html", start_url=server.url("/list"), item_links="ul.jobs a",
                        fields={"title": "h1", "location": ".c"})
    summary = run_source(db, wider, DAY2, client=client)
    assert summary.not_modified == 0 and summary.new_payloads == 1
    assert "if-none-match" not in server.hits("/j/1")[1].headers
    assert extract("html", load_snapshot(db, "c", DAY2).postings[0].payload).location == "Berlin"


def test_payloads_postgres_cannot_store_are_cleaned(db: psycopg.Connection, server: FixtureServer,
                                                    client: PoliteClient) -> None:
    server.route(LISTING, Reply(body=b'{"jobs": [{"id": 1, "title": "Bad\\u0000Title \\ud800x", "n": NaN}]}'))
    config = greenhouse(server)
    summary = run_source(db, config, DAY1, client=client)
    assert summary.new_payloads == 1
    payload = load_snapshot(db, "gh", DAY1).postings[0].payload
    assert payload == {"id": 1, "title": "BadTitle ?x", "n": None}
    assert run_source(db, config, DAY2, client=client).new_payloads == 0
