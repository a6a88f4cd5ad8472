from __future__ import annotations

import pytest

from jobpipe.sources import PoliteClient, extract, fetch_source
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, Reply, fixture, html_reply

FIELDS = {"title": "h1", "description": ".jd", "location": ".city", "salary": ".salary"}


def serve_campus(server: FixtureServer) -> None:
    server.route("/campus/list", html_reply(fixture("campus/list1.html")))
    server.route("/campus/list?page=2", html_reply(fixture("campus/list2.html")))
    server.route("/campus/job/2027-001", html_reply(fixture("campus/job-001.html")))
    server.route("/campus/job/2027-002", html_reply(fixture("campus/job-002.html")))
    # GBK page, charset only in <meta>: must be decoded from the page itself
    server.route("/campus/job/2027-003", Reply(body=fixture("campus/job-003.html"), content_type="text/html"))


def test_listing_items_details_and_next_page(server: FixtureServer, client: PoliteClient) -> None:
    serve_campus(server)
    config = make_config("campus", "html", start_url=server.url("/campus/list"), item_links="ul.jobs a",
                         next_page="a.next", fields=FIELDS)
    result = fetch_source(config, client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == [server.url(f"/campus/job/2027-00{i}") for i in (1, 2, 3)]
    first = result.postings[0].payload
    assert first == {"url": server.url("/campus/job/2027-001"), "title": "2027届 算法工程师",
                     "description": "<p>负责大模型推理优化。</p><ul><li>熟悉 PyTorch</li></ul>",
                     "location": ["北京", "杭州"], "salary": "25-40K·16薪"}
    fields = extract("html", first)
    assert fields.title == "2027届 算法工程师" and fields.salary_text == "25-40K·16薪"
    assert fields.location == "北京" and fields.locations == ["杭州"]
    assert fields.description.startswith("<p>负责") and fields.url == server.url("/campus/job/2027-001")
    second = extract("html", result.postings[1].payload)
    assert second.salary_text is None and second.location == "上海"
    gbk = extract("html", result.postings[2].payload)
    assert gbk.title == "产品经理实习生" and gbk.salary_text == "200-300元/天" and gbk.location == "深圳"
    assert len(server.hits("/campus/list")) == 1                 # the "上一页" link is not a next page


def test_attribute_fields_and_external_id(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/list", html_reply('<ul class="jobs"><li><a href="/j/9">x</a></li></ul>'))
    server.route("/j/9", html_reply('<main data-job-id="J-9"><h1>QA</h1><time datetime="2026-10-01">昨天</time></main>'))
    config = make_config("c", "html", start_url=server.url("/list"), item_links="ul.jobs a",
                         fields={"title": "h1", "external_id": {"selector": "main", "attr": "data-job-id"},
                                 "posted_at": {"selector": "time", "attr": "datetime"}, "team": "h2"})
    result = fetch_source(config, client)
    (posting,) = result.postings
    assert posting.external_id == "J-9"
    fields = extract("html", posting.payload)
    assert fields.posted_at == "2026-10-01" and fields.extra == {"team": None}


def test_detail_page_failure_is_reported(server: FixtureServer, client: PoliteClient) -> None:
    serve_campus(server)
    server.route("/campus/job/2027-002", Reply(status=500))
    config = make_config("campus", "html", start_url=server.url("/campus/list"), item_links="ul.jobs a",
                         next_page="a.next", fields=FIELDS)
    result = fetch_source(config, client)
    assert not result.complete
    assert result.error == (f"1 page(s) failed: GET {server.url('/campus/job/2027-002')}: "
                            "HTTP 500 Internal Server Error (after 3 attempts)")
    assert len(result.postings) == 2


def test_extract_is_pure_and_leaves_the_payload_alone() -> None:
    payload = {"url": "https://x.example/j/1", "title": "QA", "location": ["北京", "上海"], "salary": "10-20K"}
    before = repr(payload)
    fields = extract("html", payload)
    fields.locations.append("深圳")
    fields.extra["x"] = 1
    assert repr(payload) == before
    assert extract("html", payload) == extract("html", payload)
    with pytest.raises(ValueError, match="no extractor for format 'nope'"):
        extract("nope", payload)
