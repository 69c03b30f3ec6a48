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
``ek_otel.bfcl.gc_pause``), the official does not.

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

Run: ``python bench/bfcl_vs_official.py [--real DIR] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

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
from ek_otel.bfcl.runner import find_result_files, score_result_files
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--real", default=os.environ.get("EK_OTEL_BFCL_REAL",
                                                         str(REPO.parent / "shared" / "bfcl-real")))
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (robust on a shared machine); "
                             "wall: elapsed time")
    args = parser.parse_args(argv)
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

    print(f"checker only (decoded entries), entries/s ({args.clock} time), best of {args.repeat}")
    print("ratio: best official time / best ek-otel time; median: median of the paired "
          "(same-round) ratios")
    print(f"{'category':24} {'input':10} {'entries':>7} {'official':>12} {'ek-otel':>12} "
          f"{'ratio':>7} {'median':>7}")
    for category, source, n, official, mine, ratio, median in bench_checkers(
            data, real_files, args.repeat):
        print(f"{category:24} {source:10} {n:7d} {official:12,.0f} {mine:12,.0f} {ratio:6.1f}x "
              f"{median:6.1f}x")
    if not real_files:
        print("end to end: skipped (no bfcl-real result directory)")
        return 0
    e2e = bench_end_to_end(data, real_dir, args.repeat)
    if e2e is None:
        print("end to end: skipped (bfcl_eval.eval_checker.eval_runner is not importable)")
        return 0
    total, official, mine, ratio, median = e2e
    print(f"\nend to end, core (read results + data, decode, check, write score files), "
          f"{total} single-turn entries, {args.clock} time, best of {args.repeat}")
    print(f"official {official:10,.0f} entries/s   ek-otel {mine:10,.0f} entries/s   "
          f"ratio {ratio:.1f}x   median {median:.1f}x")
    repeat = max(3, args.repeat // 2)
    total, official, mine, ratio, median = bench_command(real_dir, repeat)
    print(f"\nend to end, command (eval_runner.runner vs `ek-otel bfcl`), {total} single-turn "
          f"entries, {args.clock} time, best of {repeat}")
    print(f"official {official:10,.0f} entries/s   ek-otel {mine:10,.0f} entries/s   "
          f"ratio {ratio:.1f}x   median {median:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
