"""The compare page in a real headless Chromium, on the example and a worsened copy of it:
changes from success rates (a drop is a red "regressed", never "still fails"), rows that
open on the base and candidate runs side by side, cost and latency deltas, slices."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli

from .conftest import PRICING, TRACES, WORSE, edited_traces, score_json


@pytest.fixture(scope="module")
def compare_html(tmp_path_factory):
    d = tmp_path_factory.mktemp("compare-page")
    base = score_json(TRACES, d / "base.json", "--pricing", str(PRICING))
    worse = score_json(edited_traces(d / "worse.jsonl", WORSE), d / "worse.json", "--pricing", str(PRICING))
    out = d / "compare.html"
    result = CliRunner().invoke(cli, ["compare", str(d / "base.json"), str(d / "worse.json"), "--html", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, base, worse


def _rows(page):
    return page.locator("#comparison > table > tbody > tr[data-row]")


def test_a_drop_in_success_is_a_red_regression(compare_html, open_page):
    out, base, worse = compare_html
    page = open_page(out)
    changes = {r.get_attribute("data-row")[4:]: r.locator("td").nth(2).inner_text() for r in _rows(page).all()}
    # refund-order-1042 and flight-booking go from 0.5 to 0.0: regressions, not "still fails"
    assert changes == {"weather-paris": "regressed", "refund-order-1042": "regressed",
                       "flight-booking": "regressed", "joke-no-tool": "unchanged"}
    pill = page.locator('#comparison tr[data-row="cmp:refund-order-1042"] .pill')
    assert pill.get_attribute("class") == "pill regressed"
    assert "still fails" not in page.locator("main").inner_text()
    assert page.locator("#overall [data-regressed]").inner_text() == "3"
    assert page.locator("main").inner_text().count("regressed / improved / unchanged") == 1
    slices = page.locator("#slice-changes tbody tr")
    assert slices.count() == len({t.get("slice") for t in base["per_task"].values()})
    assert page.locator('#slice-changes tr[data-slice="payments"] .pill').inner_text() == "regressed"


def test_a_task_opens_on_base_and_candidate_runs_side_by_side(compare_html, open_page):
    out, base, worse = compare_html
    page = open_page(out)
    page.click('#comparison tr[data-row="cmp:weather-paris"]')
    detail = page.locator("#comparison tr.detail")
    left, right = detail.locator(".side-base"), detail.locator(".side-candidate")
    n_base = sum(e["task_id"] == "weather-paris" for e in base["episodes"])
    assert left.locator("details.run").count() == n_base
    assert right.locator("details.run").count() == sum(e["task_id"] == "weather-paris" for e in worse["episodes"])
    # Every candidate run is wrong, its differing argument highlighted against the gold.
    row = right.locator('.call[data-status="differs"] tr.diff[data-arg="city"]').first
    assert row.locator("td.got").inner_text() == '"Lyon"'
    assert "Paris" in row.locator("td.expected").inner_text()
    assert "expected one of" in right.locator("details.run summary").first.inner_text()
    # The cost and latency deltas are those of the episodes.
    def total(report, key):
        return sum(e["cost"][key] for e in report["episodes"])
    tokens = total(worse, "input_tokens") + total(worse, "output_tokens") - total(base, "input_tokens") - total(base, "output_tokens")
    assert page.locator('#cost-deltas tr[data-figure="tokens"] [data-delta]').inner_text() == f"{tokens:+d}"
    assert page.errors == []


def test_the_compare_page_fits_1400_px_with_a_task_open(compare_html, open_page):
    out, _, _ = compare_html
    page = open_page(out, viewport={"width": 1400, "height": 900})
    page.click('#comparison tr[data-row="cmp:refund-order-1042"]')
    assert page.evaluate("document.documentElement.scrollWidth") == 1400
