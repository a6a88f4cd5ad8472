"""The Dagster UI as an operator uses it, in a real browser (Playwright driving Debian's chromium).

``jobpipe ui`` (webserver + daemon) runs on a home with four days of history: a board that
answers and one that fails with HTTP 500. By clicks: the asset catalog (every asset with its
description, group and kinds; owners on each asset's page), an asset's run metadata and its
checks, a backfill of 3 past days of one source launched from the partition dialog (it
succeeds with no HTTP request to the board), the schedule and sensors running, and the failed
source's run with its HTTP error. Screenshots go to the test's temporary folder (and to
``$JOBPIPE_SCREENSHOTS`` when set).
"""

from __future__ import annotations

import functools
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from jobpipe.db import migrate, with_database
from jobpipe.orchestration import OWNERS
from jobpipe_tests.browser import chromium_path, local_browser
from jobpipe_tests.ui.home import BROKEN, GOOD, Home, board_server, build_history, dagster_ui

pytestmark = pytest.mark.slow

ASSETS = {   # name -> (group, kinds the catalog shows)
    "raw_postings": ("ingest", ["Python", "Postgres"]),
    "normalized_postings": ("ingest", ["Pandera"]),
    "curated_jobs": ("ingest", ["Postgres"]),
    "job_embeddings": ("vectors", ["pgvector"]),
    "vector_index": ("vectors", ["pgvector"]),
    "serving_jobs": ("serving", ["Postgres"]),
    "candidate_profiles": ("candidates", ["Python"]),
    "candidate_vectors": ("candidates", ["pgvector"]),
    "candidate_matches": ("candidates", ["Python"]),
    "snapshot_retention": ("maintenance", ["Postgres"]),
}


@pytest.fixture(scope="module")
def ui_home(tmp_path_factory: pytest.TempPathFactory, database: str) -> Iterator[Home]:
    """A database of its own (so its Dagster instance holds only this history), and the UI on it."""
    chromium_path()                 # skip before building anything when there is no browser
    name = f"jobpipe_test_ui_{uuid.uuid4().hex[:8]}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database, name)
    migrate(url)
    server = board_server()
    try:
        home = build_history(tmp_path_factory.mktemp("ui_home"), url, server, days_back=3)
        with dagster_ui(home) as running:
            yield running
    finally:
        server.stop()
        with psycopg.connect(admin, autocommit=True) as conn:
            for db in (name, name + "_dagster"):
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


class Screens:
    """Full-page screenshots into the test's folder, copied to ``$JOBPIPE_SCREENSHOTS`` when set."""

    def __init__(self, page, folder: Path) -> None:
        self.page, self.folders = page, [folder]
        if os.environ.get("JOBPIPE_SCREENSHOTS"):
            self.folders.append(Path(os.environ["JOBPIPE_SCREENSHOTS"]))
        for f in self.folders:
            f.mkdir(parents=True, exist_ok=True)

    def shot(self, name: str) -> None:
        path = self.folders[0] / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        for extra in self.folders[1:]:
            shutil.copyfile(path, extra / path.name)


@pytest.fixture
def page(ui_home: Home, tmp_path: Path):
    """A tab on the UI (nothing but this machine reachable); the newsletter prompt is dismissed."""
    with local_browser(viewport=(1600, 1000)) as browsing:
        tab = browsing.new_page(timeout_ms=60_000)
        tab.add_locator_handler(tab.get_by_role("button", name="Skip"), lambda loc: loc.click())
        tab.screens = Screens(tab, tmp_path / "screenshots")
        yield tab
    assert browsing.outside == [], f"the UI reached outside this machine: {browsing.outside}"


def test_the_asset_catalog_shows_every_asset_with_description_group_owner_and_kind(ui_home: Home, page) -> None:
    from jobpipe.orchestration.definitions import defs

    graph = defs.resolve_asset_graph()
    page.goto(ui_home.url + "/assets")
    page.locator("a[href='/assets/vector_index']").first.wait_for()
    page.screens.shot("catalog")
    descriptions = {k.to_user_string(): graph.get(k).description for k in graph.get_all_asset_keys()}
    assert set(descriptions) == set(ASSETS)
    for name, (group, _kinds) in ASSETS.items():
        row = page.locator("[class*=VirtualizedTable_row]").filter(has=page.locator(f"a[href='/assets/{name}']"))
        text = " ".join(row.first.inner_text().split())
        assert " ".join(descriptions[name].split()[:4]) in text and group in text, (name, text)
    # Owners and kinds are on each asset's page: open one from the catalog by a click.
    page.locator("a[href='/assets/job_embeddings']").first.click()
    page.get_by_text("Owners").first.wait_for()
    body = page.inner_text("body")
    page.screens.shot("job_embeddings")
    assert OWNERS[0].removeprefix("team:") in body and "pgvector" in body and "vectors" in body


def test_an_asset_page_shows_run_metadata_and_checks_with_descriptions(ui_home: Home, page) -> None:
    from playwright.sync_api import expect

    page.goto(ui_home.url + "/assets")
    for name, keys in {"raw_postings": ["fetched", "requests", "seconds"],
                       "normalized_postings": ["passed", "rejected", "reject_rate", "seconds"],
                       "curated_jobs": ["inserted", "updated", "unchanged", "closed", "would_close", "seconds"],
                       "job_embeddings": ["embedded", "seconds"]}.items():
        page.goto(ui_home.url + "/assets")
        page.locator(f"a[href='/assets/{name}']").first.click()
        page.get_by_text("Metadata").first.wait_for()
        for key in keys:        # the metadata table may render in parts: wait for each, then read
            page.get_by_text(key, exact=True).first.wait_for()
        body = page.inner_text("body")
        for key in keys:
            assert key in body.split("\n"), (name, key)
        page.screens.shot(f"{name}_overview")
    page.goto(ui_home.url + "/assets")
    page.locator("a[href='/assets/curated_jobs']").first.click()
    page.get_by_text("Checks", exact=True).first.click()
    page.get_by_text("listing_confirmed").first.wait_for()
    # Select close_guard by a click (the preselected check is the UI's choice), then wait for its
    # "About" panel: the list renders before the description's own query has answered, so reading
    # the page as soon as the names show fails on a slow machine.
    page.get_by_text("close_guard", exact=True).first.click()
    expect(page.locator("body")).to_contain_text("would close more than close_guard_share", timeout=60_000)
    page.screens.shot("curated_jobs_checks")
    body = page.inner_text("body")
    assert "listing_confirmed" in body and "jobpipe sources accept-close" in body


def test_a_backfill_of_three_past_days_from_the_partition_dialog_replays_without_fetching(
        ui_home: Home, page) -> None:
    past = ui_home.days[:3]
    requests_before = len(ui_home.server.log)
    page.goto(ui_home.url + "/locations/jobpipe/asset-groups/ingest")
    page.get_by_role("button", name="Materialize all").click()
    dialog = page.locator("[class*=dialog]").filter(has_text="Partition selection").last
    dates = dialog.get_by_placeholder("ex: ")
    dates.fill(f"[{past[0].isoformat()}...{past[-1].isoformat()}]")
    dates.press("Enter")
    dialog.get_by_text("Select a partition or create one").click()
    page.get_by_role("menuitem", name=GOOD).or_(page.get_by_text(GOOD, exact=True)).first.click()
    page.keyboard.press("Escape")
    dialog.get_by_text("3 partitions").wait_for()
    page.screens.shot("backfill_dialog")
    page.get_by_role("button", name="Launch backfill").click()

    deadline = time.monotonic() + 900     # the runs of one source queue one after another (dagster.yaml)
    status = None
    while time.monotonic() < deadline:
        data = ui_home.graphql("{ partitionBackfillsOrError(limit: 5) { ... on PartitionBackfills { results { "
                               "id status numPartitions } } } }")
        results = data["partitionBackfillsOrError"]["results"]
        status = results[0]["status"] if results else None
        if status in ("COMPLETED_SUCCESS", "COMPLETED_FAILED", "FAILED", "CANCELED", "COMPLETED"):
            break
        time.sleep(3)
    page.goto(ui_home.url + "/runs/b/" + results[0]["id"])
    page.wait_for_load_state("networkidle")
    page.screens.shot("backfill")
    assert status in ("COMPLETED_SUCCESS", "COMPLETED"), status
    runs = ui_home.graphql('{ runsOrError(filter: {tags: [{key: "dagster/backfill", value: "' + results[0]["id"] + '"}]}) '
                           '{ ... on Runs { results { status tags { key value } } } } }')
    finished = runs["runsOrError"]["results"]
    assert len(finished) == 3 and {r["status"] for r in finished} == {"SUCCESS"}
    assert len(ui_home.server.log) == requests_before       # replayed from snapshots: no HTTP request


def _switch_is_on(page, switch) -> bool:
    target = switch.get_attribute("for", timeout=5_000)
    box = page.locator(f"input#{target}")
    return bool(target) and box.count() == 1 and box.is_checked(timeout=1_000)


def _eventually(check, *, seconds: float) -> bool:
    """Whether ``check()`` holds within ``seconds``; a try that raises (an element re-rendered away
    between finding and reading it) counts as not yet."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if check():
                return True
        except Exception:   # noqa: BLE001 - playwright's errors for a detached element vary
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)


def test_the_nightly_schedule_and_the_sensors_are_running(ui_home: Home, page) -> None:
    page.goto(ui_home.url + "/automation")
    for name in ("nightly_ingest", "jobpipe_automation", "register_sources", "source_freshness"):
        row = page.locator("[class*=ListItem_listItem]").filter(has_text=name).first
        row.wait_for()
        switch = row.locator("label[class*=formatSwitch]")      # the on/off switch (not the row's select box)
        switch.wait_for()
        # The switch renders before the instigator's state has loaded, and the list re-renders as it
        # loads, giving the switch's input a new generated id: the input is looked up again through
        # the label's current `for` on every try (a stopped schedule or sensor still fails, after 30 s).
        assert _eventually(functools.partial(_switch_is_on, page, switch), seconds=30), f"{name} is not running"
    page.screens.shot("automation")


def test_a_failed_sources_run_shows_its_http_error(ui_home: Home, page) -> None:
    page.goto(ui_home.url + "/runs")
    page.get_by_text("Failure").first.wait_for()
    row = page.locator("[class*=RunsFeedRow_row]").filter(has_text=BROKEN).filter(has_text="Failure").first
    row.locator("a[href^='/runs/']").first.click()
    page.get_by_text("STEP_FAILURE").first.wait_for()
    page.screens.shot("failed_run")
    body = page.inner_text("body")
    assert "HTTP 500" in body and BROKEN in body

