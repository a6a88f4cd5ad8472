"""Extractors on the real API payloads in ../shared/data/api_samples (skipped when absent).

Read-only: the samples are parsed in place, never copied into the repository.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from lxml import etree

from jobpipe.normalize import normalize_posting
from jobpipe.sources import extract
from jobpipe.sources.kinds.personio import element_to_value
from jobpipe.sources.ldjson import find_job_postings, json_ld_blocks
from jobpipe_tests.conftest import shared_data_path

LISTS = {"greenhouse": "jobs", "lever": None, "ashby": "jobs", "workable": "jobs", "recruitee": "offers",
         "smartrecruiters": "content", "teamtailor": "items", "workday": "jobPostings", "comeet": None,
         "eightfold": "positions"}


@pytest.mark.parametrize("kind", sorted(LISTS))
def test_every_real_sample_posting_extracts_a_title(kind: str) -> None:
    folder = shared_data_path("api_samples", kind)
    checked = 0
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        key = LISTS[kind]
        items = data if key is None else (data.get(key) if isinstance(data, dict) else None)
        if not isinstance(items, list):
            continue
        for item in items:
            fields = extract(kind, item)
            assert fields.title, (path.name, item.get("id"))
            json.dumps(fields.__dict__, default=str)       # plain data, storable
            checked += 1
    assert checked > 0


def test_real_personio_feed() -> None:
    path = shared_data_path("api_samples", "personio", "xml_feed__careerkit.xml")
    root = etree.fromstring(path.read_bytes())
    payloads = [element_to_value(p) for p in root.iter("position")]
    fields = [extract("personio", p) for p in payloads]
    assert fields and all(f.title and f.location for f in fields)
    assert payloads[0]["additionalOffices"] == ["Berlin"]


def test_real_career_pages_with_json_ld() -> None:
    folder = shared_data_path("html", "jsonld")
    found = 0
    for path in sorted(folder.glob("*.html")):
        blocks, _ = json_ld_blocks(path.read_text(encoding="utf-8", errors="replace"))
        for posting in find_job_postings(blocks):
            fields = extract("jsonld", posting)
            assert fields.title and fields.description
            found += 1
    assert found >= 3


def test_real_workday_comeet_and_eightfold_samples() -> None:
    fetched = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)

    def load(kind: str, name: str) -> object:
        return json.loads(shared_data_path("api_samples", kind, name).read_text(encoding="utf-8"))

    workday = [extract("workday", j) for j in load("workday", "cxs_jobs__salesforce__careerkit.json")["jobPostings"]]
    assert workday[0].title.startswith("Solution Architect") and workday[0].posted_at == "Posted Yesterday"
    assert workday[0].location is None                      # "3 Locations" is a count, not a place
    assert workday[1].extra["bulletFields"] == ["JR332446"] and workday[1].posted_at == "Posted 3 Days Ago"
    posted = [normalize_posting(f, source="wd", external_id="x", fetched_at=fetched).posted_at for f in workday]
    assert [p.date() for p in posted] == [(fetched - timedelta(days=d)).date() for d in (1, 3)]

    comeet = [extract("comeet", p) for p in load("comeet", "positions__wiliot__job-agent.json")]
    assert [f.location for f in comeet] == ["New York, NY, US", "Plano, TX, US"]
    first = comeet[0]
    assert first.title == "Forward Deployed Engineer" and first.company == "Wiliot" and first.remote_hint == "On-site"
    assert first.description.startswith("<h3>Description</h3><p>Wiliot was founded")
    assert "<h3>Responsibilities</h3>" not in first.description          # null sections are left out
    assert first.url.startswith("https://www.comeet.com/jobs/wiliot/") and first.posted_at == "2026-08-12T02:36:49Z"

    eightfold = [extract("eightfold", p) for p in load("eightfold", "apply_v2_jobs__albemarle__careerkit.json")["positions"]]
    first = eightfold[0]
    assert first.title == "Supply Planner, Bromine S&OP" and first.department == "Supply Chain"
    assert first.location == "Charlotte, North Carolina, United States of America"
    assert first.locations == ["Magnolia, Arkansas, United States of America"]
    assert first.description is None and first.posted_at == 1785801600   # the listing has no description
    normalized = normalize_posting(first, source="ef", external_id="x", fetched_at=fetched)
    assert normalized.cities == ["Charlotte", "Magnolia"] and normalized.country == "US"
