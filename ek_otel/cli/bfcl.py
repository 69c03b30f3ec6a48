"""``ek-otel bfcl``: score BFCL v4 result files like the official checker; ``gold from-bfcl``.

Example:
    >>> from click.testing import CliRunner
    >>> result = CliRunner().invoke(bfcl, ["--help"])
    >>> "RESULT" in result.output and "--score-dir" in result.output
    True
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from typing import TYPE_CHECKING, Optional

import click

from ..bfcl.categories import ALL_SCORING, VERSION_PREFIX, checker_kind, is_multi_turn, language_of
from ..core.gc_pause import paused_gc, resumed_gc
from ..errors import InputError
from . import own_process
from ._common import progress, stdout_console, wrote
from ._plain_table import PlainTable, plain_text, rich_table

if TYPE_CHECKING:
    from ..bfcl.runner import BfclRun

__all__ = ["bfcl", "run_json", "from_bfcl"]

_PROGRESS_MIN_ENTRIES = 500


def run_json(run: BfclRun) -> dict:
    """The ``--json`` document: per-category figures and per-entry verdicts.

    With several models, category keys are ``<model>/<category>`` and entries carry a
    ``model`` key.

    Example:
        >>> from ek_otel.bfcl.runner import BfclRun, CategoryScore
        >>> from ek_otel.bfcl.verdict import Verdict
        >>> run = BfclRun((CategoryScore("m", "parallel", 0, 1),),
        ...               {("m", "parallel"): (Verdict("parallel_0", "parallel", False, "t"),)})
        >>> run_json(run)
        {'categories': {'parallel': {'accuracy': 0.0, 'correct_count': 0, 'total_count': 1}}, 'entries': [{'id': 'parallel_0', 'category': 'parallel', 'valid': False, 'error_type': 't'}]}
    """
    several = len(run.models) > 1
    categories = {}
    entries = []
    unofficial = []
    for model in run.models:
        unofficial += [f"{model}/{name}" if several else name for name in run.unofficial(model)]
    for score in run.scores:
        key = f"{score.model}/{score.category}" if several else score.category
        categories[key] = score.header()
        for verdict in run.verdicts[(score.model, score.category)]:
            entry = {"id": verdict.id, "category": verdict.category, "valid": verdict.valid,
                     "error_type": None if verdict.valid else verdict.error_type}
            if several:
                entry["model"] = score.model
            entries.append(entry)
    out = {"categories": categories, "entries": entries}
    if unofficial:  # only then: a state-mode document stays as it was
        from ..bfcl.summary import AST_MODE_NOTE

        out["multi_turn_mode"] = "ast"
        out["not_official"] = {"figures": unofficial, "note": AST_MODE_NOTE}
    return out


def _label(name: str, unofficial: tuple) -> str:
    from ..bfcl.summary import AST_MODE_NOTE

    return f"{name} ({AST_MODE_NOTE})" if name in unofficial else name


def _tables(run: BfclRun) -> list:
    """The terminal's tables: per model, its categories, then the summary figures."""
    from ..bfcl.summary import aggregates

    tables = []
    for model in run.models:
        counts = {}
        rows = []
        unofficial = run.unofficial(model)
        for score in run.scores:
            if score.model != model:
                continue
            counts[score.category] = (score.correct_count, score.total_count)
            rows.append((_label(score.category, unofficial), f"{score.accuracy:.2%}",
                         f"{score.correct_count}/{score.total_count}"))
        tables.append(PlainTable(f"BFCL v4: {model}", (("category", "left"), ("accuracy", "right"),
                                                       ("correct/total", "right")), tuple(rows)))
        summary = aggregates(counts)
        if summary:
            tables.append(PlainTable(
                "summary (as bfcl_eval aggregates)",
                (("aggregate", "left"), ("accuracy", "right"), ("entries", "right")),
                tuple((_label(aggregate.name, unofficial), f"{aggregate.accuracy:.2%}",
                       str(aggregate.total_count)) for aggregate in summary)))
    return tables


def _print_tables(run: BfclRun) -> None:
    """Print the tables: as plain text when rich would print nothing else (see
    :mod:`ek_otel.cli._plain_table`; rich costs more to import than a run to score), else
    with rich."""
    tables = _tables(run)
    text = plain_text(tables, sys.stdout)
    if text is not None:
        sys.stdout.write(text)
        return
    console = stdout_console()
    for table in tables:
        console.print(rich_table(table))


def check_multi_turn_mode(files: list, multi_turn: Optional[str]) -> None:
    """Refuse to check multi-turn categories in anything but the official state mode unless
    ``--multi-turn ast`` asks for it: a figure is never silently not the official one.

    Raises:
        InputError: multi-turn result files, no ``--multi-turn``, and the simulated APIs of
            ``bfcl_eval`` cannot be imported (the line names what is missing and how to
            install it).
    """
    if multi_turn is not None or not any(is_multi_turn(f.category) for f in files):
        return
    from ..bfcl.simulator import simulator_problem

    problem = simulator_problem()
    if problem is not None:
        categories = sorted({f.category for f in files if is_multi_turn(f.category)})
        raise InputError(
            f"multi-turn categories ({', '.join(categories)}) cannot be checked in the official "
            f"state mode: {problem}; or pass --multi-turn ast for figures labelled \"ast mode, "
            "not the official figure\"")


def _note_java_js_without_tree_sitter(files: list) -> None:
    """Say so when Java/JavaScript prompting output must be decoded without tree-sitter."""
    for result_file in files:
        language = language_of(result_file.category)
        if language == "python":
            continue
        if any(isinstance(r.get("result"), str) for r in result_file.records):
            from ..bfcl import tree_sitter_calls  # imports tree-sitter: only for text results

            if tree_sitter_calls.available(language):
                continue
            click.echo("ek-otel: note: Java/JavaScript prompting output is decoded without "
                       "tree-sitter, which the official decoder uses; verdicts may differ "
                       "(`pip install tree_sitter==0.21.3 tree-sitter-java==0.21.0 "
                       "tree-sitter-javascript==0.21.4`)", err=True)
            return


@click.command("bfcl")
@click.argument("results", nargs=-1, required=True, metavar="RESULT...")
@click.option("--data", "data_path", metavar="DIR|WHEEL",
              help="BFCL data: a directory with BFCL_v4_*.json and possible_answer/, or a "
                   "bfcl-eval wheel. Default: the installed bfcl_eval package.")
@click.option("--json", "json_out", metavar="OUT", type=click.Path(dir_okay=False),
              help="Write per-category figures and per-entry verdicts as JSON.")
@click.option("--html", "html_out", metavar="OUT.html", type=click.Path(dir_okay=False),
              help="Write the leaderboard, error types and failing entries as one HTML page.")
@click.option("--score-dir", metavar="DIR", type=click.Path(file_okay=False),
              help="Write score files in the official format and layout.")
@click.option("--underscore-to-dot/--no-underscore-to-dot", default=None,
              help="The model saw '.' in function names as '_' (OpenAI-style names). "
                   "Default: as bfcl_eval's model registry says for the model (off for "
                   "an unregistered model).")
@click.option("--style", type=click.Choice(["fc", "prompting"]),
              help="How results were produced: function calling or prompting. Default: as "
                   "the model registry says, else fc when any result is a call list.")
@click.option("--multi-turn", "multi_turn", type=click.Choice(["state", "ast"]),
              help="Multi-turn checking: simulated-API state (official; needs bfcl_eval) "
                   "or turn-by-turn AST. Default: state when bfcl_eval is installed.")
def bfcl(results: tuple, data_path: Optional[str], json_out: Optional[str],
         score_dir: Optional[str], underscore_to_dot: Optional[bool], style: Optional[str],
         multi_turn: Optional[str], html_out: Optional[str] = None) -> None:
    """Score BFCL v4 RESULT files or directories with the official rules.

    RESULT is a BFCL_v4_<category>_result.json file or a directory laid out as BFCL
    lays out results (result/<model>/non_live/...). Scored categories: single-turn
    (simple_python, simple_java, simple_javascript, multiple, parallel,
    parallel_multiple, irrelevance, live_*), multi_turn_*, memory_* and web_search_*.

    Example:

        ek-otel bfcl result/my-model --score-dir score --json verdicts.json
    """
    # The cyclic garbage collector is paused for the whole command (imports, reading,
    # checking, score files and tables make no cyclic garbage in bulk; a collection would
    # only walk the parsed data again and again), and resumed while multi-turn and agentic
    # files are checked (their simulated APIs do make some): see ek_otel.core.gc_pause.
    # As the ek-otel process, it stays paused to the exit, and what is left is then frozen
    # (gc.freeze): the collections Python makes at exit would walk every object once more
    # only to free memory that the exit frees anyway.
    if not own_process():
        with paused_gc():
            _bfcl(results, data_path, json_out, score_dir, underscore_to_dot, style,
                  multi_turn, html_out)
        return
    gc.disable()
    try:
        _bfcl(results, data_path, json_out, score_dir, underscore_to_dot, style, multi_turn,
              html_out)
    finally:
        gc.freeze()


def _bfcl(results: tuple, data_path: Optional[str], json_out: Optional[str],
          score_dir: Optional[str], underscore_to_dot: Optional[bool], style: Optional[str],
          multi_turn: Optional[str], html_out: Optional[str]) -> None:
    # Imported here, not at the top: `ek-otel bfcl --help` pays for none of it.
    from ..bfcl.data import BfclData
    from ..bfcl.result_files import find_result_files
    from ..bfcl.runner import score_result_files
    from ..bfcl.score_files import write_score_dir

    if html_out is not None:
        from ..report.html import check_writable

        check_writable(html_out)
    if json_out is not None:  # before any work, as --html: one line, not a traceback at the end
        try:
            open(json_out, "a", encoding="utf-8").close()
        except OSError as exc:
            raise InputError(f"cannot write the JSON: {exc.strerror or exc}", path=json_out) from None
    data = BfclData.locate(data_path)
    files = find_result_files(results)
    if not files:
        raise InputError(f"no {VERSION_PREFIX}_<category>_result.json file of a scored category "
                         f"(see `ek-otel bfcl --help`)", path=", ".join(results))
    check_multi_turn_mode(files, multi_turn)
    _note_java_js_without_tree_sitter(files)
    total = sum(len(f.records) for f in files)
    single_turn_only = all(checker_kind(f.category) in ("ast", "relevance") for f in files)
    with progress("checking BFCL entries", total=total,
                  enabled=None if total >= _PROGRESS_MIN_ENTRIES else False) as advance, \
            contextlib.nullcontext() if single_turn_only else resumed_gc():
        run = score_result_files(files, data, underscore_to_dot=underscore_to_dot,
                                 multi_turn=multi_turn, on_entry=advance, style=style)
    _print_tables(run)
    if json_out:
        with open(json_out, "w", encoding="utf-8") as handle:
            json.dump(run_json(run), handle, ensure_ascii=False)
            handle.write("\n")
        wrote("the JSON report", json_out)
    if score_dir:
        write_score_dir(score_dir, run)
        wrote("the score files", score_dir)
    if html_out:
        from ..report.bfcl import bfcl_view
        from ..report.html import render_bfcl, write_html

        write_html(render_bfcl(bfcl_view(run)), html_out)
        wrote("the HTML page", html_out)


@click.command("from-bfcl")
@click.option("--data", "data_path", metavar="DIR|WHEEL",
              help="BFCL data (default: the installed bfcl_eval package).")
@click.option("--category", "categories", multiple=True, required=True,
              type=click.Choice(ALL_SCORING), metavar="CAT",
              help="A BFCL category to convert; repeat for several.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The gold file to write (.jsonl, .json or .yaml).")
def from_bfcl(data_path: Optional[str], categories: tuple, out: str) -> None:
    """Convert BFCL entries into native gold tasks (schemas, allowed values, turns).

    Example:

        ek-otel gold from-bfcl --category simple_python --category parallel --out bfcl.jsonl
    """
    from ..bfcl.data import BfclData
    from ..bfcl.gold import bfcl_tasks
    from ..gold.native import dump_tasks

    data = BfclData.locate(data_path)
    tasks = []
    for category in categories:
        tasks.extend(bfcl_tasks(data, category))
    dump_tasks(tasks, out)
    click.echo(f"{out}: {len(tasks)} tasks from {', '.join(categories)}", err=True)
