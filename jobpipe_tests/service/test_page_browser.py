"""The search page and /docs in a real headless Chromium against a real server (Playwright).

A person types a Chinese question, applies a filter, opens a job and pastes a resume; the page
must load nothing from anywhere but the server. Screenshots go to the test's temporary folder.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
import uvicorn

from jobpipe.service.api import create_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.browser import local_browser
from jobpipe_tests.candidates.resumes import EN_ML
from jobpipe_tests.service.support import HashEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(database: str, seeded: dict[str, int]) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the service did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def page(server: str):
    with local_browser(locale="zh-CN") as browsing:
        yield browsing.new_page()
    assert browsing.outside == [], f"the page reached outside the server: {browsing.outside}"
    assert browsing.problems == []


def test_search_filter_detail_and_resume(page, server, seeded, tmp_path):
    from playwright.sync_api import expect

    page.goto(server + "/")
    assert page.title().startswith("jobpipe")

    # 1. a Chinese question: the city is read from it and applied
    page.fill("#q", "北京的 python 后端")
    page.press("#q", "Enter")
    page.wait_for_selector("#results .result")
    chip = page.locator('#understood .chip[data-field="city"]')
    assert chip.count() == 1 and "applied" in chip.get_attribute("class") and "北京" in chip.inner_text()
    cities = page.locator("#results .result .city").all_inner_texts()
    assert cities and all("Beijing" in c for c in cities)
    assert "Python 后端开发工程师" in page.locator("#results .result .title").all_inner_texts()
    assert "score" in page.locator("#results .result .parts").first.inner_text()
    page.screenshot(path=str(tmp_path / "1-chinese-query.png"), full_page=True)
    # several levels named: every level the ranking prefers is shown
    page.fill("#q", "lead or principal engineer")
    page.press("#q", "Enter")
    expect(page.locator('#understood .chip[data-field="seniority"]')).to_contain_text("lead / staff / principal")

    # 2. a filter from the form: a contract job only (changing the type searches again)
    page.fill("#q", "engineer")
    page.press("#q", "Enter")
    expect(page.locator("#status")).to_contain_text("jobs (")
    assert page.locator("#results .result").count() > 1
    page.select_option("#job-type", "contract")
    # (locator waits, not wait_for_function: the page's CSP forbids evaluating strings, as it should)
    expect(page.locator("#results .result .title")).to_have_text(["Frontend Engineer"])
    page.screenshot(path=str(tmp_path / "2-filtered.png"), full_page=True)
    # a posting-date window from the form: only what was posted in it; a reversed one is named
    page.select_option("#job-type", "")
    page.fill("#q", "算法 python")
    page.fill("#posted-until", (datetime.now(timezone.utc).date() - timedelta(days=30)).isoformat())
    page.press("#q", "Enter")
    expect(page.locator("#results .result .title")).to_have_text(["大模型算法实习生"])   # posted 40 days ago
    page.fill("#posted-from", datetime.now(timezone.utc).date().isoformat())
    page.press("#q", "Enter")
    expect(page.locator("#status")).to_contain_text("is after posted_until")
    page.fill("#posted-from", "")
    page.fill("#posted-until", "")
    page.fill("#q", "engineer")
    page.select_option("#job-type", "contract")
    expect(page.locator("#results .result .title")).to_have_text(["Frontend Engineer"])

    # 3. a job's detail
    page.click("#results .result .title")
    page.wait_for_selector("#detail:not([hidden]) h2")
    assert page.inner_text("#detail h2") == "Frontend Engineer"
    assert "TypeScript" in page.inner_text("#detail .description")
    assert page.get_attribute("#detail a[href^='https://pixel.example.com']", "rel").startswith("noopener")
    page.screenshot(path=str(tmp_path / "3-detail.png"), full_page=True)

    # 4. paste a resume: matches with the skills the candidate has and lacks
    page.select_option("#job-type", "")
    page.fill("#resume", EN_ML)
    page.click("#match-btn")
    page.wait_for_selector("#matches .result")
    first = page.locator("#matches .result").first
    assert first.locator(".title").inner_text() == "Machine Learning Engineer"
    assert "has:" in first.inner_text() and "missing:" in first.inner_text()
    assert page.locator("#candidate-skills .chip").count() >= 2
    page.screenshot(path=str(tmp_path / "4-resume.png"), full_page=True)
    assert all((tmp_path / name).stat().st_size > 10_000 for name in
               ("1-chinese-query.png", "2-filtered.png", "3-detail.png", "4-resume.png"))


def test_scraped_text_is_shown_as_text(page, server, seeded):
    page.goto(server + "/?q=python%20developer")
    page.wait_for_selector("#results .result")
    titles = page.locator("#results .result .title").all_inner_texts()
    assert any("Ignore previous instructions" in t for t in titles)   # shown, as plain text
    hostile = page.locator("#results .result", has_text="Ignore previous instructions")
    assert hostile.locator("a.out").count() == 0   # its javascript: link was dropped by the service


def test_openapi_ui_works_offline(page, server, tmp_path):
    page.goto(server + "/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "jobpipe query service" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector("text=/search")
    page.screenshot(path=str(tmp_path / "docs.png"))
