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

from ..core.verdicts import headline_of, task_verdict
from ..scoring.link import NOT_AN_AGENT_RUN
from ._ids import short_ids

__all__ = ["print_run_tables", "print_table", "name_column", "tasks_table", "slices_table",
           "groups_table", "unmatched_table", "money_format", "worst_task_lines", "failure_line",
           "total_dollars", "cost_warnings", "headline_text", "headline_lines"]

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


def _defined(value: Optional[float]) -> str:
    """Precision, recall or F1: ``n/a`` where undefined (no call predicted / expected)."""
    return "n/a" if value is None else _rate(value)


_VERDICT_STYLE = {"pass": "green", "flaky": "yellow", "fail": "red"}


def _success(cut: Any) -> str:
    return f"{cut.successes}/{cut.n}" if cut.n else "-"


def _exact_is_success(cuts: list) -> bool:
    """True when exact match and success are the same figure in every row (shown once)."""
    return all(cut.exact_rate == cut.success_rate for cut in cuts)


def headline_text(report: Any) -> str:
    """The run's headline (:mod:`ek_otel.core.verdicts`) of an evaluation report.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> headline_text(score_episodes([], {}, ScoreSettings()).report)
        '0 of 0 runs passed; tasks: 0 pass, 0 flaky, 0 fail'
    """
    return headline_of((cut.n, cut.successes) for cut in report.per_task.values()).text


def tasks_table(run: Any, wide: bool = False) -> Table:
    """Per-task verdict (pass / flaky / fail, with the successes), F1, pass^k when tasks
    repeat and dollars when priced, and a total row; the run's headline as its caption.

    Fits 80 columns, task ids cut with an ellipsis; ``wide`` adds precision, recall and exact
    match (exact only where it differs from success) and prints task ids whole.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
        1
    """
    report = run.report
    with_k = report.k > 1
    table = Table(title="tool-call scores by task")
    cuts = [*report.per_task.values(), report.overall]
    with_exact = not _exact_is_success(cuts)
    figures = (["prec", "recall", "F1"] if wide else ["F1"]) + (["exact"] if with_exact else [])
    name_column(table, "task", wide)
    table.add_column("verdict", no_wrap=True)
    for name in [*figures, *([f"pass^{report.k}"] if with_k else []), "dollars"]:
        table.add_column(name, justify="right", no_wrap=True)
    rows = [(task_id, cut, report.pass_hat_k.get(task_id), run.task_dollars(task_id))
            for task_id, cut in report.per_task.items()]
    money = money_format([d for *_, d in rows] + [report.dollars])

    def row(label: str, cut: Any, verdict: str, pass_hat: Optional[float], dollars) -> list:
        values = {"prec": cut.precision, "recall": cut.recall, "F1": cut.f1}
        cells = [label, f"{verdict} {_success(cut)}".strip(),
                 *(_defined(values[name]) if name in values else _rate(cut.exact_rate)
                   for name in figures)]
        if with_k:
            cells.append(_rate(pass_hat))
        cells.append(money(dollars))
        return cells

    incomplete = getattr(report, "task_cost_incomplete", {})
    for task_id, cut, pass_hat, dollars in rows:
        verdict = task_verdict(cut.n, cut.successes) or ""
        if verdict:
            verdict = f"[{_VERDICT_STYLE[verdict]}]{verdict}[/]"
        cells = row(task_id, cut, verdict, pass_hat, dollars)
        if cells[-1] == "-" and incomplete.get(task_id):
            cells[-1] = "unknown"  # model calls without usage: not unpriced, unknown
        table.add_row(*cells)
    table.add_section()
    total = row("total", report.overall, "", report.mean_pass_hat_k, report.dollars)
    total[-1] = total_dollars(report, money)
    table.add_row(*total, style="bold")
    return table


def headline_lines(run: Any) -> list:
    """What ``score`` and ``report`` print under the tasks table: the run's headline, and
    that exact match is not shown where it is the success figure.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> headline_lines(score_episodes([], {}, ScoreSettings()))
        ['0 of 0 runs passed; tasks: 0 pass, 0 flaky, 0 fail', 'success = exact match on every task (shown once)']
    """
    report = run.report
    lines = [headline_text(report)]
    if _exact_is_success([*report.per_task.values(), report.overall]):
        lines.append("success = exact match on every task (shown once)")
    return lines


def total_dollars(report: Any, money: Optional[Callable] = None) -> str:
    """The total dollars cell: ``≥ $x`` when the total leaves episodes out (unpriced, or
    with model calls that recorded no usage), ``unknown`` when it covers none.

    Example:
        >>> from types import SimpleNamespace as R
        >>> total_dollars(R(dollars=0.0012, n_unpriced=0, n_cost_incomplete=2))
        '≥ $0.00120'
        >>> total_dollars(R(dollars=None, n_unpriced=0, n_cost_incomplete=1))
        'unknown'
        >>> total_dollars(R(dollars=None, n_unpriced=0, n_cost_incomplete=0))
        '-'
    """
    money = money or money_format([report.dollars])
    left_out = report.n_unpriced + getattr(report, "n_cost_incomplete", 0)
    if report.dollars is None:
        return "unknown" if getattr(report, "n_cost_incomplete", 0) else "-"
    return f"≥ {money(report.dollars)}" if left_out else money(report.dollars)


def slices_table(run: Any, wide: bool = False) -> Optional[Table]:
    """Per-slice figures, or None when no scored task has a slice (``wide``: every figure;
    exact match only where it differs from success).

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> slices_table(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    if not run.report.per_slice:
        return None
    table = Table(title="by slice")
    with_exact = wide and not _exact_is_success(list(run.report.per_slice.values()))
    figures = (["prec", "recall", "F1"] + (["exact"] if with_exact else []) + ["success"]
               if wide else ["success", "F1"])
    name_column(table, "slice", wide)
    for name in ["n", *figures]:
        table.add_column(name, justify="right", no_wrap=True)
    for name, cut in run.report.per_slice.items():
        values = {"prec": _defined(cut.precision), "recall": _defined(cut.recall),
                  "F1": _defined(cut.f1), "exact": _rate(cut.exact_rate),
                  "success": _rate(cut.success_rate)}
        table.add_row(name, str(cut.n), *(values[f] for f in figures))
    if wide and not with_exact:
        table.caption = "success = exact match (shown once)"
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


def agents_table(run: Any) -> Optional[Table]:
    """The calls by agent of a multi-agent run (:meth:`ek_otel.scoring.run.ScoreRun.agents`);
    None when no call names its agent.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> agents_table(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    rows = run.agents()
    if not rows:
        return None
    table = Table(title="tool calls by agent")
    for column in ("agent", "calls", "matched", "spurious", "errors"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    from rich.text import Text

    for row in rows:  # an agent's name comes from the trace: shown as text, never as markup
        table.add_row(Text(row.agent), *(str(v) for v in row.as_list()[1:]))
    return table


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
    for name in ("passed", "tasks pass/flaky/fail", "prec", "recall", "F1", "exact") + (
            ("pass^k",) if with_k else ()):
        table.add_column(name, justify="right", no_wrap=name != "tasks pass/flaky/fail")
    for group in groups:
        cut = group.report.overall
        label = " / ".join(str(part) if part else "-" for part in group.key)
        head = headline_of((c.n, c.successes) for c in group.report.per_task.values())
        cells = [label, _success(cut), f"{head.passed}/{head.flaky}/{head.failed}",
                 _defined(cut.precision), _defined(cut.recall), _defined(cut.f1),
                 _rate(cut.exact_rate)]
        if with_k:
            cells.append(f"{_rate(group.report.mean_pass_hat_k)} (k={group.report.k})")
        table.add_row(*cells)
    return table


def unmatched_table(unmatched: tuple, wide: bool = False) -> Table:
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
        name_column(table, name, wide)
    shown = unmatched[:_MAX_UNMATCHED_ROWS]
    ids = [item.trace_id or "" for item in shown]
    for item, trace_id in zip(shown, ids if wide else short_ids(ids)):
        table.add_row(trace_id or "-", item.task_id or "-", item.reason)
    if len(unmatched) > _MAX_UNMATCHED_ROWS:
        table.add_row("...", "", f"{len(unmatched) - _MAX_UNMATCHED_ROWS} more (see --json)")
    return table


def cost_warnings(report: Any, pricing: Optional[str]) -> list:
    """What the dollars (and tokens) leave out, and why: one line per reason.

    Example:
        >>> from types import SimpleNamespace as R
        >>> r = R(n_episodes=9, n_unpriced=2, n_cost_incomplete=1, cost=R(calls_without_usage=3))
        >>> for line in cost_warnings(r, "p.yaml"): print(line[:85])
        1 of 9 scored episodes had model calls that recorded no usage (3 calls): their tokens
        2 of 9 scored episodes have no dollars: p.yaml has no price for their model (or they
    """
    from ..ingest.instrumentations import GENERIC_FIXES

    lines = []
    if report.n_cost_incomplete:
        left = "left out of the dollars" if pricing is not None else "not counted"
        lines.append(f"{report.n_cost_incomplete} of {report.n_episodes} scored episodes had model "
                     f"calls that recorded no usage ({report.cost.calls_without_usage} calls): "
                     f"their tokens and cost are unknown, {left} (cost.complete false in the "
                     f"JSON); fix: {GENERIC_FIXES['input_tokens']}")
    if pricing is not None and report.n_unpriced:
        lines.append(f"{report.n_unpriced} of {report.n_episodes} scored episodes have no dollars: "
                     f"{pricing} has no price for their model (or they recorded no model); the "
                     "dollars leave them out")
    return lines


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
    for line in headline_lines(run):
        out.print(line, markup=False, highlight=False, no_wrap=True, overflow="ignore", crop=False)
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
    agents = agents_table(run)
    if agents is not None:
        show(agents)
    failing = _failing_rows(run)
    lines = worst_task_lines(run, out.width, wide, failing=failing)
    if lines:
        for line in lines:
            out.print(line, markup=False, highlight=False, no_wrap=True, overflow="ignore", crop=False)
        out.print(failure_line(run, failing), markup=False, highlight=False)
