"""The demo sources file drives the real source layer against the demo server end to end."""

from __future__ import annotations

import pytest

from jobpipe.demo import DEMO_SOURCES_FILE, DEMO_URL_ENV, demo_manifest
from jobpipe.sources import extract, fetch_source, load_sources


@pytest.fixture
def demo_configs(demo_server, monkeypatch):
    monkeypatch.setenv(DEMO_URL_ENV, demo_server.url)
    return {c.name: c for c in load_sources(DEMO_SOURCES_FILE)}


def test_sources_file_loads_with_the_real_loader(demo_configs, demo_server):
    assert set(demo_configs) == set(demo_manifest()["sources"])
    assert {c.kind for c in demo_configs.values()} == {"greenhouse", "lever", "jsonld"}


@pytest.mark.parametrize("name", ["qinghe-gh", "haijiao-lever", "xinglan-site"])
def test_one_source_of_each_kind_fetches_every_posting(demo_configs, name):
    expected = sorted(r["external_id"] for r in demo_manifest()["rows"] if r["source"] == name)
    result = fetch_source(demo_configs[name])
    assert result.error is None and result.complete
    assert sorted(p.external_id for p in result.postings) == expected
    titles = {r["external_id"]: r["title"] for r in demo_manifest()["rows"] if r["source"] == name}
    for p in result.postings:
        fields = extract(p.format, p.payload)
        assert fields.company, p.external_id          # Lever's comes from the sources file
        assert fields.title == titles[p.external_id] and fields.description
    # Unchanged data: a conditional re-fetch is answered with 304s and yields the same postings.
    again = fetch_source(demo_configs[name], state=result.pages)
    assert again.not_modified >= 1
    assert sorted(p.external_id for p in again.postings) == expected
    assert {p.external_id: p.payload for p in again.postings} == {p.external_id: p.payload for p in result.postings}
