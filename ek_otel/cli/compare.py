"""``ek-otel compare BASE CANDIDATE``: is the candidate better than the base, and where?

BASE and CANDIDATE are JSON reports (``ek-otel score --json`` or ``ek-otel report --json``)
scored against the same gold file with the same matcher settings; otherwise the command
refuses with one line and exit code 2. It prints each run's success rate over the shared tasks
(with its 95% interval), the difference, the tasks' verdicts, the paired test (exact McNemar
for one trial per task, else a paired sign-flip permutation test; "too few tasks" when no
result could be significant), the power analysis, and the tasks that regressed and improved
(by success rate). See docs/verdicts.md.

Exit codes: 0 when the comparison ran; 1 with ``--fail-on-regression significant`` when the
paired test finds the candidate significantly worse, or with ``--fail-on-regression any``
when any shared task's success rate dropped; 2 for an unreadable or invalid report, or
reports that are not comparable.

Example:
    >>> from click.testing import CliRunner
    >>> "--fail-on-regression" in CliRunner().invoke(compare, ["--help"]).output
    True
"""

from __future__ import annotations

from typing import Optional

import click
from rich.table import Table

from ..report.compare import FAIL_ON_CHOICES, Comparison, compare_reports
from ..report.model import load_report
from ._common import stderr_console, stdout_console, write_json, wrote
from ._gates import check_gate_options, comparison_gate_options, write_comparison_gates

__all__ = ["compare", "comparison_tables", "comparison_lines"]

_MAX_ROWS = 25


def _rate(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _interval(totals: dict) -> str:
    iv = totals.get("success_interval") or {}
    return "-" if iv.get("low") is None else f"{iv['low']:.3f} .. {iv['high']:.3f}"


def _verdicts(totals: dict) -> str:
    head = totals.get("headline") or {}
    return f"{head.get('pass', 0)} / {head.get('flaky', 0)} / {head.get('fail', 0)}"


def comparison_tables(comparison: Comparison) -> list:
    """The overall table and the table of changed tasks (regressed first).

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> [t.title for t in comparison_tables(compare_tasks({}, {}))]
        ['candidate against base on 0 shared tasks', 'tasks that changed']
    """
    data = comparison.to_dict()
    base, cand = data["base"], data["candidate"]
    overall = Table(title=f"candidate against base on {data['shared_tasks']} shared tasks")
    for name in ("figure", "base", "candidate", "difference"):
        overall.add_column(name, justify="left" if name == "figure" else "right", no_wrap=True)
    overall.add_row("success rate", _rate(base.get("success_rate")),
                    _rate(cand.get("success_rate")),
                    _signed(data["difference"]["success_rate"]["estimate"]))
    overall.add_row("  95% interval", _interval(base), _interval(cand), "")
    overall.add_row("runs passed", f"{base.get('successes', 0)}/{base.get('episodes', 0)}",
                    f"{cand.get('successes', 0)}/{cand.get('episodes', 0)}", "")
    overall.add_row("tasks pass / flaky / fail", _verdicts(base), _verdicts(cand), "")
    overall.add_row("micro F1", _rate(base.get("f1")), _rate(cand.get("f1")),
                    _signed(data["difference"]["f1"]["estimate"]))
    changes = data["changes"]
    overall.caption = (f"{changes['regressed']} regressed, {changes['improved']} improved, "
                       f"{changes['unchanged']} unchanged (by success rate)")
    changed = Table(title="tasks that changed")
    for name in ("task", "change", "success", "verdict", "F1"):
        changed.add_column(name, justify="right" if name in ("success", "F1") else "left",
                           overflow="fold")
    rows = [c for c in comparison.changes if c.status != "unchanged" or c.f1_delta]
    for change in rows[:_MAX_ROWS]:
        style = {"regressed": "red", "improved": "green"}.get(change.status)
        changed.add_row(change.task_id, change.status,
                        f"{_rate(change.base.rate)} -> {_rate(change.candidate.rate)}",
                        f"{change.base.verdict} -> {change.candidate.verdict}",
                        _signed(change.f1_delta), style=style)
    if len(rows) > _MAX_ROWS:
        changed.add_row("...", "", "", "", f"{len(rows) - _MAX_ROWS} more (see --json / --html)")
    return [overall, changed]


def comparison_lines(comparison: Comparison) -> list:
    """The paired test's verdict and the power analysis, one line each.

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> comparison_lines(compare_tasks({}, {}))[0]
        'paired test: too few tasks: 0 shared, at least 6 are needed for any difference to be significant at 5%'
    """
    lines = [f"paired test: {comparison.test.text}"]
    lines += [f"power (80%, 5%): {row['text']}" for row in comparison.power]
    return lines


@click.command("compare")
@click.argument("base", metavar="BASE")
@click.argument("candidate", metavar="CANDIDATE")
@click.option("--json", "json_out", metavar="OUT", help="Write the comparison as JSON ('-': stdout).")
@click.option("--html", "html_out", metavar="OUT.html", type=click.Path(dir_okay=False),
              help="Write the comparison as one self-contained HTML page.")
@comparison_gate_options
@click.option("--fail-on-regression", "fail_on", type=click.Choice(FAIL_ON_CHOICES),
              help="Exit 1 when the candidate is significantly worse (paired test at 5%), "
                   "or when any shared task's success rate dropped (any).")
def compare(base: str, candidate: str, json_out: Optional[str], html_out: Optional[str],
            fail_on: Optional[str], junit_out: Optional[str] = None,
            markdown_out: Optional[str] = None) -> None:
    """Compare two JSON reports over the same gold file: BASE, then CANDIDATE.

    \b
    Example:
        ek-otel compare base.json candidate.json --html compare.html --fail-on-regression any
    """
    if html_out is not None:
        from ..report.html import check_writable

        check_writable(html_out)
    check_gate_options(junit_out, markdown_out)
    base_report = load_report(base)
    candidate_report = load_report(candidate)
    comparison = compare_reports(base_report, candidate_report)
    out = stderr_console() if json_out == "-" else stdout_console()
    for table in comparison_tables(comparison):
        out.print(table)
    for line in comparison_lines(comparison):
        out.print(line, markup=False, highlight=False)
    for label, tasks in (("base", comparison.only_in_base),
                         ("candidate", comparison.only_in_candidate)):
        if tasks:
            shown = ", ".join(tasks[:10]) + (f" and {len(tasks) - 10} more" if len(tasks) > 10 else "")
            out.print(f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} only in the {label}: "
                      f"{shown}", markup=False, highlight=False)
    if json_out is not None:
        write_json(comparison.to_dict(), json_out)
        if json_out != "-":
            wrote("the comparison", json_out)
    if html_out is not None:
        from ..report.html import render_comparison, write_html

        write_html(render_comparison(comparison, base_report, candidate_report), html_out)
        wrote("the HTML page", html_out)
    write_comparison_gates(comparison, candidate_report, junit_out, markdown_out)
    if fail_on is not None and comparison.fails(fail_on):
        why = (f"significantly worse ({comparison.test.name}, p = {comparison.p_value:.3g})"
               if fail_on == "significant"
               else f"{comparison.regressed} shared task{'s' if comparison.regressed != 1 else ''}"
                    " lost success rate")
        click.echo(f"ek-otel: candidate {why} (--fail-on-regression {fail_on})", err=True)
        raise SystemExit(1)
    if fail_on == "significant":
        click.echo(f"ek-otel: --fail-on-regression significant did not fire: "
                   f"{comparison.test.text}", err=True)
