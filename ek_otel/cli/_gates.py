"""The ``--junit OUT.xml`` and ``--markdown OUT.md`` options of ``score`` and ``compare``:
the verdicts where CI shows them (:mod:`ek_otel.report.junit`, :mod:`ek_otel.report.markdown`).
Each file written is named on stderr.

Example:
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @gate_options
    ... def show(junit_out, markdown_out): click.echo(f"{junit_out} {markdown_out}")
    >>> CliRunner().invoke(show, ["--junit", "r.xml"]).output
    'r.xml None\\n'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

import click

from ..errors import InputError

__all__ = ["gate_options", "comparison_gate_options", "check_gate_options", "write_run_gates", "write_comparison_gates"]


def _gate_options(junit_help: str, markdown_help: str) -> Callable:
    def add(command: Callable) -> Callable:
        command = click.option("--markdown", "markdown_out", metavar="OUT.md",
                               type=click.Path(dir_okay=False), help=markdown_help)(command)
        return click.option("--junit", "junit_out", metavar="OUT.xml",
                            type=click.Path(dir_okay=False), help=junit_help)(command)
    return add


#: ``--junit OUT.xml`` (``junit_out``) and ``--markdown OUT.md`` (``markdown_out``) of a run.
gate_options = _gate_options(
    "Write JUnit XML: one test case per task (flaky and failing tasks fail, with their "
    "verdict and explanation).",
    "Write a short Markdown summary (headline, worst tasks) for a pull-request comment or "
    "$GITHUB_STEP_SUMMARY.")
#: The same options of ``compare``.
comparison_gate_options = _gate_options(
    "Write JUnit XML: one test case per shared task (regressed tasks fail, with both "
    "verdicts), and the paired test.",
    "Write a short Markdown summary (paired test, regressions, power) for a pull-request "
    "comment or $GITHUB_STEP_SUMMARY.")


def check_gate_options(junit_out: Optional[str], markdown_out: Optional[str]) -> None:
    """Fail before any work when a file cannot be written (an existing file is kept).

    Example:
        >>> check_gate_options("/no/such/dir/r.xml", None)
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/r.xml: cannot write the JUnit file: No such file or directory
    """
    for path, what in ((junit_out, "the JUnit file"), (markdown_out, "the Markdown summary")):
        if path is None:
            continue
        try:
            open(path, "a", encoding="utf-8").close()
        except OSError as exc:
            raise InputError(f"cannot write {what}: {exc.strerror or exc}", path=path) from None


def write_run_gates(data: Mapping[str, Any], source: str, junit_out: Optional[str],
                    markdown_out: Optional[str], *, command: str = "score") -> None:
    """Write the JUnit and Markdown files of a JSON report (``data``; its ``episodes`` may be
    a stream, read once)."""
    if junit_out is None and markdown_out is None:
        return
    from ..report.model import failing_explanations, report_from_dict

    explanations = failing_explanations(data.get("episodes"))
    report = report_from_dict({**data, "episodes": [], "unmatched": list(data.get("unmatched") or ())},
                              source)
    if junit_out is not None:
        from ..report.junit import run_junit, write_junit

        groups = [failing_explanations(data.get("episodes"), group=i)
                  for i in range(len(report.groups))]
        xml = run_junit(report, explanations, command=command, group_explanations=groups)
        click.echo(write_junit(xml, junit_out), err=True)
    if markdown_out is not None:
        from ..report.markdown import run_markdown, write_markdown

        click.echo(write_markdown(run_markdown(report, explanations, command=command), markdown_out), err=True)


def write_comparison_gates(comparison: Any, candidate: Any, junit_out: Optional[str],
                           markdown_out: Optional[str]) -> None:
    """Write the JUnit and Markdown files of a comparison (explanations: the candidate's)."""
    if junit_out is None and markdown_out is None:
        return
    from ..report.model import failing_explanations

    explanations = failing_explanations(candidate.data.get("episodes"))
    if junit_out is not None:
        from ..report.junit import comparison_junit, write_junit

        click.echo(write_junit(comparison_junit(comparison, explanations), junit_out), err=True)
    if markdown_out is not None:
        from ..report.markdown import comparison_markdown, write_markdown

        click.echo(write_markdown(comparison_markdown(comparison, explanations), markdown_out),
                   err=True)
