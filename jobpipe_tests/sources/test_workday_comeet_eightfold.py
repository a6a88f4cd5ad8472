"""Workday, Comeet and Eightfold against the local server, in the APIs' real shapes (fixtures/)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from jobpipe.normalize import normalize_posting
from jobpipe.sources import PoliteClient, SourcesFileError, extract, fetch_source
from jobpipe.sources.config import parse_sources
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture

WD = "/wday/cxs/brightwave/Brightwave_Careers"
WD_PATHS = [job["externalPath"] for page in ("workday_search_page0.json", "workday_search_page1.json")
            for job in json.loads(fixture(page))["jobPostings"]]
COMEET = "/careers-api/2.0/company/A1.B2C/positions?token=TESTTOKEN&details=true"
EF = "/api/apply/v2/jobs"


def serve_workday(server: FixtureServer, *, details: bool = True) -> None:
    server.route(f"{WD}/jobs", Reply(body=fixture("workday_search_page0.json")),
                 Reply(body=fixture("workday_search_page1.json")))
    if details:
        for i, path in enumerate(WD_PATHS, start=1):
            server.route(WD + path, Reply(body=fixture(f"workday_detail_{i}.json")))


def workday(server: FixtureServer, **options: object):
    return make_config("wd", "workday", tenant="brightwave", site="Brightwave_Careers", base_url=server.base,
                       page_size=2, **options)


def serve_eightfold(server: FixtureServer) -> None:
    server.route(f"{EF}?domain=corvidlabs.example&start=0&num=2", Reply(body=fixture("eightfold_page0.json")))
    server.route(f"{EF}?domain=corvidlabs.example&start=2&num=2", Reply(body=fixture("eightfold_page1.json")))
    for i in (1, 2, 3):
        server.route(f"{EF}/56300000{i}?domain=corvidlabs.example", Reply(body=fixture(f"eightfold_detail_{i}.json")))


def eightfold(server: FixtureServer, **options: object):
    return make_config("ef", "eightfold", domain="corvidlabs.example", base_url=server.base, page_size=2, **options)


# ------------------------------------------------------------------ workday

def test_workday_pages_by_post_body_then_fetches_details(server: FixtureServer, client: PoliteClient) -> None:
    serve_workday(server)
    result = fetch_source(workday(server), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == WD_PATHS
    searches = server.hits(f"{WD}/jobs")
    assert [s.method for s in searches] == ["POST", "POST"]      # the second page's total is 0: the first one's counts
    assert [json.loads(s.body) for s in searches] == [
        {"appliedFacets": {}, "limit": 2, "offset": 0, "searchText": ""},
        {"appliedFacets": {}, "limit": 2, "offset": 2, "searchText": ""}]
    assert searches[0].headers["content-type"] == "application/json"
    assert all(len(server.hits(WD + path)) == 1 for path in WD_PATHS)
    first = result.postings[0]
    assert set(first.payload) == {"externalPath", "jobPostingInfo", "hiringOrganization", "_url"}   # no similarJobs
    fields = extract("workday", first.payload)
    assert fields.title == "Grid Software Engineer" and fields.company == "Brightwave Energy"
    assert fields.location == "Texas - Austin" and fields.locations == ["California - San Jose"]
    assert fields.employment_type == "Full time" and fields.remote_hint == "Hybrid"
    assert fields.description.startswith("<p>Build the software") and "$130,000 - $160,000" in fields.description
    assert fields.url == first.url == "https://brightwave.wd3.myworkdayjobs.com/Brightwave_Careers" + WD_PATHS[0]
    assert fields.posted_at == "2026-11-30"                       # absolute startDate before relative postedOn
    assert "postedOn" not in first.payload["jobPostingInfo"]      # relative text changes daily: not stored
    assert fields.extra["jobReqId"] == "R-10041" and fields.extra["country"] == "United States of America"
    assert extract("workday", result.postings[2].payload).remote_hint == "Remote"


def test_workday_without_details_keeps_search_results(server: FixtureServer, client: PoliteClient) -> None:
    serve_workday(server, details=False)
    result = fetch_source(workday(server, details=False, search_text="engineer", company_name="Brightwave"), client)
    assert result.complete, result.error
    assert json.loads(server.hits(f"{WD}/jobs")[0].body)["searchText"] == "engineer"
    first, second, third = (extract("workday", p.payload) for p in result.postings)
    assert first.title == "Grid Software Engineer" and first.company == "Brightwave"
    assert first.location == "Austin, TX" and first.posted_at == "Posted Yesterday"   # resolved by the normalizer
    assert first.url == server.url("/Brightwave_Careers" + WD_PATHS[0]) and first.description is None
    assert second.location is None and second.posted_at == "Posted 30+ Days Ago"      # "2 Locations" is no place
    assert third.remote_hint == "Remote" and third.extra["bulletFields"] == ["R-10063-1"]
    fetched = result.postings[0].fetched_at
    normalized = normalize_posting(first, source="wd", external_id=result.postings[0].external_id, fetched_at=fetched)
    assert normalized.posted_at.date() == (fetched - timedelta(days=1)).date()


def test_workday_short_page_ends_the_listing_without_a_total(server: FixtureServer, client: PoliteClient) -> None:
    page = json.loads(fixture("workday_search_page1.json"))       # total 0, one job: shorter than page_size
    server.route(f"{WD}/jobs", Reply(body=json.dumps(page).encode()))
    result = fetch_source(workday(server, details=False), client)
    assert result.complete and len(result.postings) == 1 and len(server.hits(f"{WD}/jobs")) == 1


def test_workday_failing_search_page_fails_the_source_not_the_others(server: FixtureServer, client: PoliteClient) -> None:
    server.route(f"{WD}/jobs", Reply(body=fixture("workday_search_page0.json")), Reply(status=500))
    server.route(COMEET, Reply(body=fixture("comeet_positions.json")))
    for i, path in enumerate(WD_PATHS, start=1):
        server.route(WD + path, Reply(body=fixture(f"workday_detail_{i}.json")))
    failed = fetch_source(workday(server), client)
    other = fetch_source(make_config("cm", "comeet", company_uid="A1.B2C", token="TESTTOKEN", base_url=server.base), client)
    assert not failed.complete
    assert failed.error == f"POST {server.url(WD + '/jobs')}: HTTP 500 Internal Server Error (after 3 attempts)"
    assert [p.external_id for p in failed.postings] == WD_PATHS[:2]            # the first page's postings are kept
    assert failed.retries == 2
    assert other.complete and len(other.postings) == 3


def test_workday_failed_detail_is_reported_and_a_gone_one_skipped(server: FixtureServer, client: PoliteClient) -> None:
    serve_workday(server)
    server.route(WD + WD_PATHS[1], Reply(status=410))
    server.route(WD + WD_PATHS[2], Reply(status=500))
    result = fetch_source(workday(server), client)
    assert [p.external_id for p in result.postings] == WD_PATHS[:1]
    assert not result.complete
    assert result.error == f"1 page(s) failed: GET {server.url(WD + WD_PATHS[2])}: HTTP 500 Internal Server Error (after 3 attempts)"


# ------------------------------------------------------------------ comeet

def test_comeet_lists_every_position_with_details(server: FixtureServer, client: PoliteClient) -> None:
    server.route(COMEET, Reply(body=fixture("comeet_positions.json")))
    result = fetch_source(make_config("cm", "comeet", company_uid="A1.B2C", token="TESTTOKEN", base_url=server.base), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == ["3A.01F", "3A.022", "3A.031"]
    assert result.postings[0].payload == json.loads(fixture("comeet_positions.json"))[0]   # stored as returned
    first, second, third = (extract("comeet", p.payload) for p in result.postings)
    assert first.title == "Perception Engineer" and first.company == "Tessellate Robotics"
    assert first.location == "Tel Aviv, IL" and first.extra["location_name"] == "Tel Aviv HQ"
    assert first.description == ("<h3>Description</h3><p>Teach our arms to see.</p>"
                                 "<h3>Requirements</h3><ul><li>C++</li><li>5+ years in computer vision</li></ul>"
                                 "<h3>Salary</h3>₪35,000 - ₪45,000 per month")          # by order, empty ones left out
    assert first.salary_text == "₪35,000 - ₪45,000 per month"
    assert first.employment_type == "Full-time" and first.seniority == "Senior" and first.department == "R&D"
    assert first.remote_hint == "Hybrid" and first.posted_at == "2026-11-20T08:15:00Z"
    assert first.url == "https://www.comeet.com/jobs/tessellate/A1.B2C/perception-engineer/3A.01F"
    assert second.location == "Somerville, MA, US" and second.remote_hint == "On-site" and second.salary_text is None
    assert third.remote_hint == "remote" and third.location == "Remote, DE" and third.description is None


def test_comeet_failing_listing_is_the_sources_error(server: FixtureServer, client: PoliteClient) -> None:
    server.route(COMEET, Reply(status=503))
    result = fetch_source(make_config("cm", "comeet", company_uid="A1.B2C", token="TESTTOKEN", base_url=server.base), client)
    assert not result.complete and result.postings == []
    assert result.error == f"GET {server.url(COMEET)}: HTTP 503 Service Unavailable (after 3 attempts)"


# ------------------------------------------------------------------ eightfold

def test_eightfold_pages_with_start_and_fetches_details(server: FixtureServer, client: PoliteClient) -> None:
    serve_eightfold(server)
    result = fetch_source(eightfold(server, company_name="Corvid Labs"), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == ["563000001", "563000002", "563000003"]
    assert server.hits(f"{EF}?domain=corvidlabs.example&start=4&num=2") == []     # count reached
    fields = extract("eightfold", result.postings[0].payload)
    assert fields.title == "Process Engineer II" and fields.company == "Corvid Labs"
    assert fields.location == "Kings Mountain, North Carolina, United States of America"
    assert fields.locations == ["Charlotte, North Carolina, United States of America"]
    assert fields.description.startswith("<p>Own the lithium") and fields.remote_hint == "onsite"
    assert fields.url == result.postings[0].url == "https://corvid.eightfold.example/careers/job/563000001"
    assert fields.posted_at == 1795046400 and fields.department == "Operations"
    assert fields.extra["display_job_id"] == "JR-0001"
    second = extract("eightfold", result.postings[1].payload)
    assert second.department == "Research, Digital" and second.remote_hint == "remote" and second.locations == []


def test_eightfold_without_details_and_without_count(server: FixtureServer, client: PoliteClient) -> None:
    page0 = {k: v for k, v in json.loads(fixture("eightfold_page0.json")).items() if k != "count"}
    page1 = {k: v for k, v in json.loads(fixture("eightfold_page1.json")).items() if k != "count"}
    server.route(f"{EF}?domain=corvidlabs.example&start=0&num=2", Reply(body=json.dumps(page0).encode()))
    server.route(f"{EF}?domain=corvidlabs.example&start=2&num=2", Reply(body=json.dumps(page1).encode()))
    result = fetch_source(eightfold(server, details=False), client)
    assert result.complete and len(result.postings) == 3                        # the short page ends it
    assert extract("eightfold", result.postings[0].payload).description is None  # the listing's is empty
    assert all(s.path.startswith(EF + "?") for s in server.log if s.path != "/robots.txt")


def test_eightfold_failing_second_page_keeps_the_first(server: FixtureServer, client: PoliteClient) -> None:
    serve_eightfold(server)
    server.route(f"{EF}?domain=corvidlabs.example&start=2&num=2", Reply(status=500))
    result = fetch_source(eightfold(server), client)
    assert not result.complete
    assert result.error == (f"GET {server.url(EF + '?domain=corvidlabs.example&start=2&num=2')}: "
                            "HTTP 500 Internal Server Error (after 3 attempts)")
    assert [p.external_id for p in result.postings] == ["563000001", "563000002"]


# ------------------------------------------------------------------ options and the client

@pytest.mark.parametrize("entry, message", [
    ({"kind": "workday", "site": "S", "base_url": "https://t.wd5.myworkdayjobs.com"},
     "tenant: missing (required for kind 'workday')"),
    ({"kind": "workday", "tenant": "t", "base_url": "https://t.wd5.myworkdayjobs.com"},
     "site: missing (required for kind 'workday')"),
    ({"kind": "workday", "tenant": "t", "site": "S"}, "base_url: missing (required for kind 'workday')"),
    ({"kind": "workday", "tenant": "t", "site": "S", "base_url": "https://t.wd5.myworkdayjobs.com", "page_size": 50},
     "page_size: at most 20 for kind 'workday' (the API sends no more per request)"),
    ({"kind": "comeet", "token": "x"}, "company_uid: missing (required for kind 'comeet')"),
    ({"kind": "comeet", "company_uid": "A1.B2C"}, "token: missing (required for kind 'comeet')"),
    ({"kind": "eightfold", "base_url": "https://acme.eightfold.ai"}, "domain: missing (required for kind 'eightfold')"),
    ({"kind": "eightfold", "domain": "acme.com"}, "base_url: missing (required for kind 'eightfold')"),
    ({"kind": "eightfold", "domain": "acme.com", "base_url": "https://acme.eightfold.ai", "page_size": 11},
     "page_size: at most 10 for kind 'eightfold' (the API sends no more per request)"),
    ({"kind": "comeet", "company_uid": "A1.B2C", "token": "x", "board": "y"},
     "board: unknown option for kind 'comeet' (allowed: base_url, close_guard_share, company_name, company_uid, "
     "enabled, freshness_hours, rate_limit, robots, token)"),
])
def test_bad_options_name_the_source_and_the_key(entry: dict[str, object], message: str) -> None:
    with pytest.raises(SourcesFileError) as info:
        parse_sources({"sources": [{"name": "bad", **entry}]}, Path("sources.yaml"))
    assert str(info.value) == f"sources.yaml: source 'bad': {message}"


def test_workday_defaults() -> None:
    (config,) = parse_sources({"sources": [{"name": "w", "kind": "workday", "tenant": "t", "site": "S",
                                            "base_url": "https://t.wd5.myworkdayjobs.com/"}]}, Path("s.yaml"))
    assert config.options == {"tenant": "t", "site": "S", "base_url": "https://t.wd5.myworkdayjobs.com",
                              "company_name": None, "page_size": 20, "search_text": None, "details": True}


def test_post_json_is_retried_and_sends_its_body(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/search", Reply(status=502), Reply(body=b'{"ok": true}'))
    response = client.post_json(server.url("/search"), {"offset": 20})
    assert response.status == 200 and response.method == "POST"
    assert [json.loads(s.body) for s in server.hits("/search")] == [{"offset": 20}, {"offset": 20}]


def test_post_redirected_with_303_becomes_a_get(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/search", Reply(status=303, headers={"Location": "/results"}))
    server.route("/results", Reply(body=b"[]"))
    response = client.post_json(server.url("/search"), {"offset": 0})
    assert response.url == server.url("/results") and response.method == "GET"
    (seen,) = server.hits("/results")
    assert seen.method == "GET" and seen.body == b"" and "content-type" not in seen.headers


def test_relative_workday_dates_resolve_against_the_fetch_time() -> None:
    fetched = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)
    for text, days in (("Posted Today", 0), ("Posted Yesterday", 1), ("Posted 3 Days Ago", 3), ("Posted 30+ Days Ago", 30)):
        fields = extract("workday", {"title": "x", "externalPath": "/job/x_R-1", "postedOn": text})
        posted = normalize_posting(fields, source="wd", external_id="x", fetched_at=fetched).posted_at
        assert posted.date() == (fetched - timedelta(days=days)).date(), text
