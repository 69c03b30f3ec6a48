"""Fixtures shared across the test packages: a real headless Chromium for the HTML pages."""

from __future__ import annotations

from pathlib import Path

import pytest


#: How the tests launch Debian's chromium (no browser download, no network, no sandbox as root).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """A real headless Chromium (Debian's), driven by Playwright."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `apt-get install -y chromium`"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser):
    """open_page(path) -> a page showing the file, ready; records errors, dialogs, requests."""
    contexts = []

    def open_(path, viewport=None):
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.errors, page.dialogs, page.requests = [], [], []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: page.requests.append(r.url))
        page.goto(Path(path).resolve().as_uri())
        page.wait_for_selector("html[data-ready]")
        return page

    yield open_
    for context in contexts:
        context.close()
