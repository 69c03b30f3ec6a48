"""The tables of a corpus report, printed by ``ek-otel score`` and ``ek-otel report``.

Each takes a :class:`~ek_otel.scoring.run.ScoreRun` (or its ``unmatched``) and returns a
rich :class:`~rich.table.Table`.

Example:
    >>> from ek_otel.scoring import ScoreSettings, score_episodes
    >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
    1
"""

from __future__ import annotations

from typing import Any, Optional

from rich.table import Table

from ..scoring.link import NOT_AN_AGENT_RUN
from ._ids import short_ids

__all__ = ["tasks_table", "slices_table", "groups_table", "unmatched_table"]

_MAX_UNMATCHED_ROWS = 20


def _rate(value: Optional[float]) -> str:
    return "-" if value is None or value != value else f"{value:.3f}"


def _money(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"${value:,.2f}" if value >= 100 else f"${value:.3g}"


def tasks_table(run: Any) -> Table:
    """Per-task figures and a total row (pass^k when tasks repeat; dollars when priced).

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
        1
    """
    report = run.report
    with_k = report.k > 1
    table = Table(title="tool-call scores by task")
    columns = ["task", "n", "prec", "recall", "F1", "exact"]
    if with_k:
        columns.append(f"pass^{report.k}")
    columns.append("dollars")
    for name in columns:
        if name == "task":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)

    def row(label: str, cut: Any, pass_hat: Optional[float], dollars) -> list:
        cells = [label, str(cut.n), _rate(cut.precision), _rate(cut.recall),
                 _rate(cut.f1), _rate(cut.exact_rate)]
        if with_k:
            cells.append(_rate(pass_hat))
        cells.append(_money(dollars))
        return cells

    for task_id, cut in report.per_task.items():
        table.add_row(*row(task_id, cut, report.pass_hat_k.get(task_id), run.task_dollars(task_id)))
    table.add_section()
    table.add_row(*row("total", report.overall, report.mean_pass_hat_k, report.dollars),
                  style="bold")
    return table


def slices_table(run: Any) -> Optional[Table]:
    """Per-slice figures, or None when no scored task has a slice.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> slices_table(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    if not run.report.per_slice:
        return None
    table = Table(title="by slice")
    for name in ("slice", "n", "prec", "recall", "F1", "exact", "success"):
        if name == "slice":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for name, cut in run.report.per_slice.items():
        table.add_row(name, str(cut.n), _rate(cut.precision), _rate(cut.recall), _rate(cut.f1),
                      _rate(cut.exact_rate), _rate(cut.success_rate))
    return table


def groups_table(run: Any) -> Table:
    """Figures per provenance group (model, simulator, suite version, scaffold), when they differ.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> groups_table(score_episodes([], {}, ScoreSettings())).row_count
        0
    """
    groups = run.report.groups
    with_k = any(group.report.k > 1 for group in groups)  # each run's own k
    table = Table(title="runs that differ in model or scaffold, apart")
    table.add_column("model / simulator / suite / scaffold", overflow="fold")
    for name in ("n", "prec", "recall", "F1", "exact") + (("pass^k",) if with_k else ()):
        table.add_column(name, justify="right", no_wrap=True)
    for group in groups:
        cut = group.report.overall
        label = " / ".join(str(part) if part else "-" for part in group.key)
        cells = [label, str(cut.n), _rate(cut.precision), _rate(cut.recall), _rate(cut.f1),
                 _rate(cut.exact_rate)]
        if with_k:
            cells.append(f"{_rate(group.report.mean_pass_hat_k)} (k={group.report.k})")
        table.add_row(*cells)
    return table


def unmatched_table(unmatched: tuple) -> Table:
    """The episodes that were not scored, and why (the first 20; a count of the rest); trace
    ids as their shortest unique prefix, at least 8 hex digits.

    Example:
        >>> from ek_otel.scoring import Unmatched
        >>> unmatched_table((Unmatched("ab" * 16, "x", "task id not in the gold file"),)).row_count
        1
        >>> unmatched_table((Unmatched("ab" * 16, "", "not an agent run: MCP ping"),)).title
        '1 unmatched episode (1 is not an agent run)'
    """
    title = f"{len(unmatched)} unmatched episode{'s' if len(unmatched) != 1 else ''}"
    not_runs = sum(1 for item in unmatched if item.reason.startswith(NOT_AN_AGENT_RUN))
    if not_runs:
        title += f" ({not_runs} {'is' if not_runs == 1 else 'are'} {NOT_AN_AGENT_RUN})"
    table = Table(title=title)
    table.add_column("trace", no_wrap=True)
    for name in ("task id", "reason"):
        table.add_column(name, overflow="fold")
    shown = unmatched[:_MAX_UNMATCHED_ROWS]
    for item, trace_id in zip(shown, short_ids([item.trace_id or "" for item in shown])):
        table.add_row(trace_id or "-", item.task_id or "-", item.reason)
    if len(unmatched) > _MAX_UNMATCHED_ROWS:
        table.add_row("...", "", f"{len(unmatched) - _MAX_UNMATCHED_ROWS} more (see --json)")
    return table
