"""The demo server answers every route over real HTTP, in the shapes scrapers expect."""

from __future__ import annotations

import http.client
import json
import re

import httpx
import pytest

from jobpipe.demo import DemoServer, demo_manifest
from jobpipe_tests.demo.helpers import job_postings, ld_blocks, parse_ld

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=5.0) as c:
        yield c


def _sources(kind: str) -> dict[str, int]:
    return {name: info["postings"] for name, info in demo_manifest()["sources"].items() if info["kind"] == kind}


def test_robots_allows_everything(demo_server, client):
    r = client.get(f"{demo_server.url}/robots.txt")
    assert r.status_code == 200
    assert "User-agent: *" in r.text and "Allow: /" in r.text
    assert "Disallow" not in r.text


def test_greenhouse_boards_list_every_job_with_content(demo_server, client):
    for name, count in _sources("greenhouse").items():
        board = name.removesuffix("-gh")
        r = client.get(f"{demo_server.url}/v1/boards/{board}/jobs", params={"content": "true"})
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/json")
        data = r.json()
        assert data["meta"]["total"] == len(data["jobs"]) == count
        for job in data["jobs"]:
            assert {"id", "internal_job_id", "title", "updated_at", "requisition_id", "location",
                    "absolute_url", "content", "departments", "offices", "metadata"} <= job.keys()
            assert isinstance(job["id"], int) and job["location"]["name"]
            # Entity-escaped once more, like the real API.
            assert job["content"].startswith("&lt;") and "<p>" not in job["content"]


def test_greenhouse_without_content_omits_bodies(demo_server, client):
    r = client.get(f"{demo_server.url}/v1/boards/lumenwise/jobs")
    jobs = r.json()["jobs"]
    assert jobs and all("content" not in j and "departments" not in j for j in jobs)
    assert all(j["title"] for j in jobs)


def test_greenhouse_pay_ranges_only_with_pay_transparency(demo_server, client):
    plain = client.get(f"{demo_server.url}/v1/boards/lumenwise/jobs?content=true").json()["jobs"]
    assert all("pay_input_ranges" not in j for j in plain)
    paid = client.get(f"{demo_server.url}/v1/boards/lumenwise/jobs",
                      params={"content": "true", "pay_transparency": "true"}).json()["jobs"]
    ranges = [r for j in paid for r in j.get("pay_input_ranges", [])]
    assert len(ranges) >= 10
    assert all(isinstance(r["min_cents"], int) and r["max_cents"] >= r["min_cents"] and r["currency_type"]
               for r in ranges)
    one = next(j for j in paid if j.get("pay_input_ranges"))
    detail = client.get(f"{demo_server.url}/v1/boards/lumenwise/jobs/{one['id']}?pay_transparency=true").json()
    assert detail["pay_input_ranges"] == one["pay_input_ranges"]
    assert "pay_input_ranges" not in client.get(f"{demo_server.url}/v1/boards/lumenwise/jobs/{one['id']}").json()


def test_greenhouse_job_detail_and_unknown_board(demo_server, client):
    listed = client.get(f"{demo_server.url}/v1/boards/quillmark/jobs?content=true").json()["jobs"][3]
    assert "pay_input_ranges" not in listed
    detail = client.get(f"{demo_server.url}/v1/boards/quillmark/jobs/{listed['id']}")
    assert detail.status_code == 200 and detail.json() == listed
    assert client.get(f"{demo_server.url}/v1/boards/quillmark/jobs/1").status_code == 404
    missing = client.get(f"{demo_server.url}/v1/boards/no-such-board/jobs")
    assert missing.status_code == 404 and missing.json()["status"] == 404


def test_lever_pages_with_skip_and_limit(demo_server, client):
    for name, count in _sources("lever").items():
        site = name.removesuffix("-lever")
        everything = client.get(f"{demo_server.url}/v0/postings/{site}", params={"mode": "json"}).json()
        assert isinstance(everything, list) and len(everything) == count
        paged, skip = [], 0
        while True:
            page = client.get(f"{demo_server.url}/v0/postings/{site}",
                              params={"mode": "json", "skip": skip, "limit": 4}).json()
            paged.extend(page)
            if len(page) < 4:
                break
            skip += 4
        assert [p["id"] for p in paged] == [p["id"] for p in everything]
        for p in everything:
            assert {"id", "text", "categories", "createdAt", "description", "lists", "hostedUrl"} <= p.keys()
            assert isinstance(p["createdAt"], int) and p["categories"]["commitment"]
        one = client.get(f"{demo_server.url}/v0/postings/{site}/{everything[0]['id']}")
        assert one.json()["id"] == everything[0]["id"]
    assert client.get(f"{demo_server.url}/v0/postings/nobody?mode=json").json() == []
    assert client.get(f"{demo_server.url}/v0/postings/brightpike?mode=json&skip=x").status_code == 400


def _crawl_site(client, base: str, slug: str) -> tuple[list[str], int]:
    """Follow rel=next from the first listing page; return job links and pages seen."""
    url, links, pages = f"{base}/careers/{slug}/", [], 0
    while url:
        r = client.get(url)
        assert r.status_code == 200, url
        pages += 1
        html = r.text
        links += re.findall(rf'href="(/careers/{slug}/jobs/[^"]+\.html)"', html)
        head_next = re.search(r'<link rel="next" href="([^"]+)"', html)
        a_next = re.search(r'<a rel="next" class="next" href="([^"]+)"', html)
        assert bool(head_next) == bool(a_next), "head and body next links disagree"
        if head_next:
            assert head_next.group(1) == a_next.group(1)
        url = f"{base}{head_next.group(1)}" if head_next else None
        assert pages < 20
    return links, pages


def test_career_sites_paginate_and_every_job_page_has_json_ld(demo_server, client):
    total_postings, lenient, multi, graphs = 0, 0, 0, 0
    for name, count in _sources("jsonld").items():
        slug = name.removesuffix("-site")
        links, pages = _crawl_site(client, demo_server.url, slug)
        assert len(links) == len(set(links))
        assert pages == -(-len(links) // 10)   # ten links a page
        for link in links:
            r = client.get(f"{demo_server.url}{link}")
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            blocks = ld_blocks(r.text)
            assert len(blocks) == 1
            value, strict = parse_ld(blocks[0])
            lenient += not strict
            graphs += isinstance(value, dict) and "@graph" in value
            postings = job_postings(value)
            multi += len(postings) > 1
            for p in postings:
                assert p["title"] and p["description"] and p["datePosted"]
                assert p["identifier"]["@type"] == "PropertyValue" and p["identifier"]["value"]
                assert p["hiringOrganization"]["name"]
                assert "jobLocation" in p or p.get("jobLocationType") == "TELECOMMUTE"
            total_postings += len(postings)
        assert sum(1 for _ in links) <= count
    manifest_total = sum(_sources("jsonld").values())
    assert total_postings == manifest_total
    assert lenient == 1      # exactly one page needs its trailing comma forgiven
    assert multi == 1        # exactly one page carries two JobPostings
    assert graphs >= 10


def test_etag_and_last_modified_give_304(demo_server, client):
    for path in ("/v1/boards/qinghe/jobs?content=true", "/careers/xinglan/", "/v0/postings/haijiao?mode=json"):
        first = client.get(f"{demo_server.url}{path}")
        etag = first.headers["etag"]
        assert first.status_code == 200 and etag.startswith('"')
        again = client.get(f"{demo_server.url}{path}", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
        stale = client.get(f"{demo_server.url}{path}", headers={"If-None-Match": '"not-the-tag"'})
        assert stale.status_code == 200 and stale.content == first.content
        since = client.get(f"{demo_server.url}{path}", headers={"If-Modified-Since": first.headers["last-modified"]})
        assert since.status_code == 304
        older = client.get(f"{demo_server.url}{path}", headers={"If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"})
        assert older.status_code == 200


def test_different_windows_have_different_etags(demo_server, client):
    a = client.get(f"{demo_server.url}/v0/postings/brightpike?mode=json&skip=0&limit=5").headers["etag"]
    b = client.get(f"{demo_server.url}/v0/postings/brightpike?mode=json&skip=5&limit=5").headers["etag"]
    assert a != b


def test_head_unknown_paths_and_traversal(demo_server):
    conn = http.client.HTTPConnection("127.0.0.1", int(demo_server.url.rsplit(":", 1)[1]), timeout=5)
    try:
        conn.request("HEAD", "/careers/luming/")
        r = conn.getresponse()
        assert r.status == 200 and r.read() == b"" and int(r.getheader("Content-Length")) > 0
        for path in ("/careers/../server.py", "/careers/luming/../../generate.py", "/nothing", "/careers/none/"):
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            assert r.status == 404, path
    finally:
        conn.close()


def test_records_requests_and_is_port_independent(client):
    with DemoServer() as a, DemoServer() as b:
        assert a.url != b.url
        for path in ("/v1/boards/lumenwise/jobs?content=true", "/careers/fernhollow/page/2/"):
            ra, rb = client.get(a.url + path), client.get(b.url + path)
            # Payloads never embed the server's address: same bytes, same ETag on any port.
            assert ra.content == rb.content and ra.headers["etag"] == rb.headers["etag"]
            assert a.url.encode() not in ra.content
        assert [(r.method, r.status) for r in a.requests] == [("GET", 200), ("GET", 200)]
    with pytest.raises(RuntimeError):
        _ = a.url


def test_server_restarts_cleanly():
    server = DemoServer()
    server.start()
    url = server.url
    with httpx.Client(timeout=5.0) as c:
        assert c.get(url + "/").status_code == 200
    server.stop()
    server.stop()   # idempotent
    with pytest.raises(httpx.ConnectError), httpx.Client(timeout=2.0) as c:
        c.get(url + "/")


def test_index_page_lists_every_source(demo_server, client):
    text = client.get(demo_server.url + "/").text
    for name in demo_manifest()["sources"]:
        assert name in text
    assert json.loads(client.get(demo_server.url + "/v1/boards/orbitkite/jobs?content=true").text)["jobs"]


def test_command_line_entry_point_serves_and_stops_on_sigterm():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "jobpipe.demo.server", "--port", "0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+)", line).group(1)
        with httpx.Client(timeout=5.0) as c:
            assert c.get(url + "/robots.txt").status_code == 200
        proc.terminate()
        assert proc.wait(timeout=10) == 0
        assert "Warning" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
