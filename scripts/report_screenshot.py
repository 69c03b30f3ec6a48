"""Regenerate the screenshots of docs/report.md (Debian's chromium, driven by Playwright):

- docs/report-run.png: the run page of the bundled example, from the headline to the figures;
- docs/report-transcript.png: the card of the refund that was 10x too large, with its transcript;
- docs/report-compare.png: the example against a worse copy, a regressed task open on both runs;
- docs/report-bfcl.png: the BFCL page at 1,400 px, a failing multi-turn entry open (the real
  submission of ../shared/bfcl-real when it is there, else the results tests/report writes
  from bfcl_eval's possible answers).

Usage (from the repository root):
    python scripts/report_screenshot.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
EXAMPLE = ["examples/traces.jsonl", "--gold", "examples/tasks.jsonl", "--pricing", "examples/pricing.yaml"]
def ek_otel(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "ek_otel", *args], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    out = Path(tempfile.mkdtemp())
    ek_otel("score", *EXAMPLE, "--json", str(out / "r.json"), "--html", str(out / "r.html"),
            "--transcripts", "--trace-url", "https://jaeger.example/trace/{trace_id}")
    from tests.report.conftest import WORSE, edited_traces  # the worse copy the tests compare

    edited_traces(out / "worse.jsonl", WORSE)
    ek_otel("score", str(out / "worse.jsonl"), *EXAMPLE[1:], "--json", str(out / "w.json"))
    ek_otel("compare", str(out / "r.json"), str(out / "w.json"), "--html", str(out / "c.html"))
    from tests.outside import find_bfcl_real  # the whole submission, when it is here
    from tests.report.test_bfcl_page import _multi_turn_results

    real = find_bfcl_real()
    if real is not None:
        ek_otel("bfcl", str(real / "result"), "--html", str(out / "b.html"))
    else:
        results = out / "bfcl" / "glyphh-ada-1.1" / "multi_turn"
        results.mkdir(parents=True)
        (results / "BFCL_v4_multi_turn_base_result.json").write_text(
            "".join(json.dumps(entry) + "\n" for entry in _multi_turn_results()))
        ek_otel("bfcl", str(out / "bfcl"), "--html", str(out / "b.html"))
    episodes = json.loads((out / "r.json").read_text())["episodes"]
    wrong = next(i for i, e in enumerate(episodes)
                 if e["task_id"] == "refund-order-1042" and not e["success"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)

        def page_of(path: Path, width: int = 1280):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(path.as_uri())
            page.wait_for_selector("html[data-ready]")
            return page

        page = page_of(out / "r.html")
        bottom = page.locator("#totals").bounding_box()
        page.screenshot(path=str(DOCS / "report-run.png"), full_page=True,
                        clip={"x": 0, "y": 0, "width": 1280, "height": bottom["y"] + bottom["height"] + 16})
        page.locator(f'#episodes tr[data-row="ep:{wrong}"]').click()
        page.locator("#episodes tr.detail").screenshot(path=str(DOCS / "report-transcript.png"))
        page = page_of(out / "c.html", 1400)
        page.click('#comparison tr[data-row="cmp:refund-order-1042"]')
        top, bottom = page.evaluate(
            "(() => { const a = document.getElementById('costs').getBoundingClientRect();"
            " const b = document.querySelector('#comparison tr.detail').getBoundingClientRect();"
            " return [a.top + window.scrollY, b.bottom + window.scrollY]; })()")
        page.screenshot(path=str(DOCS / "report-compare.png"), full_page=True,
                        clip={"x": 0, "y": top - 8, "width": 1400, "height": min(bottom - top + 16, 2200)})
        page = page_of(out / "b.html", 1400)
        page.select_option("#category-filter", "multi_turn_base")
        page.locator("#failing tbody tr[data-row]").first.click()
        page.evaluate("document.getElementById('categories').hidden = true;"
                      "document.getElementById('error-types').hidden = true")
        bottom = page.evaluate("(() => { const r = document.querySelector('#failing tr.detail')"
                               ".getBoundingClientRect(); return r.bottom + window.scrollY; })()")
        page.screenshot(path=str(DOCS / "report-bfcl.png"), full_page=True,
                        clip={"x": 0, "y": 0, "width": 1400, "height": bottom + 16})
        browser.close()


if __name__ == "__main__":
    main()
