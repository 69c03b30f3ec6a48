"""``ek-otel compare BASE CANDIDATE``: is the candidate better than the base, and where?

BASE and CANDIDATE are JSON reports (``ek-otel score --json`` or ``ek-otel report --json``)
scored against the same gold file with the same matcher settings; otherwise the command
refuses with one line and exit code 2. It prints the overall differences in F1 and success
rate with paired bootstrap 95% intervals over the shared tasks, the exact McNemar test on the
tasks that flipped, and the tasks that regressed and improved.

Exit codes: 0 when the comparison ran; 1 with ``--fail-on-regression significant`` when an
interval lies entirely below 0, or with ``--fail-on-regression any`` when any task
regressed; 2 for an unreadable or invalid report, or reports that are not comparable.

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

__all__ = ["compare", "comparison_tables"]

_MAX_ROWS = 25


def _rate(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:+.3f}"


def comparison_tables(comparison: Comparison) -> list:
    """The overall table and the table of changed tasks (regressed first).

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> [t.title for t in comparison_tables(compare_tasks({}, {}))]
        ['candidate against base on 0 shared tasks', 'tasks that changed']
    """
    data = comparison.to_dict()
    overall = Table(title=f"candidate against base on {data['shared_tasks']} shared tasks")
    for name in ("figure", "base", "candidate", "difference", "paired 95% CI"):
        overall.add_column(name, justify="left" if name == "figure" else "right", no_wrap=True)
    for key, label in (("f1", "micro F1"), ("success_rate", "success rate")):
        iv = data["difference"][key]
        overall.add_row(label, _rate(data["base"].get(key)), _rate(data["candidate"].get(key)),
                        _signed(iv["estimate"]), f"{_signed(iv['low'])} .. {_signed(iv['high'])}")
    mcnemar = data["mcnemar"]
    overall.caption = (f"{mcnemar['regressed']} regressed, {mcnemar['improved']} improved; "
                       f"exact McNemar p = {mcnemar['p_value']:.4g}")
    changed = Table(title="tasks that changed")
    for name in ("task", "change", "success", "F1"):
        changed.add_column(name, justify="left" if name in ("task", "change") else "right",
                           overflow="fold")
    rows = [c for c in comparison.changes if c.status in ("regressed", "improved")
            or c.success_delta or c.f1_delta]
    for change in rows[:_MAX_ROWS]:
        style = {"regressed": "red", "improved": "green"}.get(change.status)
        changed.add_row(change.task_id, change.status,
                        f"{_rate(change.base.successes / change.base.episodes if change.base.episodes else None)}"
                        f" -> {_rate(change.candidate.successes / change.candidate.episodes if change.candidate.episodes else None)}",
                        _signed(change.f1_delta), style=style)
    if len(rows) > _MAX_ROWS:
        changed.add_row("...", "", "", f"{len(rows) - _MAX_ROWS} more (see --json / --html)")
    return [overall, changed]


@click.command("compare")
@click.argument("base", metavar="BASE")
@click.argument("candidate", metavar="CANDIDATE")
@click.option("--json", "json_out", metavar="OUT", help="Write the comparison as JSON ('-': stdout).")
@click.option("--html", "html_out", metavar="OUT.html", type=click.Path(dir_okay=False),
              help="Write the comparison as one self-contained HTML page.")
@click.option("--fail-on-regression", "fail_on", type=click.Choice(FAIL_ON_CHOICES),
              help="Exit 1 when the candidate is significantly worse (an interval entirely "
                   "below 0), or when any task regressed.")
def compare(base: str, candidate: str, json_out: Optional[str], html_out: Optional[str],
            fail_on: Optional[str]) -> None:
    """Compare two JSON reports over the same gold file: BASE, then CANDIDATE.

    \b
    Example:
        ek-otel compare base.json candidate.json --html compare.html --fail-on-regression any
    """
    from ..report.html import check_writable, render_comparison, write_html

    if html_out is not None:
        check_writable(html_out)
    base_report = load_report(base)
    candidate_report = load_report(candidate)
    comparison = compare_reports(base_report, candidate_report)
    out = stderr_console() if json_out == "-" else stdout_console()
    for table in comparison_tables(comparison):
        out.print(table)
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
        write_html(render_comparison(comparison, base_report, candidate_report), html_out)
        wrote("the HTML page", html_out)
    if fail_on is not None and comparison.fails(fail_on):
        why = ("significantly worse" if fail_on == "significant"
               else f"{comparison.regressed} task{'s' if comparison.regressed != 1 else ''} regressed")
        click.echo(f"ek-otel: candidate {why} (--fail-on-regression {fail_on})", err=True)
        raise SystemExit(1)
