"""Regenerate docs/report-example.png: the example's HTML report, one failing refund open.

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
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def main() -> None:
    out = Path(tempfile.mkdtemp())
    subprocess.run([sys.executable, "-m", "ek_otel", "score", "examples/traces.jsonl", "--gold",
                    "examples/tasks.jsonl", "--pricing", "examples/pricing.yaml", "--json",
                    str(out / "r.json"), "--html", str(out / "r.html"), "--trace-url",
                    "https://jaeger.example/trace/{trace_id}"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    episodes = json.loads((out / "r.json").read_text())["episodes"]
    wrong = next(i for i, e in enumerate(episodes)
                 if e["task_id"] == "refund-order-1042" and not e["success"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto((out / "r.html").as_uri())
        page.wait_for_selector("html[data-ready]")
        page.click('tr[data-row="task:refund-order-1042"]')
        page.click(f'tr[data-row="ep:{wrong}"]')
        page.screenshot(path=str(ROOT / "docs" / "report-example.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
