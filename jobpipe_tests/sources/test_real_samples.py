"""Extractors on the real API payloads in ../shared/data/api_samples (skipped when absent).

Read-only: the samples are parsed in place, never copied into the repository.
"""

from __future__ import annotations

import json

import pytest
from lxml import etree

from jobpipe.sources import extract
from jobpipe.sources.kinds.personio import element_to_value
from jobpipe.sources.ldjson import find_job_postings, json_ld_blocks
from jobpipe_tests.conftest import shared_data_path

LISTS = {"greenhouse": "jobs", "lever": None, "ashby": "jobs", "workable": "jobs", "recruitee": "offers",
         "smartrecruiters": "content", "teamtailor": "items"}


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
