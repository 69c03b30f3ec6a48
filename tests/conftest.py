"""Suite-wide: ``--skip-allowlist FILE`` turns every skip that FILE does not allow into a failure.

A skipped test proves nothing, so CI (``.ci/run``) runs with
``--skip-allowlist tests/skip_allowlist.txt``: a skip is allowed only when a line of that
file matches both its test id and its reason, and every line says why the skip is fine.
A line is ``TEST-ID-GLOB | REASON-GLOB | why`` (``fnmatch`` globs; ``#`` starts a comment).

Also the fixtures shared by the test packages: ``browser`` (Debian's headless chromium, driven
by Playwright) and ``open_page``, for the HTML pages; ``foreign``, the folder of other
projects' test data beside the checkout (:mod:`tests.outside`: never copied into the tree).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.outside import foreign_folder


class AllowedSkip(NamedTuple):
    test_id: str
    reason: str
    why: str


def load_allowlist(path: str) -> list:
    """The :class:`AllowedSkip` lines of an allow-list file (a line without a why is an error)."""
    allowed = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            raise pytest.UsageError(f"{path}:{number}: expected 'TEST-ID-GLOB | REASON-GLOB | why'")
        allowed.append(AllowedSkip(*parts))
    return allowed


def skip_reason(report) -> str:
    """The message a skipped test or collector was skipped with."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def disallowed(skips: list, allowed: list) -> list:
    """The ``(test id, reason)`` skips that no allow-list line matches.

    Example:
        >>> rule = AllowedSkip("tests/bfcl/*", "bfcl-real not found*", "outside the repository")
        >>> disallowed([("tests/bfcl/test_x.py::t", "bfcl-real not found: set it"),
        ...             ("tests/serve/test_tls.py::t", "No module named 'cryptography'")], [rule])
        [('tests/serve/test_tls.py::t', "No module named 'cryptography'")]
    """
    return [(test_id, reason) for test_id, reason in skips
            if not any(fnmatch.fnmatchcase(test_id, rule.test_id)
                       and fnmatch.fnmatchcase(reason, rule.reason) for rule in allowed)]


_SKIPS: list = []


def pytest_addoption(parser):
    parser.addoption("--skip-allowlist", metavar="FILE", default=None,
                     help="fail the run on any skip not allowed by FILE "
                          "(lines 'TEST-ID-GLOB | REASON-GLOB | why')")


def pytest_configure(config):
    path = config.getoption("--skip-allowlist")
    if path:
        config._ek_allowed_skips = load_allowlist(path)  # fail early on a malformed file


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPS.append((report.nodeid, skip_reason(report)))


def pytest_collectreport(report):
    if report.skipped:  # a module skipped whole (a module-level importorskip)
        _SKIPS.append((report.nodeid, skip_reason(report)))


def pytest_sessionfinish(session, exitstatus):
    allowed = getattr(session.config, "_ek_allowed_skips", None)
    if allowed is None:
        return
    bad = disallowed(_SKIPS, allowed)
    if not bad:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", f"{len(bad)} skips not on the allow-list", red=True)
        for test_id, reason in bad:
            reporter.write_line(f"{test_id}: {reason}")
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


#: How the tests launch Debian's chromium (no browser download, no network, no sandbox as root).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    """A real headless Chromium (Debian's), driven by Playwright.

    Module-scoped: Playwright's sync API keeps an event loop running in the main thread while
    it is open, and other tests call ``asyncio.run`` there."""
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


@pytest.fixture(scope="session")
def foreign():
    """Other projects' test data (``../shared/foreign`` or ``$EK_OTEL_FOREIGN``); absent, the
    test skips with :data:`tests.outside.FOREIGN_MISSING` (fails under
    ``$EK_OTEL_REQUIRE_FOREIGN``)."""
    return foreign_folder()
