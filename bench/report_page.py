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

Before and after, in the same run (``--before REV``, default ``main``: the pages of that
revision's ``ek_otel``, extracted with ``git archive`` into a temporary directory and run in a
subprocess):

- **--html overhead**: ``ek-otel score`` on the bundled example with and without ``--html``
  (wall time, best of ``--repeat``), as a ratio and as seconds over ``score`` alone (target:
  at most 0.5 s);
- **the large page**: its size and time to interactive, rendered by each revision from the
  same JSON report.

``--transcripts`` also measures what ``score --transcripts`` costs at that size: a dump of
as many agent traces (``bench/ingest.py``'s generator: 10 spans each, a user message, 5
model calls, 4 tool executions with outputs) scored with and without it, the JSON report's
size both ways, and the page with transcripts.

Usage:
    python bench/report_page.py                       # 10,000 vs 100 episodes, before = main
    python bench/report_page.py --before 27de7ea --transcripts
    python bench/report_page.py --episodes 50000 --keep /tmp/report-bench
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from ek_otel.core.cost import ModelPrice, PriceTable
from ek_otel.core.episode import AnyOf, Cost, Episode, Provenance, RunProvenance, Step, TaskSpec, Trajectory
from ek_otel.scoring import ScoreSettings, score_episodes
from ek_otel.report.html import render_run
from ek_otel.report.model import report_from_dict

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = [str(ROOT / "examples" / "traces.jsonl"), "--gold", str(ROOT / "examples" / "tasks.jsonl"),
           "--pricing", str(ROOT / "examples" / "pricing.yaml")]
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


def measure(browser, path: Path, repeat: int, clicks: bool = True) -> dict:
    ready, timed = [], []
    for _ in range(repeat):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("html[data-ready]", timeout=120_000)
        ready.append(page.evaluate("window.__ekReadyAt"))
        for selector in () if not clicks else ('#tasks th[data-key="f1"] button', "#tasks .pager button:last-child",
                         '#tasks th[data-key="task_id"] button', "#tasks tbody tr[data-row]",
                         "#tasks tr.detail tbody tr[data-row]"):
            timed.append(page.evaluate(_CLICK, selector))
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.close()
    return {"interactive_ms": min(ready), "click_ms": statistics.median(timed) if timed else None}


def source_tree(rev: str, into: Path) -> Path:
    """The ``ek_otel`` package of git revision ``rev``, extracted under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "ek_otel"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _env(tree: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(tree), COLUMNS="80")


def _run(tree: Path, argv: list, **options) -> subprocess.CompletedProcess:
    """Run ``argv`` with the ``ek_otel`` of ``tree`` (its directory is the working directory:
    ``python -c``/``-m`` put that first on the path)."""
    return subprocess.run(argv, cwd=tree, env=_env(tree), check=True, capture_output=True, **options)


#: A stand-in for ``scipy.stats.binom`` (exact, from math.comb): what a scipy-free
#: ``report/stats.py`` costs, measured the same way (``--html`` overhead "without scipy").
_SCIPY_STUB = {
    "scipy/__init__.py": "",
    "scipy/stats.py": (
        "import math\n"
        "class binom:\n"
        "    @staticmethod\n"
        "    def pmf(k, n, p):\n"
        "        return math.comb(int(n), int(k)) * p ** k * (1 - p) ** (n - k)\n"
        "    @staticmethod\n"
        "    def cdf(k, n, p):\n"
        "        return sum(binom.pmf(i, n, p) for i in range(int(k) + 1))\n"
        "    @staticmethod\n"
        "    def sf(k, n, p):\n"
        "        return 1.0 - binom.cdf(k, n, p)\n"),
}


def scipy_stub(into: Path) -> Path:
    for name, text in _SCIPY_STUB.items():
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        (into / name).write_text(text, encoding="utf-8")
    return into


def html_overhead(tree: Path, out: Path, repeat: int, stub: Optional[Path] = None) -> dict:
    """Best wall time of ``score`` on the example, without and with ``--html`` (the two
    alternate, so that both see the same load); ``stub``: scipy replaced by :data:`_SCIPY_STUB`."""
    env = _env(tree)
    if stub is not None:
        env["PYTHONPATH"] = f"{stub}{os.pathsep}{tree}"
    times: dict = {"plain": [], "html": []}
    for _ in range(repeat):
        for label, extra in (("plain", []), ("html", ["--html", str(out / "example.html")])):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ek_otel", "score", *EXAMPLE, *extra], cwd=tree,
                           env=env, check=True, capture_output=True)
            times[label].append(time.perf_counter() - start)
    return {"plain_s": min(times["plain"]), "html_s": min(times["html"])}


_RENDER = """
import sys, time
from ek_otel.report.html import render_run
from ek_otel.report.model import load_report
start = time.process_time()
html = render_run(load_report(sys.argv[1]), trace_url="https://jaeger.example/trace/{trace_id}")
print(time.process_time() - start)
open(sys.argv[2], "w", encoding="utf-8").write(html)
"""


def render_with(tree: Path, report: Path, page: Path) -> float:
    """Render the page of a JSON report with the ``ek_otel`` of ``tree`` (CPU seconds)."""
    done = _run(tree, [sys.executable, "-c", _RENDER, str(report), str(page)], text=True)
    return float(done.stdout.strip().splitlines()[-1])


def page_imports(tree: Path) -> dict:
    """Seconds to import the page's modules (``ek_otel.report.html``) in a fresh process, and
    the part of it that scipy and numpy take (``python -X importtime``)."""
    done = _run(tree, [sys.executable, "-X", "importtime", "-c", "import ek_otel.report.html"], text=True)
    total, parts = 0, {"scipy": 0, "numpy": 0}
    for line in done.stderr.splitlines():
        fields = line.split("|")
        if len(fields) != 3 or not fields[1].strip().isdigit():
            continue
        name = fields[2].strip()
        cumulative = int(fields[1])
        if name == "ek_otel.report.html":
            total = cumulative
        for package in parts:  # a package's most costly module holds the others it imports
            if name == package or name.startswith(package + "."):
                parts[package] = max(parts[package], cumulative)
    return {"total_s": total / 1e6, **{f"{k}_s": v / 1e6 for k, v in parts.items()}}


def transcript_dump(out: Path, episodes: int) -> tuple:
    """A dump of ``episodes`` agent traces (bench/ingest.py's generator) and its gold file."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ingest  # noqa: E402  (bench/ingest.py)

    paths = ingest.generate(str(out / "agents"), episodes * 10, 1000, ("jsonl",))
    return paths["jsonl"], str(out / "agents" / "gold.jsonl")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", default="main", metavar="REV",
                        help="The git revision whose pages are 'before' (default: main).")
    parser.add_argument("--transcripts", action="store_true",
                        help="Also measure score --transcripts on as many agent traces.")
    parser.add_argument("--keep", metavar="DIR", help="Keep the pages in DIR.")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out = Path(args.keep or tempfile.mkdtemp(prefix="report-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    trees = {"before": source_tree(args.before, out / "before"), "after": ROOT}
    figures = {}
    for label, n in (("baseline", args.baseline), ("large", args.episodes)):
        data = make_report(n)
        path = out / f"report-{n}.html"
        seconds = render(data, path)
        figures[label] = {"episodes": n, "render_s": seconds, "mb": os.path.getsize(path) / 1e6, "path": path}
    # the same large JSON report, paged by the revision before
    report_json = out / f"report-{args.episodes}.json"
    report_json.write_text(json.dumps(make_report(args.episodes)), encoding="utf-8")
    before_page = out / f"report-{args.episodes}-before.html"
    before_render = render_with(trees["before"], report_json, before_page)
    figures["before"] = {"episodes": args.episodes, "render_s": before_render,
                         "mb": os.path.getsize(before_page) / 1e6, "path": before_page}
    if args.transcripts:
        dump, gold = transcript_dump(out, args.episodes)
        sizes = {}
        for label, extra in (("without", []), ("with", ["--transcripts"])):
            target = out / f"agents-{label}.json"
            page = out / f"agents-{label}.html"
            start = time.perf_counter()
            _run(ROOT, [sys.executable, "-m", "ek_otel", "score", dump, "--gold", gold, "--json",
                        str(target), "--html", str(page), "--jobs", "1", *extra])
            sizes[label] = {"json_mb": os.path.getsize(target) / 1e6, "page_mb": os.path.getsize(page) / 1e6,
                            "seconds": time.perf_counter() - start, "path": page}
        figures["transcripts"] = {"episodes": args.episodes, "mb": sizes["with"]["page_mb"],
                                  "render_s": 0.0, "path": sizes["with"]["path"]}
    overhead = {label: html_overhead(tree, out, args.repeat) for label, tree in trees.items()}
    overhead["after, scipy stubbed"] = html_overhead(ROOT, out, args.repeat, stub=scipy_stub(out / "stub"))
    imports = {label: page_imports(tree) for label, tree in trees.items()}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for label in figures:
            figures[label].update(measure(browser, figures[label]["path"], args.repeat,
                                          clicks=label not in ("before", "transcripts")))
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
    before = figures["before"]
    print(f"\n{args.episodes:,}-episode page, before ({args.before}) and after, the same JSON report:")
    print(f"  before: {before['mb']:6.2f} MB  interactive {before['interactive_ms']:7.0f} ms  render {before['render_s']:6.2f} s")
    print(f"   after: {large['mb']:6.2f} MB  interactive {large['interactive_ms']:7.0f} ms  render {large['render_s']:6.2f} s"
          f"  (size x{large['mb'] / before['mb']:.2f}, interactive x{large['interactive_ms'] / before['interactive_ms']:.2f})")
    print("\n--html on the example, over `score` alone (best of %d):" % args.repeat)
    for label in ("before", "after"):
        o = overhead[label]
        extra = o["html_s"] - o["plain_s"]
        print(f"  {label:>6}: score {o['plain_s']:5.2f} s, score --html {o['html_s']:5.2f} s: "
              f"x{o['html_s'] / o['plain_s']:.2f}, +{extra:.2f} s ({'OK' if extra <= 0.5 else 'OVER'} "
              "against +0.5 s)")
    o = overhead["after, scipy stubbed"]
    extra = o["html_s"] - o["plain_s"]
    print(f"  after, scipy.stats replaced by an exact stand-in (a scipy-free report/stats.py): "
          f"score {o['plain_s']:5.2f} s, --html {o['html_s']:5.2f} s: +{extra:.2f} s "
          f"({'OK' if extra <= 0.5 else 'OVER'} against +0.5 s)")
    for label in ("before", "after"):
        i = imports[label]
        print(f"  {label:>6}: the page's imports {i['total_s']:.2f} s, of which scipy {i['scipy_s']:.2f} s "
              f"and numpy {i['numpy_s']:.2f} s (report/stats.py)")
    if args.transcripts:
        t = figures["transcripts"]
        w, wo = sizes["with"], sizes["without"]
        print(f"\nscore --transcripts on {args.episodes:,} agent traces (10 spans each):")
        print(f"  JSON report {wo['json_mb']:6.2f} MB -> {w['json_mb']:6.2f} MB (x{w['json_mb'] / wo['json_mb']:.2f}); "
              f"page {wo['page_mb']:6.2f} MB -> {w['page_mb']:6.2f} MB, interactive {t['interactive_ms']:.0f} ms; "
              f"score --json --html {wo['seconds']:.1f} s -> {w['seconds']:.1f} s")
    if not args.keep:
        import shutil

        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
