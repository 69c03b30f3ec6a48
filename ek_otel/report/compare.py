"""Is the candidate better than the base, and where? The comparison of two runs.

Two runs are comparable only when they were scored against the same gold file (its
SHA-256) with the same matcher settings; :func:`check_comparable` refuses otherwise.
:func:`compare_tasks` then works on the tasks both runs scored:

- per task, its status by **success rate**: **regressed** (the rate dropped: pass -> flaky,
  flaky 0.67 -> flaky 0.33, flaky -> fail...), **improved** (it rose) or **unchanged**, with the
  task's verdict (pass / flaky / fail, :mod:`ek_otel.core.verdicts`) in both runs and the
  change in micro F1; regressed tasks first (the largest drops first), then improved ones;
- overall, each run's success rate over the shared tasks with its 95% interval
  (:func:`~ek_otel.report.stats.clustered_interval`), and the difference;
- the paired test (:func:`~ek_otel.report.gate.paired_test`: exact McNemar for one trial
  per task, else a paired sign-flip permutation test on the per-task rates), which says
  "too few tasks" when no result could be significant;
- the power analysis: how many tasks (or trials per task) a drop of 0.1 and 0.2 would need;
- the tasks scored by only one of the runs, listed, never dropped.

Example:
    >>> from ek_otel.report.stats import TaskCounts
    >>> ok, bad = TaskCounts(1, 1, 1, 1.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)
    >>> c = compare_tasks({"a": ok, "b": ok, "c": bad}, {"a": bad, "b": ok, "d": ok})
    >>> [(t.task_id, t.status) for t in c.changes]
    [('a', 'regressed'), ('b', 'unchanged')]
    >>> c.only_in_base, c.only_in_candidate, c.regressed, c.improved, c.test.result
    (('c',), ('d',), 1, 0, 'too few tasks')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.fields import defined_precision_recall_f1
from ..core.verdicts import headline_of
from ..errors import ComparabilityError
from .gate import PairedTest, paired_test, power_analysis
from .model import RunReport
from .stats import Interval, TaskCounts, clustered_interval

__all__ = ["STATUSES", "TaskChange", "Comparison", "check_comparable", "compare_tasks",
           "compare_reports", "FAIL_ON_CHOICES", "DIFFERENCE_NOTE"]

#: A task's status between the two runs, in the order they are listed.
STATUSES = ("regressed", "improved", "unchanged", "only in base", "only in candidate")
#: ``--fail-on-regression`` choices.
FAIL_ON_CHOICES = ("significant", "any")
#: Why a difference has no interval of its own.
DIFFERENCE_NOTE = "no interval of the difference: the paired test decides whether it is significant"


def _f1(counts: TaskCounts) -> Optional[float]:
    return defined_precision_recall_f1(counts.tp, counts.fp, counts.fn)[2]


def _minus(after: Optional[float], before: Optional[float]) -> Optional[float]:
    return None if after is None or before is None else after - before


@dataclass(frozen=True)
class TaskChange:
    """One shared task in both runs.

    Example:
        >>> t = TaskChange("t", TaskCounts(2, 2, 2, 2.0), TaskCounts(2, 1, 1, 1.0, 1.0, 1.0))
        >>> t.status, t.success_delta, t.f1_delta, t.base.verdict, t.candidate.verdict
        ('regressed', -0.5, -0.5, 'pass', 'flaky')
    """

    task_id: str
    base: TaskCounts
    candidate: TaskCounts
    slice: Optional[str] = None

    @property
    def status(self) -> str:
        """``regressed`` (the success rate dropped), ``improved`` (it rose) or ``unchanged``."""
        delta = self.success_delta
        if delta is None or delta == 0:
            return "unchanged"
        return "regressed" if delta < 0 else "improved"

    @property
    def success_delta(self) -> Optional[float]:
        """Candidate success rate minus base success rate."""
        return _minus(self.candidate.rate, self.base.rate)

    @property
    def f1_delta(self) -> Optional[float]:
        """Candidate micro F1 minus base micro F1 on this task (None where undefined)."""
        return _minus(_f1(self.candidate), _f1(self.base))

    def to_dict(self) -> dict:
        """The JSON form (used by ``compare --json`` and the page)."""
        def side(counts: TaskCounts) -> dict:
            return {"episodes": counts.episodes, "successes": counts.successes,
                    "success_rate": counts.rate, "verdict": counts.verdict, "f1": _f1(counts)}

        return {"task_id": self.task_id, "slice": self.slice, "status": self.status,
                "base": side(self.base), "candidate": side(self.candidate),
                "success_delta": self.success_delta, "f1_delta": self.f1_delta}


@dataclass(frozen=True)
class Comparison:
    """The comparison of a candidate run with a base run on their shared tasks.

    ``intervals`` maps ``success_rate`` and ``f1`` to the :class:`Interval` of the difference
    (candidate - base: its estimate, and why it has no interval); ``test`` is the paired test;
    ``power`` the rows of :func:`~ek_otel.report.gate.power_analysis`.
    """

    changes: tuple
    only_in_base: tuple
    only_in_candidate: tuple
    intervals: Mapping[str, Interval]
    test: PairedTest
    power: tuple = ()
    base_label: str = "base"
    candidate_label: str = "candidate"
    base_totals: Mapping[str, Any] = field(default_factory=dict)
    candidate_totals: Mapping[str, Any] = field(default_factory=dict)

    def _count(self, status: str) -> int:
        return sum(1 for c in self.changes if c.status == status)

    @property
    def regressed(self) -> int:
        """How many shared tasks lost success rate."""
        return self._count("regressed")

    @property
    def improved(self) -> int:
        """How many shared tasks gained success rate."""
        return self._count("improved")

    @property
    def unchanged(self) -> int:
        """How many shared tasks kept their success rate."""
        return self._count("unchanged")

    @property
    def p_value(self) -> Optional[float]:
        """The paired test's p-value (None with too few tasks)."""
        return self.test.p_value

    @property
    def significantly_worse(self) -> bool:
        """True when the paired test finds the candidate significantly worse."""
        return self.test.result == "significantly worse"

    def fails(self, on: str) -> bool:
        """Whether ``--fail-on-regression on`` fails: ``significant`` or ``any`` regression.

        Example:
            >>> compare_tasks({}, {}).fails("any")
            False
        """
        if on not in FAIL_ON_CHOICES:
            raise ValueError(f"on must be one of {', '.join(FAIL_ON_CHOICES)}; got {on!r}")
        return self.significantly_worse if on == "significant" else self.regressed > 0

    def to_dict(self) -> dict:
        """The ``ek-otel compare --json`` document.

        Example:
            >>> list(compare_tasks({}, {}).to_dict())[:4]
            ['base', 'candidate', 'shared_tasks', 'difference']
        """
        return {
            "base": {"label": self.base_label, **dict(self.base_totals)},
            "candidate": {"label": self.candidate_label, **dict(self.candidate_totals)},
            "shared_tasks": len(self.changes),
            "difference": {name: iv.to_dict() for name, iv in self.intervals.items()},
            "changes": {"regressed": self.regressed, "improved": self.improved,
                        "unchanged": self.unchanged},
            "test": self.test.to_dict(),
            "significantly_worse": self.significantly_worse,
            "power": [dict(row) for row in self.power],
            "tasks": [c.to_dict() for c in self.changes],
            "only_in_base": list(self.only_in_base),
            "only_in_candidate": list(self.only_in_candidate),
        }


def _order(change: TaskChange) -> tuple:
    """Regressed first (the largest drops first), then improved (the largest gains first),
    then the rest by change in F1."""
    sign = -1.0 if change.status == "improved" else 1.0
    return (STATUSES.index(change.status), sign * (change.success_delta or 0.0),
            sign * (change.f1_delta or 0.0), change.task_id)


def _totals(counts: list) -> dict:
    episodes = sum(c.episodes for c in counts)
    successes = sum(c.successes for c in counts)
    _, _, f1 = defined_precision_recall_f1(sum(c.tp for c in counts), sum(c.fp for c in counts),
                                           sum(c.fn for c in counts))
    low, high = clustered_interval([c.episodes for c in counts], [c.successes for c in counts])
    return {"episodes": episodes, "successes": successes, "f1": f1 if counts else None,
            "success_rate": successes / episodes if episodes else None,
            "success_interval": {"low": low, "high": high},
            "headline": headline_of((c.episodes, c.successes) for c in counts).to_dict()}


def compare_tasks(
    base: Mapping[str, TaskCounts],
    candidate: Mapping[str, TaskCounts],
    *,
    slices: Optional[Mapping[str, Optional[str]]] = None,
    base_label: str = "base",
    candidate_label: str = "candidate",
) -> Comparison:
    """Compare per-task counts (task id -> :class:`TaskCounts`) of two runs.

    ``slices`` (task id -> slice) labels the rows. Totals, the test and the power analysis
    are over the shared tasks with trials in both runs.

    Example:
        >>> ok, bad = TaskCounts(1, 1, 1, 1.0), TaskCounts(1, 0, 0, 0.0, 1.0, 1.0)
        >>> c = compare_tasks({"a": bad, "b": ok}, {"a": ok, "b": ok})
        >>> c.improved, c.changes[0].task_id, c.intervals["success_rate"].estimate
        (1, 'a', 0.5)
    """
    shared = [t for t in base if t in candidate and base[t].episodes and candidate[t].episodes]
    slices = slices or {}
    changes = sorted((TaskChange(t, base[t], candidate[t], slices.get(t)) for t in shared),
                     key=_order)
    base_counts = [base[t] for t in shared]
    cand_counts = [candidate[t] for t in shared]
    base_totals, cand_totals = _totals(base_counts), _totals(cand_counts)
    intervals = {
        "success_rate": Interval(_minus(cand_totals["success_rate"], base_totals["success_rate"]),
                                 None, None, reason=DIFFERENCE_NOTE),
        "f1": Interval(_minus(cand_totals["f1"], base_totals["f1"]), None, None,
                       reason=DIFFERENCE_NOTE),
    }
    test = paired_test([c.rate for c in base_counts], [c.rate for c in cand_counts],
                       [c.episodes for c in base_counts], [c.episodes for c in cand_counts])
    n = len(shared)
    power = power_analysis(base_totals["success_rate"], n,
                           base_totals["episodes"] / n if n else 1.0,
                           cand_totals["episodes"] / n if n else 1.0)
    return Comparison(
        changes=tuple(changes),
        only_in_base=tuple(t for t in base if t not in candidate),
        only_in_candidate=tuple(t for t in candidate if t not in base),
        intervals=intervals,
        test=test,
        power=tuple(power),
        base_label=base_label,
        candidate_label=candidate_label,
        base_totals=base_totals,
        candidate_totals=cand_totals,
    )


def check_comparable(base: RunReport, candidate: RunReport) -> None:
    """Refuse two reports scored with different gold files or matcher settings.

    Raises:
        ComparabilityError: one line naming what differs (or what a report lacks).

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> a = report_from_dict({"aggregate": {}, "per_task": {}, "provenance": {
        ...     "gold_sha256": "aa" * 32, "matcher": {"level": "call"}}}, "a.json")
        >>> b = report_from_dict({"aggregate": {}, "per_task": {}, "provenance": {
        ...     "gold_sha256": "aa" * 32, "matcher": {"level": "arg"}}}, "b.json")
        >>> check_comparable(a, b)
        Traceback (most recent call last):
        ...
        ek_otel.errors.ComparabilityError: not comparable: a.json and b.json were scored with different matcher settings (level: 'call' vs 'arg')
    """
    for report in (base, candidate):
        if len(report.groups) > 1:
            raise ComparabilityError(
                f"not comparable: {report.source} holds {len(report.groups)} runs that must not "
                "be pooled (different model, simulator, suite version or scaffold); its --html "
                "page compares them with each other, or score each run apart")
        if not report.gold_sha256:
            raise ComparabilityError(f"not comparable: {report.source} records no gold sha256 "
                                     "(score it again with this ek-otel)")
    if base.gold_sha256 != candidate.gold_sha256:
        raise ComparabilityError(
            f"not comparable: {base.source} and {candidate.source} were scored against "
            f"different gold files (sha256 {base.gold_sha256[:12]}... vs "
            f"{candidate.gold_sha256[:12]}...)")
    if dict(base.matcher) != dict(candidate.matcher):
        keys = sorted(set(base.matcher) | set(candidate.matcher))
        differ = "; ".join(f"{k}: {base.matcher.get(k)!r} vs {candidate.matcher.get(k)!r}"
                           for k in keys if base.matcher.get(k) != candidate.matcher.get(k))
        raise ComparabilityError(
            f"not comparable: {base.source} and {candidate.source} were scored with different "
            f"matcher settings ({differ})")


def compare_reports(base: RunReport, candidate: RunReport) -> Comparison:
    """Check that two reports are comparable, then compare them task by task.

    Raises:
        ComparabilityError: see :func:`check_comparable`.

    Example:
        >>> from ek_otel.report.model import report_from_dict
        >>> r = report_from_dict({"aggregate": {}, "per_task": {"t": {"episodes": 1, "successes": 1}},
        ...                       "provenance": {"gold_sha256": "ab", "matcher": {}}}, "r.json")
        >>> [c.status for c in compare_reports(r, r).changes]
        ['unchanged']
    """
    check_comparable(base, candidate)
    slices = {t.task_id: t.slice for t in (*candidate.tasks, *base.tasks)}
    return compare_tasks({t.task_id: t.counts for t in base.tasks},
                         {t.task_id: t.counts for t in candidate.tasks}, slices=slices,
                         base_label=base.source, candidate_label=candidate.source)
