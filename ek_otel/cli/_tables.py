"""The tables of a corpus report, printed by ``ek-otel score`` and ``ek-otel report``.

Each takes a :class:`~ek_otel.scoring.run.ScoreRun` (or its ``unmatched``) and returns a
rich :class:`~rich.table.Table`.

Example:
    >>> from ek_otel.scoring import ScoreSettings, score_episodes
    >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
    1
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Optional

from rich.table import Table

__all__ = ["print_run_tables", "print_table", "name_column", "tasks_table", "slices_table", "groups_table", "unmatched_table", "money_format",
           "worst_task_lines", "failure_line"]

_MAX_UNMATCHED_ROWS = 20
#: Tasks shown by :func:`worst_tasks_table`.
WORST_TASKS = 5


def _rate(value: Optional[float]) -> str:
    return "-" if value is None or value != value else f"{value:.3f}"


def money_format(values: Any) -> Callable[[Optional[float]], str]:
    """One dollar precision for a whole column: enough decimals for three significant digits
    of its smallest non-zero amount (two at least, eight at most), the same for every row.

    Example:
        >>> f = money_format([0.000569, 0.00015, 0.00256, None])
        >>> [f(v) for v in (0.000569, 0.00015, 0.00256, None)]
        ['$0.000569', '$0.000150', '$0.002560', '-']
        >>> money_format([1234.5, 0.5])(1234.5)
        '$1,234.50'
    """
    positive = [abs(v) for v in values if isinstance(v, (int, float)) and v]
    smallest = min(positive) if positive else 1.0
    decimals = 2 if smallest >= 0.01 else min(8, 2 - math.floor(math.log10(smallest)))

    def money(value: Optional[float]) -> str:
        return "-" if value is None else f"${value:,.{decimals}f}"
    return money


def name_column(table: Table, name: str, wide: bool, max_width: Optional[int] = None) -> None:
    """A name column: whole (folded) with ``--wide``, else one line cut with an ellipsis
    (at ``max_width`` characters at most)."""
    if wide:
        table.add_column(name, overflow="fold")
    else:
        table.add_column(name, no_wrap=True, overflow="ellipsis", min_width=8, max_width=max_width)


def tasks_table(run: Any, wide: bool = False) -> Table:
    """Per-task figures and a total row (pass^k when tasks repeat; dollars when priced).

    Fits 80 columns: success, F1, pass^k and dollars, task ids cut with an ellipsis; ``wide``
    adds precision, recall and exact match and prints task ids whole.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
        1
    """
    report = run.report
    with_k = report.k > 1
    table = Table(title="tool-call scores by task")
    figures = ["prec", "recall", "F1", "exact", "success"] if wide else ["success", "F1"]
    name_column(table, "task", wide)
    for name in ["n", *figures, *([f"pass^{report.k}"] if with_k else []), "dollars"]:
        table.add_column(name, justify="right", no_wrap=True)
    rows = [(task_id, cut, report.pass_hat_k.get(task_id), run.task_dollars(task_id))
            for task_id, cut in report.per_task.items()]
    money = money_format([d for *_, d in rows] + [report.dollars])

    def row(label: str, cut: Any, pass_hat: Optional[float], dollars) -> list:
        values = {"prec": cut.precision, "recall": cut.recall, "F1": cut.f1,
                  "exact": cut.exact_rate, "success": cut.success_rate}
        cells = [label, str(cut.n), *(_rate(values[name]) for name in figures)]
        if with_k:
            cells.append(_rate(pass_hat))
        cells.append(money(dollars))
        return cells

    for task_id, cut, pass_hat, dollars in rows:
        table.add_row(*row(task_id, cut, pass_hat, dollars))
    table.add_section()
    table.add_row(*row("total", report.overall, report.mean_pass_hat_k, report.dollars),
                  style="bold")
    return table


def slices_table(run: Any, wide: bool = False) -> Optional[Table]:
    """Per-slice figures, or None when no scored task has a slice (``wide``: every figure).

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> slices_table(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    if not run.report.per_slice:
        return None
    table = Table(title="by slice")
    figures = ["prec", "recall", "F1", "exact", "success"] if wide else ["success", "F1"]
    name_column(table, "slice", wide)
    for name in ["n", *figures]:
        table.add_column(name, justify="right", no_wrap=True)
    for name, cut in run.report.per_slice.items():
        values = {"prec": cut.precision, "recall": cut.recall, "F1": cut.f1,
                  "exact": cut.exact_rate, "success": cut.success_rate}
        table.add_row(name, str(cut.n), *(_rate(values[f]) for f in figures))
    return table


def _failing_rows(run: Any) -> dict:
    """task id -> (failing runs, failures by kind, the first failing run's explanation)."""
    from ..report.failures import failures_of
    from ..scoring.report import episode_dict
    from ..scoring.spool import score_of

    out: dict = {}
    for outcome in run.envelopes:
        score = score_of(outcome)
        if score.success:
            continue
        row = out.setdefault(score.task_id, [0, {}, score.explanation])
        row[0] += 1
        for failure in failures_of(episode_dict(score)):
            row[1][failure.kind] = row[1].get(failure.kind, 0) + 1
    return out


def failure_line(run: Any, failing: Optional[dict] = None) -> Optional[str]:
    """``4 of 9 runs failed: 3 wrong value, 1 spurious call`` (None when none failed).

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> failure_line(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    from ..report.failures import FAILURE_KINDS, KIND_LABELS

    failing = _failing_rows(run) if failing is None else failing
    runs = sum(row[0] for row in failing.values())
    if not runs:
        return None
    kinds = {kind: sum(row[1].get(kind, 0) for row in failing.values()) for kind in FAILURE_KINDS}
    counts = ", ".join(f"{n} {KIND_LABELS[kind]}" for kind, n in kinds.items() if n)
    return f"{runs} of {run.report.n_episodes} runs failed: {counts}"


def worst_task_lines(run: Any, width: int = 80, wide: bool = False, limit: int = WORST_TASKS,
                     failing: Optional[dict] = None) -> list:
    """The tasks with the lowest success rate (at most ``limit``): a line with the task, its
    failed runs and its failures by kind, then why its first failing run failed; each line
    cut at ``width`` with an ellipsis (``wide``: whole). Empty when no run failed.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> worst_task_lines(score_episodes([], {}, ScoreSettings()))
        []
    """
    from ..report.failures import FAILURE_KINDS, KIND_LABELS

    failing = _failing_rows(run) if failing is None else failing
    if not failing:
        return []
    per_task = run.report.per_task
    order = sorted(failing, key=lambda t: (per_task[t].success_rate if t in per_task else 0.0,
                                           -failing[t][0], t))
    shown = order[:limit]

    def cut(text: str) -> str:
        return text if wide or len(text) <= width else text[:width - 1] + "\u2026"

    lines = [f"worst tasks ({len(shown)} of {len(failing)} with a failing run, lowest success first):"]
    for task_id in shown:
        runs, kinds, why = failing[task_id]
        n = per_task[task_id].n if task_id in per_task else runs
        counts = ", ".join(f"{KIND_LABELS[k]} \u00d7{kinds[k]}" for k in FAILURE_KINDS if kinds.get(k))
        lines.append(cut(f"  {task_id}: {runs} of {n} runs failed ({counts})"))
        lines.append(cut(f"      {why}" if why else "      (no explanation)"))
    return lines


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
    name_column(table, "model / simulator / suite / scaffold", False)
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


def unmatched_table(unmatched: tuple, wide: bool = False) -> Table:
    """The episodes that were not scored, and why (the first 20; a count of the rest).

    Example:
        >>> from ek_otel.scoring import Unmatched
        >>> unmatched_table((Unmatched("ab" * 16, "x", "task id not in the gold file"),)).row_count
        1
    """
    table = Table(title=f"{len(unmatched)} unmatched episode{'s' if len(unmatched) != 1 else ''}")
    table.add_column("trace", no_wrap=True)
    for name in ("task id", "reason"):
        name_column(table, name, wide)
    for item in unmatched[:_MAX_UNMATCHED_ROWS]:
        table.add_row(item.trace_id or "-", item.task_id or "-", item.reason)
    if len(unmatched) > _MAX_UNMATCHED_ROWS:
        table.add_row("...", "", f"{len(unmatched) - _MAX_UNMATCHED_ROWS} more (see --json)")
    return table


def print_table(out: Any, table: Table, wide: bool = False) -> None:
    """Print a table on ``out``; ``wide``: as wide as its values need (never folded to the
    terminal's width), else fitted to it.

    Example:
        >>> import io
        >>> from rich.console import Console
        >>> buffer, table = io.StringIO(), Table("name")
        >>> table.add_row("x" * 100)
        >>> print_table(Console(file=buffer, width=40), table, wide=True)
        >>> max(len(line) for line in buffer.getvalue().splitlines())
        104
    """
    if wide:
        from rich.measure import Measurement

        needed = Measurement.get(out, out.options.update_width(100_000), table).maximum
        if needed > out.width:
            from rich.console import Console

            out = Console(file=out.file, width=needed, soft_wrap=False, no_color=out.no_color,
                          force_terminal=out.is_terminal or None)
    else:
        fit_columns(table, out.width)
    out.print(table)


def _text_width(cell: Any) -> int:
    text = cell if isinstance(cell, str) else getattr(cell, "plain", str(cell))
    return max((len(line) for line in text.splitlines()), default=0)


def fit_columns(table: Table, width: int) -> None:
    """Cap the name columns (one line, cut with an ellipsis) so that the table fits
    ``width``: the widest is narrowed first, none below its ``min_width``.

    Example:
        >>> table = Table("a", "b")
        >>> for column in table.columns:
        ...     column.no_wrap, column.overflow, column.min_width = True, "ellipsis", 4
        >>> table.add_row("x" * 50, "y" * 10)
        >>> fit_columns(table, 40); [c.max_width for c in table.columns]
        [23, 10]
    """
    widths = [max([_text_width(c.header), *(_text_width(x) for x in c._cells)], default=0)
              for c in table.columns]
    frame = 3 * len(widths) + 1  # borders and one space each side of every cell
    names = [i for i, c in enumerate(table.columns) if c.no_wrap and c.overflow == "ellipsis"]
    while sum(widths) + frame > width and names:
        widest = max(names, key=lambda i: widths[i])
        floor = table.columns[widest].min_width or 1
        if widths[widest] <= floor:
            names.remove(widest)
            continue
        widths[widest] -= 1
    for i in names:
        table.columns[i].max_width = widths[i]


def print_run_tables(run: Any, out: Any, *, wide: bool = False, groups: str = "table") -> None:
    """What ``score`` and ``report`` print: the tables by task and slice, the runs apart
    (``groups``: a ``table``, or one ``line``), the unmatched episodes, then the worst tasks
    and the failures by kind.

    Example:
        >>> import io
        >>> from rich.console import Console
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> buffer = io.StringIO()
        >>> print_run_tables(score_episodes([], {}, ScoreSettings()), Console(file=buffer, width=80))
        >>> "tool-call scores by task" in buffer.getvalue()
        True
    """
    def show(table: Table) -> None:
        print_table(out, table, wide)

    show(tasks_table(run, wide))
    sliced = slices_table(run, wide)
    if sliced is not None:
        show(sliced)
    if run.report.groups:
        if groups == "table":
            show(groups_table(run))
        else:
            out.print(f"[bold]{len(run.report.groups)} provenance groups[/bold] "
                      "(model, simulator, suite version, scaffold) were scored apart; see --json.")
    if run.unmatched:
        show(unmatched_table(run.unmatched, wide))
    failing = _failing_rows(run)
    lines = worst_task_lines(run, out.width, wide, failing=failing)
    if lines:
        for line in lines:
            out.print(line, markup=False, highlight=False, no_wrap=True, overflow="ignore", crop=False)
        out.print(failure_line(run, failing), markup=False, highlight=False)
