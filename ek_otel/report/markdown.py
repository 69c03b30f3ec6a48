"""A short Markdown summary of a run (``ek-otel score --markdown``) or a comparison
(``ek-otel compare --markdown``), for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

A run: the headline, the success rate with its interval, and the worst tasks (fail, then
flaky, by success rate) with an explanation of a failed trial. A comparison: the paired
test's verdict, the figures of both runs, the regressions with both verdicts and an
explanation from the candidate, and the power lines. At most :data:`MAX_ROWS` rows per table
and :data:`MAX_CELL` characters per cell, so the text stays a comment's size.

Every string from a trace (task ids, explanations) is escaped: Markdown punctuation gets a
backslash and ``<``/``>``/``&`` become entities, so nothing renders as a link, an image, HTML
or a table break.

Example:
    >>> from ek_otel.report.model import report_from_dict
    >>> r = report_from_dict({"aggregate": {}, "per_task": {"t": {"episodes": 2, "successes": 0}}}, "r")
    >>> print(run_markdown(r, {"t": ["wrong | city"]}).splitlines()[0])
    ### ek-otel score: 0 of 2 runs passed; tasks: 0 pass, 0 flaky, 1 fail
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from ..errors import InputError
from .compare import Comparison
from .model import RunReport

__all__ = ["MAX_ROWS", "MAX_CELL", "escape", "run_markdown", "comparison_markdown",
           "write_markdown"]

#: Rows per table at most.
MAX_ROWS = 10
#: Characters per table cell at most.
MAX_CELL = 160
_SPECIAL = re.compile(r"([\\`*_\[\]|~!])")


def escape(value: Any, limit: int = MAX_CELL) -> str:
    """Text from a trace, safe in a Markdown table cell (one line, cut at ``limit``).

    Example:
        >>> escape("<img src=x> [a](b) | c\\nd")
        '&lt;img src=x&gt; \\\\[a\\\\](b) \\\\| c d'
    """
    text = " ".join(str(value).split())
    if limit and len(text) > limit:
        text = text[:limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def _rate(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.3f}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _more(total: int, shown: int, what: str) -> list:
    return ["", f"… and {total - shown} more {what} (see the JSON report)."] if total > shown else []


def run_markdown(report: RunReport, explanations: Mapping[str, Sequence[str]], *,
                 command: str = "score") -> str:
    """The Markdown summary of a JSON report (``explanations``: task id -> explanations of
    failed trials; ``command``: the ek-otel command named in the title)."""
    from ..core.verdicts import headline_of
    from .stats import task_intervals

    head = report.data.get("headline")
    if not isinstance(head, Mapping) or not head.get("text"):
        head = headline_of((t.counts.episodes, t.counts.successes) for t in report.tasks).to_dict()
    lines = [f"### ek-otel {command}: {head['text']}", ""]
    if report.groups:  # runs that must not be pooled: each run's own headline first
        lines.append("Runs that differ in model, simulator, suite version or scaffold (not pooled):")
        lines.append("")
        for group in report.groups:
            own = headline_of((t.counts.episodes, t.counts.successes) for t in group.tasks)
            lines.append(f"- {escape(group.label, 0)}: {own.text}")
        lines.append("")
    aggregate = report.data.get("aggregate") or {}
    interval = task_intervals([t.counts for t in report.tasks], ["success_rate"])["success_rate"]
    rate = f"success rate **{_rate(interval.estimate)}**"
    if interval.low is not None:
        rate += f" (95% CI {interval.low:.3f}–{interval.high:.3f})"
    figures = [rate]
    if isinstance(aggregate.get("f1"), (int, float)):
        figures.append(f"micro F1 {aggregate['f1']:.3f}")
    unmatched = len(report.data.get("unmatched") or ())
    if unmatched:
        figures.append(f"{unmatched} unmatched episode{'s' if unmatched != 1 else ''}")
    lines += [" · ".join(figures), ""]
    order = {"fail": 0, "flaky": 1}
    worst = sorted((t for t in report.tasks if t.counts.verdict in order),
                   key=lambda t: (order[t.counts.verdict], t.counts.rate or 0.0, t.task_id))
    if not worst:
        lines.append("Every task passed every trial.")
        return "\n".join(lines) + "\n"
    rows = []
    for task in worst[:MAX_ROWS]:
        c = task.counts
        why = (explanations.get(task.task_id) or ["–"])[0]
        rows.append([escape(task.task_id), f"**{c.verdict}**", f"{c.successes}/{c.episodes}",
                     escape(why)])
    lines.append("Worst tasks:")
    lines.append("")
    lines += _table(["task", "verdict", "passed", "why (a failed trial)"], rows)
    lines += _more(len(worst), MAX_ROWS, "failing or flaky tasks")
    return "\n".join(lines) + "\n"


def comparison_markdown(comparison: Comparison,
                        explanations: Mapping[str, Sequence[str]]) -> str:
    """The Markdown summary of a comparison (``explanations``: the candidate's, per task).

    Example:
        >>> from ek_otel.report.compare import compare_tasks
        >>> from ek_otel.report.stats import TaskCounts
        >>> text = comparison_markdown(compare_tasks({"a": TaskCounts(2, 2)}, {"a": TaskCounts(2, 1)}), {})
        >>> text.splitlines()[0]
        '### ek-otel compare: 1 regressed, 0 improved, 0 unchanged'
    """
    data = comparison.to_dict()
    changes, base, cand = data["changes"], data["base"], data["candidate"]
    lines = [f"### ek-otel compare: {changes['regressed']} regressed, {changes['improved']} "
             f"improved, {changes['unchanged']} unchanged", "",
             f"**Paired test:** {comparison.test.text}", ""]

    def interval(side: dict) -> str:
        iv = side.get("success_interval") or {}
        return "–" if iv.get("low") is None else f"{iv['low']:.3f}–{iv['high']:.3f}"

    diff = data["difference"]["success_rate"]["estimate"]
    lines += _table(["", "base", "candidate"], [
        ["success rate", _rate(base.get("success_rate")), _rate(cand.get("success_rate"))],
        ["95% CI", interval(base), interval(cand)],
        ["tasks pass / flaky / fail",
         *(f"{s['headline']['pass']} / {s['headline']['flaky']} / {s['headline']['fail']}"
           for s in (base, cand))],
    ])
    lines += ["", f"Difference in success rate: {'–' if diff is None else f'{diff:+.3f}'} "
                  f"over {data['shared_tasks']} shared tasks.", ""]
    regressed = [c for c in comparison.changes if c.status == "regressed"]
    if regressed:
        rows = [[escape(c.task_id), f"{c.base.rate:.3f} → {c.candidate.rate:.3f}",
                 f"{c.base.verdict} → **{c.candidate.verdict}**",
                 escape((explanations.get(c.task_id) or ["–"])[0])]
                for c in regressed[:MAX_ROWS]]
        lines += ["Regressions:", ""]
        lines += _table(["task", "success", "verdict", "why (a failed candidate trial)"], rows)
        lines += _more(len(regressed), MAX_ROWS, "regressed tasks")
    else:
        lines.append("No shared task lost success rate.")
    lines.append("")
    lines += [f"- power (80%, 5%): {row['text']}" for row in comparison.power]
    return "\n".join(lines) + "\n"


def write_markdown(text: str, path: str) -> str:
    """Write the Markdown file and return the line that names it (for stderr).

    Raises:
        InputError: the file cannot be written (names it).

    Example:
        >>> import os, tempfile
        >>> write_markdown("# x\\n", os.path.join(tempfile.mkdtemp(), "s.md")).startswith("wrote ")
        True
    """
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"cannot write the Markdown summary: {exc.strerror or exc}",
                         path=path) from None
    return f"wrote {path} (Markdown summary, {text.count(chr(10))} lines)"
