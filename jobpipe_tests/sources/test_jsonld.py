from __future__ import annotations

import logging

import pytest

from jobpipe.sources import PoliteClient, extract, fetch_source
from jobpipe.sources.ldjson import find_job_postings, identifier_of, json_ld_blocks, loads_lenient
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture, html_reply


def serve_careers(server: FixtureServer) -> None:
    server.route("/careers/", html_reply(fixture("careers/index.html")))
    server.route("/careers/?page=2", html_reply(fixture("careers/page2.html")))
    for n in (101, 102, 103, 104, 105):
        server.route(f"/careers/jobs/{n}.html", html_reply(fixture(f"careers/{n}.html")))
    server.route("/careers/jobs/106.html", Reply(status=404, body=b"gone", content_type="text/html"))
    server.route("/about", html_reply("<html><body>about us</body></html>"))


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
    ('{"d": "line one\nline two"}', {"d": "line one\nline two"}),
    ('<!-- {"a": "x"} -->', {"a": "x"}),
    ('//<![CDATA[\n{"a": 2}\n//]]>', {"a": 2}),
    ('{"a": "keep, }"  , }', {"a": "keep, }"}),
    ('{"u": "https://x.example/a//b"} // trailing comment', {"u": "https://x.example/a//b"}),
    ('{"a":1}{"b":2}', [{"a": 1}, {"b": 2}]),
    ('{&quot;a&quot;: &quot;b&quot;}', {"a": "b"}),
])
def test_lenient_json(text: str, expected: object) -> None:
    assert loads_lenient(text) == expected


def test_hopeless_json_raises() -> None:
    with pytest.raises(ValueError, match="unrecoverable JSON-LD"):
        loads_lenient('{"title": "x" "broken": [')


def test_job_postings_in_graph_arrays_and_nested_nodes() -> None:
    page = """<script type="application/ld+json">{"@graph": [{"@id": "#o", "@type": "Organization", "name": "Acme"},
      {"@type": "JobPosting", "title": "A", "hiringOrganization": {"@id": "#o"}}]}</script>
      <script type='application/ld+json'>[{"@type": "JobPosting", "title": "B"}, {"@type": "Thing"}]</script>
      <SCRIPT TYPE="application/ld+json">{"@type": "ItemList", "itemListElement": [{"@type": "ListItem",
        "item": {"@type": "http://schema.org/JobPosting", "title": "C", "identifier": {"@type": "PropertyValue", "value": 7}}}]}</SCRIPT>"""
    blocks, broken = json_ld_blocks(page)
    postings = find_job_postings(blocks)
    assert broken == []
    assert [p["title"] for p in postings] == ["A", "B", "C"]
    assert postings[0]["hiringOrganization"] == {"@id": "#o", "@type": "Organization", "name": "Acme"}
    assert identifier_of(postings[2]) == "7" and identifier_of(postings[1]) is None


def test_crawl_follows_links_and_next_pages(server: FixtureServer, client: PoliteClient,
                                            caplog: pytest.LogCaptureFixture) -> None:
    serve_careers(server)
    config = make_config("site", "jsonld", start_url=server.url("/careers/"), follow="/careers/jobs/")
    with caplog.at_level(logging.WARNING, logger="jobpipe.sources"):
        result = fetch_source(config, client)
    assert result.complete, result.error
    ids = [p.external_id for p in result.postings]
    page104 = server.url("/careers/jobs/104.html")
    assert ids == ["NW-101", "NW-102", "103", f"{page104}#1", f"{page104}#2", "NW-105"]
    assert server.hits("/about") == []                          # not matching `follow`
    assert len(server.hits("/careers/jobs/102.html")) == 1      # "jobs/102.html#apply" resolved, fragment dropped
    # the page's broken JobPosting block is quarantined whole; the page's good posting (103) loads
    (bad,) = result.quarantined
    assert bad.position == f"{server.url('/careers/jobs/103.html')} JSON-LD block"
    assert bad.reason.startswith("a JobPosting block that cannot be parsed")
    assert bad.raw == '{"@type": "JobPosting", "title": "hopeless" "broken": ['
    # 106 answered 404: a withdrawn posting, not a failure
    assert len(server.hits("/careers/jobs/106.html")) == 1
    assert all(p.format == "jsonld" for p in result.postings)
    assert result.postings[0].payload["title"] == "Platform Engineer"
    assert result.postings[3].url == page104


def test_jsonld_extraction_of_schema_org_variants(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/careers/"), follow="/careers/jobs/"), client)
    by_id = {p.external_id: extract("jsonld", p.payload) for p in result.postings}
    first = by_id["NW-101"]
    assert first.company == "Northwind Traders"
    assert first.location == "San Francisco, CA, US"
    assert first.salary == {"@type": "MonetaryAmount", "currency": "USD",
                            "value": {"@type": "QuantitativeValue", "minValue": 150000, "maxValue": 185000, "unitText": "YEAR"}}
    assert first.valid_through == "2026-12-15T00:00" and first.employment_type == "FULL_TIME"
    assert first.experience_text == "60 months" and first.degree_text == "bachelor degree"
    remote = by_id["NW-102"]
    assert remote.company == "Northwind Traders"                 # @id reference resolved within @graph
    assert remote.remote_hint == "TELECOMMUTE"
    assert remote.location == "USA" and remote.locations == ["Canada"]
    assert remote.employment_type == ["FULL_TIME", "CONTRACTOR"]
    assert remote.valid_through == "2026-11-30T23:59:59Z"
    broken = by_id["103"]                                        # repaired: comment, trailing commas, raw newline
    assert broken.title == "Frontend Engineer"
    assert broken.description == "<p>React and TypeScript.\nWe ship weekly.</p>"
    assert broken.salary == {"@type": "MonetaryAmount", "value": 72000, "currency": "GBP"}
    assert broken.location == "London, UK" and broken.company == "Northwind Traders"
    night = by_id[f"{server.url('/careers/jobs/104.html')}#1"]
    assert night.salary is None and night.salary_text == "$25 - $32 per hour"
    assert night.location == "Austin, TX, US"
    zh = by_id["NW-105"]
    assert zh.salary == {"@type": "MonetaryAmount", "value": "15-25K·14薪"}
    assert zh.location == "深圳, 广东, CN" and zh.experience_text == "3-5年" and zh.degree_text == "本科"


def test_max_pages_bounds_the_crawl_and_marks_it_incomplete(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/careers/"), follow="/careers/jobs/",
                                      max_pages=3), client)
    assert not result.complete and result.error is None
    assert [p.external_id for p in result.postings] == ["NW-101", "NW-102"]
    assert any("max_pages=3" in w for w in result.warnings)


def test_failed_listing_page_makes_the_run_incomplete(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    server.route("/careers/?page=2", Reply(status=500))
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/careers/"), follow="/careers/jobs/"), client)
    assert not result.complete
    assert result.error == f"GET {server.url('/careers/?page=2')}: HTTP 500 Internal Server Error (after 3 attempts)"
    assert len(result.postings) == 5                             # page 1's postings are kept


def test_follow_as_regex(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/careers/"), follow=r"/jobs/10[12]\.html$"), client)
    assert [p.external_id for p in result.postings] == ["NW-101", "NW-102"]


def test_sitemap_start(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    server.route("/sitemap.xml", Reply(content_type="application/xml", body=f"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>{server.url('/sitemap-jobs.xml')}</loc></sitemap>
</sitemapindex>""".encode()))
    server.route("/sitemap-jobs.xml", Reply(content_type="application/xml", body=f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>{server.url('/careers/jobs/101.html')}</loc></url>
  <url><loc>{server.url('/careers/jobs/105.html')}</loc></url>
  <url><loc>{server.url('/about')}</loc></url>
</urlset>""".encode()))
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/sitemap.xml"), follow="/careers/jobs/"), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == ["NW-101", "NW-105"]
    assert server.hits("/about") == []


def test_listing_that_moved_permanently(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    server.route("/jobs", Reply(status=301, headers={"Location": "/careers/"}))
    result = fetch_source(make_config("site", "jsonld", start_url=server.url("/jobs"), follow="/careers/jobs/"), client)
    assert result.complete and len(result.postings) == 6
    assert any("moved permanently" in w for w in result.warnings)


def test_listing_304_replays_the_whole_crawl_without_parsing(server: FixtureServer, client: PoliteClient) -> None:
    serve_careers(server)
    server.route("/careers/", html_reply(fixture("careers/index.html"), etag='"idx-1"'))
    server.route("/careers/?page=2", html_reply(fixture("careers/page2.html"), etag='"p2-1"'))
    for n in (101, 102, 103, 104, 105):
        server.route(f"/careers/jobs/{n}.html", html_reply(fixture(f"careers/{n}.html"), etag=f'"{n}-1"'))
    config = make_config("site", "jsonld", start_url=server.url("/careers/"), follow="/careers/jobs/")
    first = fetch_source(config, client)
    # 103 holds a broken JobPosting block: a page with quarantined items is not remembered, so
    # its quarantine is not lost to a 304 (it is fetched, parsed and quarantined again)
    assert len(first.pages) == 6 and server.url("/careers/jobs/103.html") not in first.pages
    again = fetch_source(config, client, state=first.pages)
    assert again.complete and again.not_modified == 6
    assert again.bytes == len(b"gone") + len(fixture("careers/103.html"))   # the 404 body and page 103
    assert [q.position for q in again.quarantined] == [q.position for q in first.quarantined] != []
    assert [(p.external_id, p.payload) for p in again.postings] == [(p.external_id, p.payload) for p in first.postings]
