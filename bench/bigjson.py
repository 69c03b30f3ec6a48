"""One large OTLP JSON request: ``ek-otel score`` vs its decode floor and vs ``agentevals-cli``.

Many exporters and UIs write a whole export as one OTLP JSON object. This bench writes one:
``--spans`` (100k) spans of bench/ingest.py's agent runs (10k traces) as a single
``ExportTraceServiceRequest`` (about 130 MB), and measures, alternated in one run, whole
processes (wall, CPU of the process and its workers, peak RSS of its largest process):

1. the decode floor of that file: ``orjson.loads`` of the document and the attribute walk
   of bench/ingest.py's floor (its JSON branch: the file is one line);
2. ``ek-otel score`` with its default ``--jobs`` and with ``--jobs 1``;
3. ``agentevals run`` (PyPI ``agentevals-cli``, installed by this bench into its own venv
   under ``~/.cache/ek-otel-bench``, never into the project's environment), metric
   ``tool_trajectory_avg_score`` (its tool-call metric, ADK's EXACT trajectory match),
   against an ADK eval set built from the same gold (first admissible value of each
   argument); each trace names its case by ``agentevals.eval.case.id`` on its root span
   (ek-otel reads ``ek.task.id``; both attributes are in the file both tools read).

Usage:
    python bench/bigjson.py                 # or: python bench/all.py --only bigjson
    python bench/bigjson.py --no-agentevals
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ingest  # noqa: E402

AGENTEVALS_VERSION = "0.11.0"
AGENTEVALS_VENV = os.path.join(os.path.expanduser("~"), ".cache", "ek-otel-bench", "agentevals-venv")
CASE_ID = "agentevals.eval.case.id"


def write_big_request(path: str, n_spans: int) -> int:
    """The whole dump as one OTLP JSON request; returns its size in bytes."""
    spans = []
    for span in ingest.generate_spans(n_spans):
        if "ek.task.id" in span.attributes:
            span.attributes[CASE_ID] = span.attributes["ek.task.id"]
        spans.append(span)
    body = ingest.batch_to_json(spans)
    with open(path, "wb") as f:
        f.write(body)
    return len(body)


def write_eval_set(gold: str, path: str) -> None:
    """An ADK EvalSet (agentevals' eval set) of the same gold tasks: one invocation a case,
    its tool uses the gold calls in order, each argument's first admissible value."""
    cases = []
    with open(gold) as f:
        for line in f:
            task = json.loads(line)
            uses = [{"name": name, "args": {k: v[0] for k, v in args.items()}}
                    for call in task["calls"] for name, args in call.items()]
            cases.append({"eval_id": task["task_id"], "conversation": [{
                "invocation_id": f"{task['task_id']}-0",
                "user_content": {"role": "user", "parts": [{"text": "Plan my trip to Tokyo, book it and email me."}]},
                "intermediate_data": {"tool_uses": uses, "intermediate_responses": []}}]})
    with open(path, "w") as f:
        json.dump({"eval_set_id": "ek-otel-bench", "name": "ek-otel-bench", "eval_cases": cases}, f)


def agentevals_command() -> tuple:
    """(argv prefix of ``agentevals``, None) once installed in its own venv, or (None, why not)."""
    exe = os.path.join(AGENTEVALS_VENV, "bin", "agentevals")
    if not os.path.exists(exe):
        os.makedirs(os.path.dirname(AGENTEVALS_VENV), exist_ok=True)
        steps = ([sys.executable, "-m", "venv", AGENTEVALS_VENV],
                 [os.path.join(AGENTEVALS_VENV, "bin", "pip"), "install", "-q", f"agentevals-cli=={AGENTEVALS_VERSION}"])
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                return None, f"`{' '.join(step[-2:])}` failed ({done.returncode}): {done.stderr.strip()[-300:]}"
    return [exe], None


def bench_bigjson(args, work: str, row: Callable, load: Callable, ek_otel_cmd: list,
                  before_cmd: Optional[list] = None) -> dict:
    folder = os.path.join(work, "bigjson")
    os.makedirs(folder, exist_ok=True)
    path, gold, eval_set = (os.path.join(folder, name) for name in ("request.json", "gold.jsonl", "evalset.json"))
    size = write_big_request(path, args.spans)
    ingest.write_gold(gold)
    write_eval_set(gold, eval_set)
    print(f"== one large OTLP JSON request: {args.spans:,} spans, {size / 1e6:.0f} MB, one object; "
          f"whole processes alternated, best wall of {args.repeat} ({load()})")
    commands = {
        "floor": [sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r}); import ingest; "
                                        f"ingest.floor({path!r}, 'jsonl')"],
        "score": ek_otel_cmd + ["score", path, "--gold", gold, "--json", os.path.join(folder, "ek.json")],
        "score1": ek_otel_cmd + ["score", path, "--gold", gold, "--jobs", "1",
                                 "--json", os.path.join(folder, "ek1.json")],
    }
    if before_cmd:  # an earlier tree (bench/all.py --before DIR), same settings
        commands["before"] = before_cmd + ["score", path, "--gold", gold, "--json", os.path.join(folder, "b.json")]
    why_not: Optional[str] = None
    if getattr(args, "agentevals", True):
        prefix, why_not = agentevals_command()
        if prefix:
            commands["agentevals"] = prefix + ["run", path, "--eval-set", eval_set, "-m", "tool_trajectory_avg_score",
                                               "--format", "otlp-json", "--output", "summary"]
    else:
        why_not = "--no-agentevals"
    runs: dict = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, argv in commands.items():
            runs[name].append(ingest.run_child(argv))
    out: dict = {"spans": args.spans, "bytes": size, "load": load()}
    for name, results in runs.items():
        ok = [r for r in results if r.returncode == 0 or (name == "agentevals" and r.returncode == 1)]
        if not ok:  # agentevals exits 1 when a case fails its threshold: still a scored run
            if name == "agentevals":
                why_not = f"agentevals exited {results[0].returncode}: {results[0].stderr.strip()[-400:]}"
                continue
            raise SystemExit(f"{name} failed ({results[0].returncode}): {results[0].stderr[-800:]}")
        best = min(ok, key=lambda r: r.wall_s)
        out[name] = {"wall_s": best.wall_s, "cpu_s": min(r.cpu_s for r in ok), "peak_rss_mib": best.max_rss_mib}
    floor = out["floor"]
    row("decode floor (orjson + attribute walk), one process", f"{floor['wall_s']:.2f} s wall", "1.00x",
        f"CPU {floor['cpu_s']:.2f} s, peak RSS {floor['peak_rss_mib']:.0f} MiB")
    for name, label in (("score", "ek-otel score (default --jobs)"), ("score1", "ek-otel score --jobs 1")):
        figures = out[name]
        row(f"{label}, wall", f"{figures['wall_s']:.2f} s", f"{floor['wall_s'] / figures['wall_s']:.2f}x",
            f"CPU {figures['cpu_s']:.2f} s ({floor['cpu_s'] / figures['cpu_s']:.2f}x), "
            f"peak RSS {figures['peak_rss_mib']:.0f} MiB; targets >= 0.6x, <= 512 MiB")
        figures["ratio_wall"] = floor["wall_s"] / figures["wall_s"]
    if "before" in out:
        then = out["before"]
        row("before (--before tree): ek-otel score, wall", f"{then['wall_s']:.2f} s",
            f"{floor['wall_s'] / then['wall_s']:.2f}x", f"this tree {then['wall_s'] / out['score']['wall_s']:.2f}x "
            f"faster; CPU {then['cpu_s']:.2f} s, peak RSS {then['peak_rss_mib']:.0f} MiB")
    if "agentevals" in out:
        peer = out["agentevals"]
        ratio = peer["wall_s"] / out["score"]["wall_s"]
        row(f"agentevals-cli {AGENTEVALS_VERSION} run, wall", f"{peer['wall_s']:.2f} s",
            f"{ratio:.2f}x", f"ek-otel score is {ratio:.2f}x faster (--jobs 1: "
            f"{peer['wall_s'] / out['score1']['wall_s']:.2f}x); agentevals CPU {peer['cpu_s']:.2f} s, "
            f"peak RSS {peer['peak_rss_mib']:.0f} MiB; target >= 5x")
        peer["ek_otel_faster"] = ratio
    else:
        row("agentevals-cli: not measured", "", "", why_not or "")
        out["agentevals_not_measured"] = why_not
    return out


def main(argv=None) -> int:
    import all as bench_all

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-agentevals", dest="agentevals", action="store_false")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ek-bench-bigjson-") as work:
        figures = bench_bigjson(args, work, bench_all.row, bench_all.load, bench_all.ek_otel_cmd())
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
