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

from ..core.verdicts import headline_of, task_verdict
from ..scoring.link import NOT_AN_AGENT_RUN
from ._ids import short_ids

__all__ = ["tasks_table", "slices_table", "groups_table", "unmatched_table", "total_dollars",
           "cost_warnings"]

_MAX_UNMATCHED_ROWS = 20


def _rate(value: Optional[float]) -> str:
    return "-" if value is None or value != value else f"{value:.3f}"


def _defined(value: Optional[float]) -> str:
    """Precision, recall or F1: ``n/a`` where undefined (no call predicted / expected)."""
    return "n/a" if value is None else _rate(value)


def _money(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"${value:,.2f}" if value >= 100 else f"${value:.3g}"


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


def tasks_table(run: Any) -> Table:
    """Per-task verdict (pass / flaky / fail), successes, figures and a total row (pass^k
    when tasks repeat; dollars when priced); the run's headline as its caption. Exact match
    gets its own column only where it differs from success.

    Example:
        >>> from ek_otel.scoring import ScoreSettings, score_episodes
        >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
        1
    """
    report = run.report
    with_k = report.k > 1
    table = Table(title="tool-call scores by task", caption=headline_text(report))
    cuts = [*report.per_task.values(), report.overall]
    with_exact = not _exact_is_success(cuts)
    columns = ["task", "verdict"]
    columns += ["prec", "recall", "F1"] + (["exact"] if with_exact else [])
    if with_k:
        columns.append(f"pass^{report.k}")
    columns.append("dollars")
    for name in columns:
        if name == "task":
            table.add_column(name, overflow="fold")
        elif name == "verdict":
            table.add_column(name, no_wrap=True)
        else:
            table.add_column(name, justify="right", no_wrap=True)

    def row(label: str, cut: Any, verdict: str, pass_hat: Optional[float], dollars) -> list:
        cells = [label, f"{verdict} {_success(cut)}".strip(), _defined(cut.precision),
                 _defined(cut.recall), _defined(cut.f1)]
        if with_exact:
            cells.append(_rate(cut.exact_rate))
        if with_k:
            cells.append(_rate(pass_hat))
        cells.append(_money(dollars))
        return cells

    incomplete = getattr(report, "task_cost_incomplete", {})
    for task_id, cut in report.per_task.items():
        verdict = task_verdict(cut.n, cut.successes) or ""
        if verdict:
            verdict = f"[{_VERDICT_STYLE[verdict]}]{verdict}[/]"
        cells = row(task_id, cut, verdict, report.pass_hat_k.get(task_id),
                    run.task_dollars(task_id))
        if cells[-1] == "-" and incomplete.get(task_id):
            cells[-1] = "unknown"  # model calls without usage: not unpriced, unknown
        table.add_row(*cells)
    table.add_section()
    total = row("total", report.overall, "", report.mean_pass_hat_k, report.dollars)
    total[-1] = total_dollars(report)
    table.add_row(*total, style="bold")
    if not with_exact:
        table.caption += "\nsuccess = exact match on every task (shown once)"
    return table


def total_dollars(report: Any) -> str:
    """The total dollars cell: ``≥ $x`` when the total leaves episodes out (unpriced, or
    with model calls that recorded no usage), ``unknown`` when it covers none.

    Example:
        >>> from types import SimpleNamespace as R
        >>> total_dollars(R(dollars=0.0012, n_unpriced=0, n_cost_incomplete=2))
        '≥ $0.0012'
        >>> total_dollars(R(dollars=None, n_unpriced=0, n_cost_incomplete=1))
        'unknown'
        >>> total_dollars(R(dollars=None, n_unpriced=0, n_cost_incomplete=0))
        '-'
    """
    left_out = report.n_unpriced + getattr(report, "n_cost_incomplete", 0)
    if report.dollars is None:
        return "unknown" if getattr(report, "n_cost_incomplete", 0) else "-"
    return f"≥ {_money(report.dollars)}" if left_out else _money(report.dollars)


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
    with_exact = not _exact_is_success(list(run.report.per_slice.values()))
    for name in ("slice", "n", "prec", "recall", "F1") + (("exact",) if with_exact else ()) + (
            "success",):
        if name == "slice":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for name, cut in run.report.per_slice.items():
        cells = [name, str(cut.n), _defined(cut.precision), _defined(cut.recall),
                 _defined(cut.f1)]
        cells += [_rate(cut.exact_rate)] if with_exact else []
        table.add_row(*cells, _rate(cut.success_rate))
    if not with_exact:
        table.caption = "success = exact match (shown once)"
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
