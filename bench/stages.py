"""What each stage of ``ek-otel score`` costs per span, against another source tree, in
instructions: a figure the load of a shared machine does not move.

On a 2-core machine shared by several people, CPU times of the same run vary by 30% and
more; the instructions a process executes do not. This counts them with valgrind
(``cachegrind``, no cache simulation) for the stages of the score path, in one process each,
stage by stage (the count of a stage is the count of a process that runs it minus that of
one that stops before it):

1. decode: ``read_dump`` of an OTLP protobuf dump (``bench/ingest.py``'s generator);
2. episodes: ``group_traces`` + ``build_episode`` per trace;
3. score: ``score_episodes`` against the generated gold file;
4. report: ``ScoreRun.to_dict()`` (the JSON report's dict).

The cyclic GC stays as ``ek-otel score`` leaves it (``--no-gc`` turns it off: what the
code itself costs), so its share is counted too. Each count is printed per span and as a
ratio to the ``--before`` tree's (e.g. ``/work/main``), measured the same way.

Usage:
    python bench/stages.py --before /work/main               # 2,000 spans, about 5 minutes
    python bench/stages.py --spans 1000 --before ../main --no-gc

Needs valgrind (Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import ingest  # noqa: E402  (bench/ingest.py: the generator)

STAGES = ("decode", "episodes", "score", "report")

#: The child: runs the first N stages over DUMP (after a warm-up on WARM: lazy imports, caches).
CHILD = r"""
import gc, sys
n, dump, gold, warm, no_gc = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] == "1"
if no_gc:
    gc.disable()
from ek_otel.ingest.assemble import group_traces
from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.episodes import build_episode
from ek_otel.scoring.link import load_settings
from ek_otel.scoring.run import score_episodes

tasks, settings = load_settings(gold)
def episodes(records):
    return [build_episode(g.spans, g.logs) for g in group_traces(iter(records))]
score_episodes(episodes(list(read_dump([warm], report=BadInputReport()))), tasks, settings).to_dict()
if n >= 1:
    records = list(read_dump([dump], report=BadInputReport()))
if n >= 2:
    built = episodes(records)
if n >= 3:
    run = score_episodes(built, tasks, settings)
if n >= 4:
    run.to_dict()
"""


def instructions(tree: str, n: int, dump: str, gold: str, warm: str, no_gc: bool) -> int:
    """Instructions executed by the child running the first ``n`` stages with ``tree`` first
    on the path."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    out = subprocess.run(  # run from the dump's directory: no source tree from the cwd
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", CHILD, str(n), dump, gold, warm, "1" if no_gc else "0"],
        env=env, cwd=os.path.dirname(dump), capture_output=True, text=True, check=False)
    match = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or match is None:
        raise SystemExit(f"valgrind run failed ({tree}, {n} stages):\n{out.stderr[-1500:]}")
    return int(match.group(1).replace(",", ""))


def per_stage(tree: str, dump: str, gold: str, warm: str, no_gc: bool) -> list:
    counts = [instructions(tree, n, dump, gold, warm, no_gc) for n in range(len(STAGES) + 1)]
    return [after - before for before, after in zip(counts, counts[1:])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=2000)
    parser.add_argument("--before", help="another source tree to compare with (e.g. /work/main)")
    parser.add_argument("--no-gc", action="store_true", help="the cyclic GC off in the child")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench/stages.py needs valgrind (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="ek-stages-")
    try:
        dump = ingest.generate(os.path.join(work, "dump"), args.spans, 512, ("frames",))["frames"]
        warm = ingest.generate(os.path.join(work, "warm"), 100, 512, ("frames",))["frames"]
        gold = os.path.join(work, "dump", "gold.jsonl")
        trees = {"this tree": REPO} | ({f"before ({args.before})": args.before} if args.before else {})
        results = {name: per_stage(tree, dump, gold, warm, args.no_gc) for name, tree in trees.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"== instructions per span by stage, {args.spans:,} spans of protobuf, valgrind "
          f"(GC {'off' if args.no_gc else 'as ek-otel score sets it'})")
    mine = results["this tree"]
    before = next((v for k, v in results.items() if k != "this tree"), None)
    print(f"  {'stage':<10} {'this tree':>14} {'before':>14} {'ratio':>7}")
    for i, stage in enumerate(STAGES + ("total",)):
        ours = sum(mine) if stage == "total" else mine[i]
        row = f"  {stage:<10} {ours / args.spans:>14,.0f}"
        if before is not None:
            theirs = sum(before) if stage == "total" else before[i]
            row += f" {theirs / args.spans:>14,.0f} {ours / theirs:>6.2f}x"
        print(row)


if __name__ == "__main__":
    main()
