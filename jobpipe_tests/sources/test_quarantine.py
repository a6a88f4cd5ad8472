"""Items of a listing that are not postings are quarantined with where and why, and the rest
of the listing loads: file lines, API items, JSON-LD blocks, stored next to normalization rejects."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import psycopg

from jobpipe.normalize import load_quarantine, normalize_batch, write_normalized
from jobpipe.normalize.store import reject_rates
from jobpipe.sources import PoliteClient, extract, fetch_source, load_snapshot, run_source
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, json_reply

DAY = date(2026, 10, 1)


def test_one_bad_item_of_an_api_page_is_quarantined_and_the_page_kept(server: FixtureServer,
                                                                      client: PoliteClient) -> None:
    jobs = [{"id": 1, "title": "A"}, {"title": "no id here"}, "not an object", {"id": 4, "title": "D"}]
    server.route("/v1/boards/b/jobs", json_reply({"jobs": jobs}, etag='"v1"'))
    config = make_config("gh", "greenhouse", board="b", base_url=server.base)
    result = fetch_source(config, client)
    assert result.complete and [p.external_id for p in result.postings] == ["1", "4"]
    listing = server.url("/v1/boards/b/jobs?content=true&pay_transparency=true")
    assert [(q.position, q.reason, q.raw) for q in result.quarantined] == [
        (f"{listing} item 2", "no 'id' to identify the posting", '{"title": "no id here"}'),
        (f"{listing} item 3", "expected a JSON object, got str", '"not an object"'),
    ]
    assert result.pages == {}       # not remembered: a 304 tomorrow would lose the quarantine
    assert any("2 listed item(s) quarantined" in w for w in result.warnings)


def test_quarantine_is_stored_with_the_fetch_and_survives_normalization(db: psycopg.Connection,
                                                                        tmp_path: Path) -> None:
    lines = [json.dumps({"id": "a", "title": "Data Engineer"}), "{oops", json.dumps({"title": "anonymous"}),
             json.dumps({"id": "b", "title": " "})]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = make_config("drop", "file", tmp_path, path="p.jsonl")
    summary = run_source(db, config, DAY, dagster_run_id="run-1")        # no error: the file loaded
    assert summary.complete and summary.fetched == 2 and summary.quarantined == 2
    assert summary.quarantine_sample[0].startswith("p.jsonl line 2: not JSON")
    snapshot = load_snapshot(db, "drop", DAY)
    assert snapshot is not None and snapshot.quarantined == 2
    result = normalize_batch(snapshot.items, extract, fetch_id=snapshot.fetch_id)
    write_normalized(db, "drop", DAY, result, dagster_run_id="run-1")   # rejects "b" (blank title)
    rows = load_quarantine(db, "drop", DAY)
    assert [(r["stage"], r["position"], r["external_id"]) for r in rows] == [
        ("fetch", "p.jsonl line 2", None), ("fetch", "p.jsonl line 3", None), ("normalize", None, "b")]
    assert rows[0]["raw_text"] == "{oops" and rows[0]["failed_checks"][0].startswith("not JSON")
    assert rows[1]["raw_text"] == '{"title": "anonymous"}' and rows[0]["fetch_id"] == snapshot.fetch_id
    assert reject_rates(db, DAY)["drop"] == (1, 3, 0.75)
    # a second fetch of the day replaces the day's fetch-stage rows; normalization's stay
    (tmp_path / "p.jsonl").write_text("\n".join(lines[:1] + lines[3:]) + "\n", encoding="utf-8")
    run_source(db, config, DAY)
    assert [(r["stage"], r["external_id"]) for r in load_quarantine(db, "drop", DAY)] == [("normalize", "b")]
