"""ek-otel's BFCL checker against the official ``bfcl_eval`` one: same inputs, entries/s.

Needs ``bfcl_eval`` importable (``pip install --no-deps bfcl-eval==2026.3.23``; the
end-to-end part also needs ``filelock tqdm pandas tenacity overrides python-dotenv
tree_sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4``) and the
bfcl-real submission (``--real``, default ``../shared/bfcl-real``).

What is timed (``--repeat`` rounds, each running official then ek-otel so both see the
same machine load; one process; both sides on the same objects). Each figure is the best
time of each side; ``ratio`` is best official time / best ek-otel time, ``median`` the
median of the per-round (paired) ratios, a check on the first under noise. ``--clock cpu``
(default) measures the process's CPU time, which other jobs on a shared machine barely
disturb; ``--clock wall`` measures elapsed time. Left out on both sides, as one-time costs
of a process: imports (the official ``bfcl_eval`` modules; ek-otel's) and the model
registry (the official imports ``model_config``, ek-otel parses it once per process; the
core run below gives the official a ready handler). The garbage collector runs as each side
leaves it: ek-otel pauses it while it parses and checks single-turn files (see
``ek_otel.core.gc_pause``), the official does not.

1. **Checker**, per single-turn category: the entries of the bfcl-real result file are
   decoded once (outside the timing), then every entry is checked once per run, ek-otel's
   caches emptied first (at least 25 runs). Official:
   ``ast_checker(functions, decoded, ground_truth, language, category, model)`` (AST
   categories) or ``is_empty_output(decoded)`` (relevance). ek-otel:
   ``check_ast(functions, decoded, ground_truth, category)`` or ``is_empty_output``.
   A category absent from bfcl-real is fed outputs built from its possible answers.
2. **End to end, core**, all single-turn result files of bfcl-real: read the result files,
   read the BFCL data, decode, check, write the score files. Official: for each file,
   ``load_file(..., sort_by_id=True)`` then ``eval_runner.evaluate_task`` (its own data
   loading, decoding with the function-calling handler, checking and score-file writing).
   ek-otel: ``find_result_files`` + ``score_result_files`` + ``write_score_dir``, with its
   caches (data bytes, standardized strings, doc index) emptied before each run. Both
   read the same result files and the same data files, and write the same score files
   (byte for byte) into a fresh temporary directory (created and removed inside the
   timing, on both sides).
3. **End to end, command**: what a user runs. The single-turn result files are copied into
   a temporary result directory (not timed). Official: its scoring entry point
   ``eval_runner.runner(None, SINGLE_TURN_CATEGORY, result_dir, score_dir)`` (as
   ``bfcl evaluate``: score files, then the leaderboard CSVs). ek-otel: the ``ek-otel bfcl
   RESULT_DIR --score-dir DIR`` command, through click's test runner (tables and score
   files).
4. **Whole processes** (:func:`bench_processes`, also ``bench/all.py --only bfcl``): the same
   two commands, each a process of its own, so that everything counts: interpreter
   start-up, imports, reading, checking, writing, exit. Both get the same copy of every
   single-turn result file of bfcl-real (the categories measured are printed; the official
   is given exactly those categories), write into a fresh score directory (emptied before
   each run, not timed), and run with the same interpreter. Both packages run from
   byte-compiled modules, as an installed package does (``compileall`` on the ek-otel
   tree first: a checkout run with ``PYTHONDONTWRITEBYTECODE`` would compile every module
   on every run, which the official, installed by pip, never does). Runs alternate
   (official, ek-otel, [before], official, ...) for ``--repeat`` rounds; CPU is the child's
   user + system time (``os.wait4``), the steadier figure on a shared machine. The figures:
   best official / best ek-otel, CPU and wall, and the median of the per-round CPU ratios;
   the load average before and after; ``python -c pass`` as the interpreter's own floor;
   and whether ek-otel's score files are byte for byte the official's.

Run: ``python bench/bfcl_vs_official.py [--real DIR] [--repeat N] [--only processes]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from ek_otel.bfcl import ast_checker as ast_checker_module
from ek_otel.bfcl import data as data_module
from ek_otel.bfcl.ast_checker import check_ast
from ek_otel.bfcl.categories import SINGLE_TURN, checker_kind
from ek_otel.bfcl.data import BfclData
from ek_otel.bfcl.decode import decode_ast, is_empty_output
from ek_otel.bfcl.official import (
    OfficialFcHandler,
    official_ast_checker,
    official_eval_runner,
    official_language,
)
from ek_otel.bfcl.result_files import find_result_files
from ek_otel.bfcl.runner import score_result_files
from ek_otel.bfcl.score_files import write_score_dir

REPO = Path(__file__).resolve().parents[1]


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = time.process_time


def _race(official, mine, repeat: int, inner: int = 1) -> tuple:
    """``(best official time, best ek-otel time, median paired ratio)`` per call.

    Runs alternate (official, ek-otel, official, ...) so that both see the same load; the
    paired ratio of a round is its official time over its ek-otel time.
    """
    best_official = best_mine = float("inf")
    ratios = []
    for _ in range(repeat):
        times = []
        for function in (official, mine):
            start = _clock()
            for _ in range(inner):
                function()
            times.append((_clock() - start) / inner)
        best_official = min(best_official, times[0])
        best_mine = min(best_mine, times[1])
        ratios.append(times[0] / times[1] if times[1] > 0 else float("inf"))
    return best_official, best_mine, statistics.median(ratios)


def _cold_start() -> None:
    """Empty ek-otel's in-process caches, so that every end-to-end run starts cold."""
    data_module._TEXT_CACHE.clear()
    ast_checker_module._STANDARD.clear()
    ast_checker_module._DOC_INDEX.clear()


def _synthetic(entries):
    outputs = []
    for entry in entries:
        if entry.ground_truth is None:
            outputs.append([])
            continue
        calls = []
        for answer in entry.ground_truth:
            name, allowed = next(iter(answer.items()))
            calls.append({name: {k: next((v for v in vals if v != ""), None)
                                 for k, vals in allowed.items()}})
        outputs.append(calls)
    return outputs


def _decoded_inputs(category, data, real_files):
    entries = {e.id: e for e in data.entries(category)}
    result_file = real_files.get(category)
    if result_file is None:
        ordered = list(entries.values())
        return ordered, _synthetic(ordered), "synthetic"
    pairs = []
    for record in result_file.records:
        try:
            decoded = decode_ast(record["result"], "python" if checker_kind(category) ==
                                 "relevance" else _language(category))
        except Exception:
            continue  # decode failures never reach the checker
        pairs.append((entries[record["id"]], decoded))
    return [p[0] for p in pairs], [p[1] for p in pairs], "bfcl-real"


def _language(category):
    from ek_otel.bfcl.categories import language_of

    return language_of(category)


def bench_checkers(data, real_files, repeat):
    official = official_ast_checker()
    from bfcl_eval.utils import is_empty_output as official_is_empty

    rows = []
    for category in SINGLE_TURN:
        entries, decoded, source = _decoded_inputs(category, data, real_files)
        if checker_kind(category) == "relevance":
            def run_official():
                for calls in decoded:
                    official_is_empty(calls)

            def run_mine():
                for calls in decoded:
                    is_empty_output(calls)
        else:
            language = official_language(category)
            items = [(e.functions, calls, e.ground_truth) for e, calls in zip(entries, decoded)
                     if isinstance(calls, list) and all(isinstance(c, dict) and len(c) == 1
                                                        for c in calls)]

            def run_official():
                for functions, calls, truth in items:
                    official(functions, calls, truth, language, category, "model")

            def run_mine():
                _cold_start()  # no warm caches: each run pays what a single pass pays
                for functions, calls, truth in items:
                    check_ast(functions, calls, truth, category)
            entries = items
        n = len(entries)
        if checker_kind(category) == "relevance":  # nothing cached: loop for a measurable time
            t_official, t_mine, median = _race(run_official, run_mine, repeat,
                                               max(1, 20000 // max(n, 1)))
        else:
            t_official, t_mine, median = _race(run_official, run_mine, max(repeat, 25))
        rows.append((category, source, n, n / t_official, n / t_mine, t_official / t_mine,
                     median))
    return rows


def bench_end_to_end(data, real_dir, repeat):
    runner = official_eval_runner()
    if runner is None:
        return None
    from bfcl_eval.utils import load_file

    files = [f for f in find_result_files([str(real_dir / "result")]) if f.category in SINGLE_TURN]
    total = sum(len(f.records) for f in files)
    paths = [f.path for f in files]
    model = files[0].model
    handler = OfficialFcHandler()

    def run_official():
        with tempfile.TemporaryDirectory() as score_dir, contextlib.redirect_stdout(io.StringIO()):
            table = {}
            for result_file in files:
                model_result = load_file(result_file.path, sort_by_id=True)
                runner.evaluate_task(result_file.category, real_dir / "result", Path(score_dir),
                                     model_result, model, handler, table)

    def run_mine():
        _cold_start()
        with tempfile.TemporaryDirectory() as score_dir:
            run = score_result_files(find_result_files(paths), data)
            write_score_dir(score_dir, run)

    t_official, t_mine, median = _race(run_official, run_mine, repeat)
    return total, total / t_official, total / t_mine, t_official / t_mine, median


def bench_command(real_dir, repeat):
    runner = official_eval_runner()
    if runner is None:
        return None
    import shutil

    from click.testing import CliRunner

    from ek_otel.cli import cli

    work = Path(tempfile.mkdtemp(prefix="bfcl-bench-"))
    files = [f for f in find_result_files([str(real_dir / "result")]) if f.category in SINGLE_TURN]
    for result_file in files:
        target = work / "result" / Path(result_file.path).relative_to(real_dir / "result")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(result_file.path, target)
    total = sum(len(f.records) for f in files)

    def run_official():
        with tempfile.TemporaryDirectory() as score_dir, \
                contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner.runner(None, list(SINGLE_TURN), work / "result", Path(score_dir))

    def run_mine():
        _cold_start()
        with tempfile.TemporaryDirectory() as score_dir:
            outcome = CliRunner().invoke(cli, ["bfcl", str(work / "result"), "--score-dir", score_dir])
            assert outcome.exit_code == 0, outcome.output

    try:
        t_official, t_mine, median = _race(run_official, run_mine, repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return total, total / t_official, total / t_mine, t_official / t_mine, median


HERE = os.path.dirname(os.path.abspath(__file__))
_OFFICIAL_PROCESS = (
    "import sys\nfrom pathlib import Path\n"
    "from ek_otel.bfcl.official import official_eval_runner\n"
    "runner = official_eval_runner()\n"
    "if runner is None:\n    sys.exit(3)\n"
    "runner.runner(None, sys.argv[3].split(','), Path(sys.argv[1]), Path(sys.argv[2]))\n")


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {len(os.sched_getaffinity(0))} cores"


def _compile(tree: str) -> None:
    """Byte-compile a source tree's ``ek_otel`` package, as ``pip install`` does."""
    import compileall

    compileall.compile_dir(os.path.join(tree, "ek_otel"), quiet=2)


def _same_files(mine: Path, official: Path) -> tuple:
    """(ek-otel score files byte for byte equal to the official's, ek-otel score files)."""
    files = sorted(p for p in mine.rglob("*.json"))
    same = sum(1 for p in files if (official / p.relative_to(mine)).is_file()
               and p.read_bytes() == (official / p.relative_to(mine)).read_bytes())
    return same, len(files)


def bench_processes(real_dir: Path, work: Path, repeat: int, before: Optional[str] = None,
                    row=None) -> Optional[dict]:
    """Whole processes, alternated: the official runner and ``ek-otel bfcl`` on every
    single-turn result file of ``real_dir`` (see the module doc, part 4). ``before``: an
    earlier ek-otel source tree, run alternated too. ``row(label, value, ratio, note)``
    prints a line. Returns the figures, or None without result files.
    """
    sys.path.insert(0, HERE)
    import ingest  # bench/ingest.py: run_child (CPU, wall, peak RSS of a child)

    row = row or (lambda label, value, ratio, note="":
                  print(f"  {label:<52} {value:>12} {ratio:>7}  {note}"))
    files = [f for f in find_result_files([str(real_dir / "result")]) if f.category in SINGLE_TURN]
    if not files:
        return None
    result_dir = work / "result"
    for result_file in files:
        target = result_dir / Path(result_file.path).relative_to(real_dir / "result")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(result_file.path, target)
    categories = [f.category for f in files]
    entries = sum(len(f.records) for f in files)
    import ek_otel

    _compile(str(Path(ek_otel.__file__).parents[1]))
    ek_otel_cmd = [sys.executable, "-c", "from ek_otel.cli import main; main()"]
    script = shutil.which("ek-otel", path=os.path.dirname(sys.executable))
    if script:
        ek_otel_cmd = [script]
    commands = {
        "official": [sys.executable, "-c", _OFFICIAL_PROCESS, str(result_dir),
                     str(work / "score-official"), ",".join(categories)],
        "ek-otel": ek_otel_cmd + ["bfcl", str(result_dir), "--score-dir", str(work / "score-ek-otel")],
    }
    if before:
        _compile(before)
        # first on the path explicitly: `-m` would put the current directory (maybe this
        # checkout) before PYTHONPATH
        commands["before"] = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                              "from ek_otel.cli import main; main()", os.path.abspath(before),
                              "bfcl", str(result_dir), "--score-dir", str(work / "score-before")]
    commands["python -c pass"] = [sys.executable, "-c", "pass"]
    print(f"  categories ({len(categories)} of {len(SINGLE_TURN)} single-turn, {entries:,} entries): "
          + ", ".join(f"{f.category} {len(f.records)}" for f in files))
    absent = [c for c in SINGLE_TURN if c not in categories]
    if absent:
        print(f"  not in the submission: {', '.join(absent)}")
    load_before = _load()
    runs: dict = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            for score_dir in work.glob("score-*"):
                shutil.rmtree(score_dir)
            run = ingest.run_child(argv)
            if run.returncode != 0:
                raise SystemExit(f"{name} failed ({run.returncode}): {run.stderr[-800:]}")
            runs[name].append(run)
    for name in ("official", "ek-otel"):  # one more pair, untimed: compare the score files
        ingest.run_child(commands[name])
    same = _same_files(work / "score-ek-otel", work / "score-official")
    cpu = {name: min(r.cpu_s for r in rs) for name, rs in runs.items()}
    wall = {name: min(r.wall_s for r in rs) for name, rs in runs.items()}
    paired = statistics.median(o.cpu_s / e.cpu_s for o, e in zip(runs["official"], runs["ek-otel"]))
    row("official eval_runner.runner (baseline)", f"{cpu['official']:.3f} s", "1.0x",
        f"CPU; wall {wall['official']:.2f} s")
    row("ek-otel bfcl", f"{cpu['ek-otel']:.3f} s", f"{cpu['official'] / cpu['ek-otel']:.1f}x",
        f"CPU (median of paired rounds {paired:.1f}x); wall {wall['ek-otel']:.2f} s "
        f"({wall['official'] / wall['ek-otel']:.1f}x); target >= 10x")
    if before:
        row("before: ek-otel bfcl", f"{cpu['before']:.3f} s",
            f"{cpu['official'] / cpu['before']:.1f}x", f"CPU; wall {wall['before']:.2f} s")
    row("python -c pass (the interpreter's own start-up)", f"{cpu['python -c pass']:.3f} s", "",
        f"CPU; wall {wall['python -c pass']:.3f} s")
    row("ek-otel score files identical to the official's", f"{same[0]} of {same[1]}", "",
        f"best of {repeat} alternated rounds; {load_before} before, {_load()} after")
    return {"categories": categories, "entries": entries, "official_cpu_s": cpu["official"],
            "ek_cpu_s": cpu["ek-otel"], "official_wall_s": wall["official"],
            "ek_wall_s": wall["ek-otel"], "ratio_cpu": cpu["official"] / cpu["ek-otel"],
            "ratio_cpu_paired_median": paired, "ratio_wall": wall["official"] / wall["ek-otel"],
            "python_pass_cpu_s": cpu["python -c pass"],
            "score_files_identical": same[0] == same[1] and same[1] > 0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--real", default=os.environ.get("EK_OTEL_BFCL_REAL") or next(
        (str(p) for p in (REPO.parent / "shared" / "bfcl-real", REPO.parents[1] / "shared" / "bfcl-real")
         if p.is_dir()), str(REPO.parent / "shared" / "bfcl-real")), help="the bfcl-real submission")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="checker,core,command,processes",
                        help="some of checker,core,command,processes (the parts above)")
    parser.add_argument("--before", metavar="DIR",
                        help="processes: an earlier ek-otel source tree, run alternated too")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (robust on a shared machine); "
                             "wall: elapsed time")
    args = parser.parse_args(argv)
    only = {part.strip() for part in args.only.split(",") if part.strip()}
    global _clock
    _clock = CLOCKS[args.clock]
    if official_ast_checker() is None:
        print("bfcl_eval is not importable: pip install --no-deps bfcl-eval==2026.3.23",
              file=sys.stderr)
        return 2
    data = BfclData.installed()
    real_dir = Path(args.real)
    real_files = {}
    if (real_dir / "result").is_dir():
        real_files = {f.category: f for f in find_result_files([str(real_dir / "result")])}
    print(f"bench/bfcl_vs_official.py, {_load()}")
    if "checker" in only:
        print(f"checker only (decoded entries), entries/s ({args.clock} time), best of "
              f"{args.repeat}")
        print("ratio: best official time / best ek-otel time; median: median of the paired "
              "(same-round) ratios")
        print(f"{'category':24} {'input':10} {'entries':>7} {'official':>12} {'ek-otel':>12} "
              f"{'ratio':>7} {'median':>7}")
        for category, source, n, official, mine, ratio, median in bench_checkers(
                data, real_files, args.repeat):
            print(f"{category:24} {source:10} {n:7d} {official:12,.0f} {mine:12,.0f} "
                  f"{ratio:6.1f}x {median:6.1f}x")
    if not real_files:
        print("end to end: skipped (no bfcl-real result directory)")
        return 0
    if official_eval_runner() is None:
        print("end to end: skipped (bfcl_eval.eval_checker.eval_runner is not importable)")
        return 0
    if "core" in only:
        total, official, mine, ratio, median = bench_end_to_end(data, real_dir, args.repeat)
        print(f"\nend to end, core (read results + data, decode, check, write score files), "
              f"{total} single-turn entries, {args.clock} time, best of {args.repeat}")
        print(f"official {official:10,.0f} entries/s   ek-otel {mine:10,.0f} entries/s   "
              f"ratio {ratio:.1f}x   median {median:.1f}x")
    if "command" in only:
        repeat = max(3, args.repeat // 2)
        total, official, mine, ratio, median = bench_command(real_dir, repeat)
        print(f"\nend to end, command in this process (eval_runner.runner vs `ek-otel bfcl` "
              f"through click's test runner), {total} single-turn entries, {args.clock} time, "
              f"best of {repeat}")
        print(f"official {official:10,.0f} entries/s   ek-otel {mine:10,.0f} entries/s   "
              f"ratio {ratio:.1f}x   median {median:.1f}x")
    if "processes" in only:
        print(f"\nwhole processes (official runner vs `ek-otel bfcl`), CPU, best of "
              f"{args.repeat} alternated rounds ({_load()})")
        with tempfile.TemporaryDirectory(prefix="bfcl-processes-") as work:
            bench_processes(real_dir, Path(work), args.repeat, before=args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
