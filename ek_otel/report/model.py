"""Reading a JSON report (``ek-otel score --json``, ``ek-otel report --json``) into views.

The HTML page and ``ek-otel compare`` depend on the JSON report as **data**, never on the
scoring code that made it: :func:`load_report` reads a file, :func:`report_from_dict` checks
the shape and gives a :class:`RunReport` of frozen views. Anything the report lacks that a
page can do without (slices, the matcher's pairing, provenance groups, the bad-input
summary) is optional, so older reports still read.

Example:
    >>> r = report_from_dict({"aggregate": {"episodes": 1}, "per_task": {"t": {
    ...     "episodes": 1, "successes": 1, "exact_match": 1.0, "tp": 1.0, "fp": 0.0, "fn": 0.0}},
    ...     "provenance": {"gold_sha256": "ab", "matcher": {"level": "call"}}}, "r.json")
    >>> r.tasks[0].task_id, r.tasks[0].counts.passed, r.gold_sha256
    ('t', True, 'ab')
    >>> report_from_dict([], "x.json")
    Traceback (most recent call last):
    ...
    ek_otel.report.model.ReportFileError: x.json: not an ek-otel JSON report: expected a JSON object
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import orjson

from ..errors import InputError
from .stats import TaskCounts

__all__ = ["ReportFileError", "TaskView", "GroupView", "RunReport", "load_report",
           "report_from_dict", "task_counts", "failing_explanations"]


class ReportFileError(InputError):
    """A JSON report file that cannot be read or is not an ek-otel report (names the file)."""


@dataclass(frozen=True)
class TaskView:
    """One task's figures in a report.

    Example:
        >>> TaskView("t", None, TaskCounts(2, 1), {}).counts.episodes
        2
    """

    task_id: str
    slice: Optional[str]
    counts: TaskCounts
    figures: Mapping[str, Any]


@dataclass(frozen=True)
class GroupView:
    """The episodes of one RunProvenance (model / simulator / suite / scaffold): never pooled.

    Example:
        >>> GroupView(("m", "", "", ""), {}, ()).label
        'm / - / - / -'
    """

    key: tuple
    aggregate: Mapping[str, Any]
    tasks: tuple

    @property
    def label(self) -> str:
        """``model / simulator / suite / scaffold`` with ``-`` for empty parts."""
        return " / ".join(str(part) if part else "-" for part in self.key)


@dataclass(frozen=True)
class RunReport:
    """A JSON report, read and checked. ``data`` is the report itself (embedded in pages).

    Example:
        >>> report_from_dict({"aggregate": {}, "per_task": {}}, "r.json").matcher
        {}
    """

    source: str
    data: Mapping[str, Any]
    tasks: tuple
    groups: tuple = ()

    @property
    def provenance(self) -> Mapping[str, Any]:
        """``evaluator_version``, ``gold_sha256``, ``matcher``; empty when absent."""
        value = self.data.get("provenance")
        return value if isinstance(value, Mapping) else {}

    @property
    def gold_sha256(self) -> str:
        """The SHA-256 of the gold file the runs were scored against ('' when unknown)."""
        return str(self.provenance.get("gold_sha256") or "")

    @property
    def matcher(self) -> Mapping[str, Any]:
        """The matcher settings (matcher, level, strategy, canonicalizer)."""
        value = self.provenance.get("matcher")
        return value if isinstance(value, Mapping) else {}

    def task(self, task_id: str) -> Optional[TaskView]:
        """The view of one task, or None.

        Example:
            >>> report_from_dict({"aggregate": {}, "per_task": {}}, "r").task("x") is None
            True
        """
        for view in self.tasks:
            if view.task_id == task_id:
                return view
        return None


def failing_explanations(episodes: Any, per_task: int = 2, *, group: Optional[int] = None) -> dict:
    """task id -> the first ``per_task`` distinct explanations of its failed episodes (the
    JSON report's ``episodes``, read once: a stream of rows will do); with ``group``, only the
    episodes of that provenance group (their ``group`` index).

    Example:
        >>> failing_explanations([{"task_id": "t", "success": False, "explanation": "wrong city"},
        ...                       {"task_id": "t", "success": True, "explanation": "ok"}])
        {'t': ['wrong city']}
    """
    out: dict = {}
    for episode in episodes or ():
        if not isinstance(episode, Mapping) or episode.get("success"):
            continue
        if group is not None and episode.get("group") != group:
            continue
        task_id = str(episode.get("task_id"))
        text = str(episode.get("explanation") or "").strip()
        seen = out.setdefault(task_id, [])
        if text and text not in seen and len(seen) < per_task:
            seen.append(text)
    return out


def _number(value: Any, where: str, source: str, *, optional: bool = False) -> Optional[float]:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise ReportFileError(f"not an ek-otel JSON report: {where} must be a number, "
                              f"got {value!r:.60}", path=source)
    return value


def task_counts(figures: Mapping[str, Any], where: str = "per_task", source: str = "") -> TaskCounts:
    """The :class:`~ek_otel.report.stats.TaskCounts` of one ``per_task`` entry.

    The exact-match count is ``exact_match * episodes`` rounded (the report keeps the rate).

    Example:
        >>> task_counts({"episodes": 4, "successes": 2, "exact_match": 0.75, "tp": 3.0,
        ...              "fp": 1.0, "fn": 1.0, "dollars": 0.5, "pass_at_k": 1.0}).exact
        3
    """
    episodes = int(_number(figures.get("episodes"), f"{where}.episodes", source))
    exact_rate = _number(figures.get("exact_match"), f"{where}.exact_match", source, optional=True)
    return TaskCounts(
        episodes=episodes,
        successes=int(_number(figures.get("successes"), f"{where}.successes", source)),
        exact=int(round((exact_rate or 0.0) * episodes)),
        tp=float(_number(figures.get("tp", 0.0), f"{where}.tp", source)),
        fp=float(_number(figures.get("fp", 0.0), f"{where}.fp", source)),
        fn=float(_number(figures.get("fn", 0.0), f"{where}.fn", source)),
        dollars=_number(figures.get("dollars"), f"{where}.dollars", source, optional=True),
        pass_at_k=_number(figures.get("pass_at_k"), f"{where}.pass_at_k", source, optional=True),
        pass_hat_k=_number(figures.get("pass_hat_k"), f"{where}.pass_hat_k", source,
                           optional=True),
    )


def _tasks(per_task: Any, where: str, source: str) -> tuple:
    if not isinstance(per_task, Mapping):
        raise ReportFileError(f"not an ek-otel JSON report: {where} must be an object",
                              path=source)
    views = []
    for task_id, figures in per_task.items():
        if not isinstance(figures, Mapping):
            raise ReportFileError(f"not an ek-otel JSON report: {where}[{task_id!r:.60}] must be "
                                  "an object", path=source)
        name = f"{where}[{task_id!r:.60}]"
        slice_name = figures.get("slice")
        views.append(TaskView(str(task_id), None if slice_name is None else str(slice_name),
                              task_counts(figures, name, source), figures))
    return tuple(views)


def report_from_dict(data: Any, source: str) -> RunReport:
    """Check a decoded JSON report and give its :class:`RunReport`.

    Raises:
        ReportFileError: not an object, or without ``aggregate`` and ``per_task``, or with
            figures that are not numbers; the message names ``source``.

    Example:
        >>> report_from_dict({"aggregate": {}, "per_task": {"t": {"episodes": 1}}}, "r.json")
        Traceback (most recent call last):
        ...
        ek_otel.report.model.ReportFileError: r.json: not an ek-otel JSON report: per_task['t'].successes must be a number, got None
    """
    if not isinstance(data, Mapping):
        raise ReportFileError("not an ek-otel JSON report: expected a JSON object", path=source)
    for key in ("aggregate", "per_task"):
        if key not in data:
            raise ReportFileError(f"not an ek-otel JSON report: no {key!r} key (make it with "
                                  "`ek-otel score --json` or `ek-otel report --json`)",
                                  path=source)
    if not isinstance(data["aggregate"], Mapping):
        raise ReportFileError("not an ek-otel JSON report: 'aggregate' must be an object",
                              path=source)
    for key in ("episodes", "unmatched"):
        if key in data and not isinstance(data[key], list):
            raise ReportFileError(f"not an ek-otel JSON report: {key!r} must be a list",
                                  path=source)
    groups = []
    for i, group in enumerate(data.get("groups") or ()):
        if not isinstance(group, Mapping):
            raise ReportFileError(f"not an ek-otel JSON report: groups[{i}] must be an object",
                                  path=source)
        groups.append(GroupView(tuple(group.get("key") or ()), group.get("aggregate") or {},
                                _tasks(group.get("per_task") or {}, f"groups[{i}].per_task",
                                       source)))
    return RunReport(source, data, _tasks(data["per_task"], "per_task", source), tuple(groups))


def load_report(path: str) -> RunReport:
    """Read and check a JSON report file.

    Raises:
        ReportFileError: the file cannot be read, is not JSON, or is not an ek-otel report.

    Example:
        >>> load_report("/no/such/report.json")
        Traceback (most recent call last):
        ...
        ek_otel.report.model.ReportFileError: /no/such/report.json: cannot read the report: No such file or directory
    """
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise ReportFileError(f"cannot read the report: {exc.strerror or exc}", path=path) from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ReportFileError(f"not JSON: {exc}", path=path) from None
    return report_from_dict(data, path)
