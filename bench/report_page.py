"""HTML report benchmark: a 10,000-episode page in a real browser, against a 100-episode one.

Makes a corpus of agent runs (default 10,000 episodes: 1,000 tasks x 10 trials, two to four
tool calls each, one run in three with a wrong argument, a missing or a spurious call; every
fifth task multi-turn), scores it with ek-otel's real scoring (``score_episodes``), renders
the page (``render_run``), and opens it in Debian's headless chromium (Playwright). Per page:

- **render**: the JSON report -> HTML in Python (bootstrap intervals included), CPU seconds;
- **size**: the HTML file in MB (target: under ~10 MB for 10,000 episodes);
- **interactive**: from navigation start until the script has built the tables
  (``html[data-ready]``), measured in the page (``performance.now()``), best of ``--repeat``;
- **interaction**: the median time of one click that changes what is shown (sort a column,
  next page, expand a task, expand an episode), measured in the page until the next frame.

Each figure of the large page is printed as a ratio to the same figure of the baseline page
(``--baseline`` episodes, default 100) measured in the same run: the machine is shared.

Usage:
    python bench/report_page.py                       # 10,000 vs 100 episodes
    python bench/report_page.py --episodes 50000 --keep /tmp/report-bench
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ek_otel.core.cost import ModelPrice, PriceTable
from ek_otel.core.episode import AnyOf, Cost, Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel.scoring import ScoreSettings, score_episodes
from ek_otel.report.html import render_run
from ek_otel.report.model import report_from_dict

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TRIALS = 10
CITIES = ["Paris", "Tokyo", "Lima", "Oslo", "Nairobi", "Quito"]


def _task(i: int, r: random.Random) -> TaskSpec:
    calls = [("lookup_order", {"order_id": AnyOf((str(1000 + i),))}),
             ("refund", {"order_id": AnyOf((str(1000 + i),)), "amount": AnyOf((round(r.uniform(5, 500), 2),)),
                         "reason": AnyOf(("", "damaged"))})]
    if i % 3 == 0:
        calls.append(("get_weather", {"city": AnyOf((r.choice(CITIES),)), "unit": AnyOf(("celsius", ""))}))
    if i % 5 == 0:
        return TaskSpec(f"task-{i:05d}", turns=[calls[:1], calls[1:]], slice=f"slice-{i % 7}")
    return TaskSpec(f"task-{i:05d}", gold=calls, slice=f"slice-{i % 7}", value=1 + i % 3)


def _plain(value):
    return value.values[0] if isinstance(value, AnyOf) else value


def _episode(task: TaskSpec, n: int, r: random.Random) -> Episode:
    gold = [c for turn in task.turns for c in turn] if task.turns else list(task.gold)
    steps = [Step(tool, {k: _plain(v) for k, v in args.items()}) for tool, args in gold]
    fault = r.random()
    if fault < 0.12:
        steps[-1] = Step(steps[-1].tool, dict(steps[-1].args, order_id="9999"))
    elif fault < 0.22:
        steps.pop()
    elif fault < 0.33:
        steps.append(Step("send_email", {"to": "customer@example.com", "body": "Your refund is on its way."}))
    trace = f"{r.getrandbits(128):032x}"
    return Episode(task.task_id, Trajectory(steps),
                   cost=Cost(input_tokens=r.randint(800, 4000), output_tokens=r.randint(50, 400),
                             cached_input_tokens=r.randint(0, 500)),
                   run=RunProvenance(model="gpt-bench"),
                   provenance=Provenance(trace_id=trace, root_span_id=f"{r.getrandbits(64):016x}",
                                         service_name="bench-agent"))


def make_report(episodes: int, seed: int = 7) -> dict:
    """The JSON report (``ScoreRun.to_dict``) of ``episodes`` scored runs."""
    r = random.Random(seed)
    n_tasks = max(1, episodes // TRIALS)
    tasks = {t.task_id: t for t in (_task(i, r) for i in range(n_tasks))}
    ordered = list(tasks.values())
    runs = [_episode(ordered[i % n_tasks], i, r) for i in range(episodes)]
    settings = ScoreSettings(prices=PriceTable({"gpt-bench": ModelPrice(2.0, 8.0)}), gold_sha256="ab" * 32,
                             scored_at_ns=1)
    data = score_episodes(runs, tasks, settings).to_dict()
    data["bad_input"] = {"total": 0, "counts": {}, "cases": []}
    return data


def render(data: dict, path: Path) -> float:
    start = time.process_time()
    html = render_run(report_from_dict(data, str(path)), trace_url="https://jaeger.example/trace/{trace_id}")
    seconds = time.process_time() - start
    path.write_text(html, encoding="utf-8")
    return seconds


_CLICK = """async (selector) => {
  const t0 = performance.now();
  document.querySelector(selector).click();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def measure(browser, path: Path, repeat: int) -> dict:
    ready, clicks = [], []
    for _ in range(repeat):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("html[data-ready]", timeout=120_000)
        ready.append(page.evaluate("window.__ekReadyAt"))
        for selector in ('#tasks th[data-key="f1"] button', "#tasks .pager button:last-child",
                         '#tasks th[data-key="task_id"] button', "#tasks tbody tr[data-row]",
                         "#tasks tr.detail tbody tr[data-row]"):
            clicks.append(page.evaluate(_CLICK, selector))
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.close()
    return {"interactive_ms": min(ready), "click_ms": statistics.median(clicks)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="Keep the pages in DIR.")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.keep or tempfile.mkdtemp(prefix="report-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    figures = {}
    for label, n in (("baseline", args.baseline), ("large", args.episodes)):
        data = make_report(n)
        path = out / f"report-{n}.html"
        seconds = render(data, path)
        figures[label] = {"episodes": n, "render_s": seconds, "mb": os.path.getsize(path) / 1e6, "path": path}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for label in ("baseline", "large"):
            figures[label].update(measure(browser, figures[label]["path"], args.repeat))
        browser.close()
    base, large = figures["baseline"], figures["large"]
    for label in ("baseline", "large"):
        f = figures[label]
        print(f"{label:>8}: {f['episodes']:>7,} episodes  {f['mb']:6.2f} MB  render {f['render_s']:6.2f} s  "
              f"interactive {f['interactive_ms']:7.0f} ms  click {f['click_ms']:6.1f} ms")
    print(f"   ratio: x{large['episodes'] / base['episodes']:.0f} episodes -> "
          f"size x{large['mb'] / base['mb']:.1f}, render x{large['render_s'] / max(base['render_s'], 1e-9):.1f}, "
          f"interactive x{large['interactive_ms'] / base['interactive_ms']:.2f}, "
          f"click x{large['click_ms'] / max(base['click_ms'], 1e-9):.2f}")
    verdict = "OK" if large["mb"] < 10 else "OVER"
    print(f"size target (< 10 MB for {large['episodes']:,} episodes): {verdict}")
    if not args.keep:
        for label in ("baseline", "large"):
            figures[label]["path"].unlink()
        os.rmdir(out)


if __name__ == "__main__":
    sys.exit(main())
