"""A task's verdict from its trials, and the headline of a run.

A task run several times (its *trials*, one episode each) gets one of three verdicts:

- ``pass``: every trial succeeded;
- ``flaky``: some trials succeeded and some did not;
- ``fail``: no trial succeeded.

A trial's success is the episode's ``success`` (for a task that expects no call: no call
made), so the verdict needs only the number of trials and of successes. The **headline** of
a run counts both: ``"5 of 9 runs passed; tasks: 1 pass, 2 flaky, 1 fail"``.

Pure Python, no imports above the standard library.

Example:
    >>> task_verdict(3, 3), task_verdict(3, 1), task_verdict(2, 0), task_verdict(0, 0)
    ('pass', 'flaky', 'fail', None)
    >>> headline_of([(3, 2), (2, 1), (2, 0), (2, 2)]).text
    '5 of 9 runs passed; tasks: 1 pass, 2 flaky, 1 fail'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

__all__ = ["VERDICTS", "task_verdict", "Headline", "headline_of"]

#: The verdicts, best first.
VERDICTS = ("pass", "flaky", "fail")


def task_verdict(trials: int, successes: int) -> Optional[str]:
    """``pass``, ``flaky`` or ``fail`` for a task with ``successes`` of ``trials``; None
    without trials.

    Raises:
        ValueError: counts that are negative or more successes than trials.

    Example:
        >>> task_verdict(1, 1), task_verdict(4, 3), task_verdict(1, 0)
        ('pass', 'flaky', 'fail')
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return None
    if successes == trials:
        return "pass"
    return "flaky" if successes else "fail"


@dataclass(frozen=True)
class Headline:
    """What a run comes to: runs (episodes) that passed, and tasks by verdict.

    Example:
        >>> h = Headline(runs=9, runs_passed=5, tasks=4, passed=1, flaky=2, failed=1)
        >>> h.to_dict()["text"]
        '5 of 9 runs passed; tasks: 1 pass, 2 flaky, 1 fail'
    """

    runs: int = 0
    runs_passed: int = 0
    tasks: int = 0
    passed: int = 0
    flaky: int = 0
    failed: int = 0

    @property
    def text(self) -> str:
        """The one line shown above a run's tables."""
        runs = "run" if self.runs == 1 else "runs"
        return (f"{self.runs_passed} of {self.runs} {runs} passed; tasks: {self.passed} pass, "
                f"{self.flaky} flaky, {self.failed} fail")

    def to_dict(self) -> dict:
        """The JSON report's ``headline``: the counts, and ``text``.

        Example:
            >>> sorted(Headline().to_dict())
            ['fail', 'flaky', 'pass', 'runs', 'runs_passed', 'tasks', 'text']
        """
        return {"runs": self.runs, "runs_passed": self.runs_passed, "tasks": self.tasks,
                "pass": self.passed, "flaky": self.flaky, "fail": self.failed,
                "text": self.text}


def headline_of(tasks: Iterable[tuple]) -> Headline:
    """The :class:`Headline` of ``(trials, successes)`` pairs, one per task (tasks without
    trials are left out).

    Example:
        >>> headline_of([(1, 1), (0, 0)]).text
        '1 of 1 run passed; tasks: 1 pass, 0 flaky, 0 fail'
    """
    counts = dict.fromkeys(VERDICTS, 0)
    runs = runs_passed = 0
    for trials, successes in tasks:
        verdict = task_verdict(trials, successes)
        if verdict is None:
            continue
        counts[verdict] += 1
        runs += trials
        runs_passed += successes
    return Headline(runs=runs, runs_passed=runs_passed, tasks=sum(counts.values()),
                    passed=counts["pass"], flaky=counts["flaky"], failed=counts["fail"])
