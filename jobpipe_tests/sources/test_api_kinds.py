"""Every API kind against the local server, in the APIs' real shapes (fixtures/)."""

from __future__ import annotations

import json

from jobpipe.sources import PoliteClient, extract, fetch_source
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture


def test_greenhouse_lists_every_job_with_content(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v1/boards/nimbus/jobs?content=true&pay_transparency=true", Reply(body=fixture("greenhouse_jobs.json")))
    config = make_config("gh", "greenhouse", board="nimbus", base_url=server.base)
    result = fetch_source(config, client)
    assert result.complete and result.error is None
    assert [p.external_id for p in result.postings] == ["4011", "4012"]
    served = json.loads(fixture("greenhouse_jobs.json"))["jobs"]
    assert result.postings[0].payload == served[0]          # stored exactly as the API returned it
    assert all(p.format == "greenhouse" and p.source == "gh" for p in result.postings)
    fields = extract("greenhouse", result.postings[0].payload)
    assert fields.title == "Senior Backend Engineer (Go)"
    assert fields.company == "Nimbus Labs"
    assert fields.location == "Hybrid - Berlin"
    assert fields.locations == ["Berlin", "Remote - EU"]
    assert fields.description.startswith("&lt;p&gt;Build")          # doubly escaped HTML kept as-is
    assert fields.url == "https://boards.greenhouse.io/nimbus/jobs/4011"
    assert fields.posted_at == "2026-09-28T10:00:00-04:00"
    assert fields.department == "Engineering"
    assert fields.employment_type == "Full-time"               # from the "Employment Type" custom field
    assert fields.remote_hint == "Hybrid"
    zh = extract("greenhouse", result.postings[1].payload)
    assert zh.title == "数据工程实习生" and zh.valid_through == "2026-12-31" and zh.location == "上海"
    assert result.requests == 2 and result.bytes > 1000       # robots.txt + the listing


def test_lever_pages_with_skip_and_limit(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v0/postings/orbit?mode=json&skip=0&limit=2", Reply(body=fixture("lever_page0.json")))
    server.route("/v0/postings/orbit?mode=json&skip=2&limit=2", Reply(body=fixture("lever_page1.json")))
    config = make_config("lv", "lever", company="orbit", base_url=server.base, page_size=2)
    result = fetch_source(config, client)
    assert result.complete, result.error
    assert [p.external_id[-1] for p in result.postings] == ["1", "2", "3"]
    assert len(server.hits("/v0/postings/orbit?mode=json&skip=2&limit=2")) == 1
    assert server.hits("/v0/postings/orbit?mode=json&skip=4&limit=2") == []   # short page ends it
    first = extract("lever", result.postings[0].payload)
    assert first.title == "Software Engineer 1"
    assert first.salary == {"min": 150000, "max": 190000, "currency": "USD", "period": "per-year-salary"}
    assert first.salary_text == "Base pay range for this role."
    assert first.employment_type == "Full-time" and first.remote_hint == "hybrid"
    assert first.location == "San Francisco, CA" and first.locations == ["Remote"]
    assert first.posted_at == 1790000001000
    assert "<li>Ship features</li>" in first.description and "equal opportunity" in first.description
    assert first.extra["company_slug"] == "orbit"
    assert extract("lever", result.postings[2].payload).employment_type == "Intern"


def test_lever_full_last_page_asks_once_more(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v0/postings/orbit?mode=json&skip=0&limit=2", Reply(body=fixture("lever_page0.json")))
    server.route("/v0/postings/orbit?mode=json&skip=2&limit=2", Reply(body=b"[]"))
    result = fetch_source(make_config("lv", "lever", company="orbit", base_url=server.base, page_size=2), client)
    assert result.complete and len(result.postings) == 2


def test_lever_server_ignoring_paging_sends_everything_once(server: FixtureServer, client: PoliteClient) -> None:
    both = json.loads(fixture("lever_page0.json")) + json.loads(fixture("lever_page1.json"))
    server.route("/v0/postings/orbit", Reply(body=json.dumps(both).encode()))
    result = fetch_source(make_config("lv", "lever", company="orbit", base_url=server.base, page_size=2), client)
    assert result.complete and len(result.postings) == 3
    assert len(server.hits("/v0/postings/orbit?mode=json&skip=0&limit=2")) == 1


def test_lever_server_ignoring_skip_is_an_error(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v0/postings/orbit", Reply(body=fixture("lever_page0.json")))   # same page for any skip
    result = fetch_source(make_config("lv", "lever", company="orbit", base_url=server.base, page_size=2), client)
    assert not result.complete
    assert "repeats an earlier page" in result.error


def test_ashby_with_compensation_skips_unlisted(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/posting-api/job-board/quanta?includeCompensation=true", Reply(body=fixture("ashby_board.json")))
    result = fetch_source(make_config("ab", "ashby", board="quanta", base_url=server.base), client)
    assert result.complete
    assert [p.external_id for p in result.postings] == ["b7e1a3f0-1111-4c2d-9e8f-000000000001"]
    fields = extract("ashby", result.postings[0].payload)
    assert fields.salary == {"min": 180000, "max": 240000, "currency": "USD", "period": "1 YEAR"}
    assert fields.salary_text == "$180K - $240K"
    assert fields.remote_hint == "Remote" and fields.employment_type == "FullTime"
    assert fields.location == "Remote (US)" and fields.locations == ["New York"]
    assert fields.description == "<p>Train and ship models.</p>"


def test_workable_carries_the_account_name(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/api/v1/widget/accounts/helio?details=true", Reply(body=fixture("workable_account.json")))
    result = fetch_source(make_config("wk", "workable", account="helio", base_url=server.base), client)
    assert [p.external_id for p in result.postings] == ["A1B2C3D4E5", "F6G7H8I9J0"]
    assert result.postings[0].payload["_company"] == "Helio Robotics"
    first, second = (extract("workable", p.payload) for p in result.postings)
    assert first.company == "Helio Robotics"
    assert first.location == "Delft, South Holland, Netherlands"
    assert first.locations == ["Munich, Bavaria, Germany"]
    assert first.seniority == "Mid-Senior level" and first.degree_text == "Bachelor's Degree"
    assert first.remote_hint is None and second.remote_hint == "remote"
    assert second.location == "Spain"


def test_smartrecruiters_pages_and_details(server: FixtureServer, client: PoliteClient) -> None:
    base = "/v1/companies/Veridia1/postings"
    server.route(f"{base}?offset=0&limit=2", Reply(body=fixture("smartrecruiters_page0.json")))
    server.route(f"{base}?offset=2&limit=2", Reply(body=fixture("smartrecruiters_page1.json")))
    for i in (1, 2, 3):
        server.route(f"{base}/74400000000{i}", Reply(body=fixture(f"smartrecruiters_detail_{i}.json")))
    result = fetch_source(make_config("sr", "smartrecruiters", company="Veridia1", base_url=server.base, page_size=2), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == ["744000000001", "744000000002", "744000000003"]
    fields = extract("smartrecruiters", result.postings[1].payload)
    assert fields.title == "Site Reliability Engineer" and fields.company == "Veridia"
    assert fields.remote_hint == "remote" and fields.location == "Singapore, Singapore"
    assert "SGD 6,000 - 8,000 per month" in fields.description
    assert fields.url == "https://jobs.smartrecruiters.com/Veridia1/744000000002-x"
    assert fields.seniority == "Mid-Senior Level" and fields.employment_type == "Full-time"


def test_smartrecruiters_detail_gone_is_skipped_but_other_failures_are_not(server: FixtureServer, client: PoliteClient) -> None:
    base = "/v1/companies/Veridia1/postings"
    server.route(f"{base}?offset=0&limit=2", Reply(body=fixture("smartrecruiters_page0.json")))
    server.route(f"{base}?offset=2&limit=2", Reply(body=fixture("smartrecruiters_page1.json")))
    server.route(f"{base}/744000000001", Reply(body=fixture("smartrecruiters_detail_1.json")))
    server.route(f"{base}/744000000002", Reply(status=404))
    server.route(f"{base}/744000000003", Reply(status=403))
    result = fetch_source(make_config("sr", "smartrecruiters", company="Veridia1", base_url=server.base, page_size=2), client)
    assert [p.external_id for p in result.postings] == ["744000000001"]
    assert not result.complete
    assert result.error == f"1 page(s) failed: GET {server.url(base + '/744000000003')}: HTTP 403 Forbidden"


def test_recruitee(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/api/offers/", Reply(body=fixture("recruitee_offers.json")))
    result = fetch_source(make_config("rc", "recruitee", company="tulip", base_url=server.base), client)
    (posting,) = result.postings
    fields = extract("recruitee", posting.payload)
    assert posting.external_id == "880001"
    assert fields.company == "Tulip Health" and fields.remote_hint == "hybrid"
    assert fields.salary == {"min": "4000", "max": "5500", "period": "month", "currency": "EUR"}
    assert fields.locations == ["Amsterdam", "Rotterdam"]
    assert fields.description == "<p>Design the app.</p><ul><li>Figma</li></ul>"
    assert fields.employment_type == "fulltime_permanent"


def test_personio_xml_feed(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/xml?language=en", Reply(body=fixture("personio_feed.xml"), content_type="application/xml"))
    result = fetch_source(make_config("ps", "personio", company="lindqvist", base_url=server.base), client)
    assert result.complete, result.error
    first, second = result.postings
    assert first.external_id == "2200101" and first.url == server.url("/job/2200101")
    assert first.payload["additionalOffices"] == ["Berlin", "Remote"]
    fields = extract("personio", first.payload)
    assert fields.title == "Data Engineer (m/w/d)" and fields.company == "Lindqvist Analytics GmbH"
    assert fields.location == "Hamburg" and fields.locations == ["Berlin", "Remote"]
    assert fields.employment_type == ["permanent", "full-time"]
    assert fields.description == ("<h3>Your tasks</h3><ul><li>Build Airflow pipelines</li></ul>"
                                  "<h3>Your profile</h3><p>3+ years with Python &amp; SQL</p>")
    assert fields.experience_text == "3-5"
    assert extract("personio", second.payload).description is None


def test_teamtailor_feed_follows_next_url(server: FixtureServer, client: PoliteClient) -> None:
    page1 = fixture("teamtailor_feed_page1.json").replace(b"NEXT_URL", server.url("/jobs.json?page=2").encode())
    server.route("/jobs.json", Reply(body=page1))
    server.route("/jobs.json?page=2", Reply(body=fixture("teamtailor_feed_page2.json")))
    result = fetch_source(make_config("tt", "teamtailor", company="fjord", base_url=server.base), client)
    assert result.complete and len(result.postings) == 2
    first, second = (extract("teamtailor", p.payload) for p in result.postings)
    assert first.company == "Fjord" and first.location == "Oslo, NO" and first.locations == ["Bergen, NO"]
    assert first.description == "<p>Sell to the Nordics.</p>" and first.employment_type == "FULL_TIME"
    assert second.remote_hint == "TELECOMMUTE" and second.location == "Norway"


def test_not_json_is_a_clear_error(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v1/boards/nimbus/jobs?content=true&pay_transparency=true", Reply(body=b"<html>maintenance</html>", content_type="text/html"))
    result = fetch_source(make_config("gh", "greenhouse", board="nimbus", base_url=server.base), client)
    assert not result.complete and result.postings == []
    assert result.error.startswith(f"GET {server.url('/v1/boards/nimbus/jobs?content=true&pay_transparency=true')}: response is not JSON")


def test_company_name_option_fills_missing_company(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/v0/postings/orbit", Reply(body=fixture("lever_page1.json")))
    result = fetch_source(make_config("lv", "lever", company="orbit", base_url=server.base, company_name="Orbit Inc."), client)
    assert extract("lever", result.postings[0].payload).company == "Orbit Inc."
