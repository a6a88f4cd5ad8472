"""One way to drive a real browser in the tests: Playwright with Debian's chromium.

Playwright's own browser download cannot work offline, so every browser test launches the
system chromium (``make test`` installs it with the other Debian packages in ``system-packages``)
through :func:`local_browser`: headless, without the browser's own background traffic, and with
every request to a host other than the local server aborted and reported, so a page that would
load something from a CDN fails its test instead of quietly working only online.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest

CHROMIUM = os.environ.get("JOBPIPE_CHROMIUM", "/usr/bin/chromium")
#: No background traffic of the browser's own (updates, sync, translation, safe browsing...).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
]
LOCAL_HOSTS = ("127.0.0.1", "localhost")


def chromium_path() -> str:
    """Debian's chromium, or skip (fail on CI, where ``make test`` must have installed it)."""
    if shutil.which(CHROMIUM) or os.path.exists(CHROMIUM):
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    pytest.skip(f"needs Debian's chromium at {CHROMIUM} (`make test` installs it)")


@dataclass
class Browsing:
    """A browser context and what its pages did that a test should fail on."""

    context: object
    outside: list[str] = field(default_factory=list)    # requests to other hosts (aborted)
    problems: list[str] = field(default_factory=list)   # uncaught page errors, console errors

    def new_page(self, timeout_ms: int = 15_000):
        page = self.context.new_page()
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on("console", lambda msg: self.problems.append(f"console: {msg.text}") if msg.type == "error" else None)
        page.set_default_timeout(timeout_ms)
        return page


@contextmanager
def local_browser(*, locale: str = "en-US", viewport: tuple[int, int] = (1280, 900)) -> Iterator[Browsing]:
    """A headless chromium context that may reach only this machine's servers."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("needs playwright (pip install -e '.[test]')")
    executable = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale=locale)
        browsing = Browsing(context)

        def only_local(route) -> None:
            if urlsplit(route.request.url).hostname in LOCAL_HOSTS:
                route.continue_()
            else:
                browsing.outside.append(route.request.url)
                route.abort()

        context.route("**/*", only_local)
        try:
            yield browsing
        finally:
            context.close()
            browser.close()
