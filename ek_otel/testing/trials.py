"""Repeated trials of a test: ``@pytest.mark.ek_trials(k=5)`` runs the test body k times
and judges it from how many trials passed, with the verdict words of ``ek-otel score``:
``pass`` (every trial passed), ``flaky`` (some did), ``fail`` (none did).

The rule that accepts the test (:class:`TrialRule`):

- by default, **pass^k**: every one of the k trials must pass;
- ``min_success_rate=r``: at least a share ``r`` of the trials must pass (``r=0.8`` with
  ``k=5``: 4 of 5);
- ``pass_hat_k=t`` (with ``j``, 1 <= j <= k, default k): the unbiased estimate of pass^j
  from the k trials, ``C(c, j) / C(k, j)`` with ``c`` passed, must be at least ``t``. With
  ``j = k`` it is 1 when every trial passed and 0 otherwise, so any ``t`` asks for all k;
  ``j < k`` asks "would j runs in a row pass?" and tolerates some failures.

A trial passes when the body returns without an exception. Function-scoped fixtures are set
up once for the k trials (the body must be repeatable); the ``ek_trace`` fixture starts a
new capture for each trial, so each trial's episodes and scores are its own. An
``async def`` test body is run by ``asyncio.run`` in each trial.

Example:
    >>> rule = rule_of_marker((), {"k": 5, "min_success_rate": 0.8})
    >>> rule.judge(4), rule.judge(3)
    (True, False)
    >>> rule.describe(3)
    'success rate 0.600, needs at least 0.8'
    >>> TrialRule(5).describe(5), TrialRule(10, pass_hat_k=0.5, j=3).judge(9)
    ('pass^5 = 1.000, needs every trial to pass', True)
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
from dataclasses import dataclass
from typing import Any, Optional

from ..core.passk import pass_hat_k
from ..core.verdicts import task_verdict

__all__ = ["TrialRule", "TrialsOutcome", "rule_of_marker", "run_trials"]

_EPSILON = 1e-12


@dataclass(frozen=True)
class TrialRule:
    """How many trials, and what accepts the test (see the module doc)."""

    k: int
    min_success_rate: Optional[float] = None
    pass_hat_k: Optional[float] = None
    j: Optional[int] = None

    def judge(self, passed: int) -> bool:
        """Whether ``passed`` of the k trials accept the test."""
        if self.min_success_rate is not None:
            return passed / self.k + _EPSILON >= self.min_success_rate
        if self.pass_hat_k is not None:
            return pass_hat_k(self.k, passed, self.j or self.k) + _EPSILON >= self.pass_hat_k
        return passed == self.k

    def describe(self, passed: int) -> str:
        """The figure the rule looked at, and what it needs."""
        if self.min_success_rate is not None:
            return f"success rate {passed / self.k:.3f}, needs at least {self.min_success_rate:g}"
        j = self.j or self.k
        figure = pass_hat_k(self.k, passed, j)
        if self.pass_hat_k is not None:
            return f"pass^{j} = {figure:.3f} (from {self.k} trials), needs at least {self.pass_hat_k:g}"
        return f"pass^{self.k} = {figure:.3f}, needs every trial to pass"


def _number(name: str, value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= 1:
        raise ValueError(f"{where}: {name} must be a number in (0, 1], got {value!r}")
    return float(value)


def rule_of_marker(args: tuple, kwargs: dict, where: str = "ek_trials") -> TrialRule:
    """The :class:`TrialRule` of ``ek_trials(k, *, min_success_rate=, pass_hat_k=, j=)``.

    Raises:
        ValueError: a missing or bad ``k``, a threshold outside (0, 1], both thresholds, a
            bad ``j``, or an unknown argument (the message starts with ``where``).

    Example:
        >>> rule_of_marker((3,), {}).k
        3
        >>> rule_of_marker((), {"k": 5, "min_success_rate": 0.8, "pass_hat_k": 0.5})
        Traceback (most recent call last):
        ...
        ValueError: ek_trials: give min_success_rate or pass_hat_k, not both
        >>> rule_of_marker((), {"k": 5, "pass_hat_k": 0.5, "j": 6})
        Traceback (most recent call last):
        ...
        ValueError: ek_trials: j must be an integer from 1 to k (5), got 6
    """
    kwargs = dict(kwargs)
    if len(args) > 1:
        raise ValueError(f"{where}: takes k as its one positional argument, got {len(args)}")
    if args:
        if "k" in kwargs:
            raise ValueError(f"{where}: k given twice")
        kwargs["k"] = args[0]
    unknown = sorted(set(kwargs) - {"k", "min_success_rate", "pass_hat_k", "j"})
    if unknown:
        raise ValueError(f"{where}: unknown argument(s) {', '.join(unknown)} (it takes k, "
                         "min_success_rate, pass_hat_k, j)")
    k = kwargs.get("k")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"{where}: k (the number of trials) must be an integer >= 1, got {k!r}")
    rate, hat, j = kwargs.get("min_success_rate"), kwargs.get("pass_hat_k"), kwargs.get("j")
    if rate is not None and hat is not None:
        raise ValueError(f"{where}: give min_success_rate or pass_hat_k, not both")
    if rate is not None:
        rate = _number("min_success_rate", rate, where)
    if hat is not None:
        hat = _number("pass_hat_k", hat, where)
    if j is not None:
        if hat is None:
            raise ValueError(f"{where}: j is the size of pass^j: it goes with pass_hat_k")
        if isinstance(j, bool) or not isinstance(j, int) or not 1 <= j <= k:
            raise ValueError(f"{where}: j must be an integer from 1 to k ({k}), got {j!r}")
    return TrialRule(k, rate, hat, j)


@dataclass(frozen=True)
class TrialsOutcome:
    """What the k trials gave: how many passed, the verdict, whether the rule accepted it,
    and each failed trial's message (1-based trial number, text)."""

    rule: TrialRule
    passed: int
    accepted: bool
    failures: tuple = ()

    @property
    def verdict(self) -> str:
        """``pass``, ``flaky`` or ``fail``."""
        return task_verdict(self.rule.k, self.passed)

    def message(self) -> str:
        """Why the test failed: the verdict, the rule's figure, and the failed trials (the
        first in full, the others by their first line).

        Example:
            >>> print(TrialsOutcome(TrialRule(3), 1, False, ((2, "AssertionError: x"),
            ...                                                (3, "ValueError: y\\nmore"))).message())
            ek_trials: flaky, 1 of 3 trials passed; pass^3 = 0.000, needs every trial to pass
            trial 2 failed:
              AssertionError: x
            trial 3 failed: ValueError: y
        """
        k = self.rule.k
        lines = [f"ek_trials: {self.verdict}, {self.passed} of {k} trial{'s' if k != 1 else ''} "
                 f"passed; {self.rule.describe(self.passed)}"]
        for index, (number, text) in enumerate(self.failures):
            if index == 0:
                lines.append(f"trial {number} failed:")
                lines.extend("  " + line for line in text.splitlines())
            else:
                lines.append(f"trial {number} failed: {text.splitlines()[0] if text else ''}")
        return "\n".join(lines)


def _failure_text(exc: BaseException, path: Any) -> str:
    """The exception as one block, with where in the test file it was raised."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        if path is not None and tb.tb_frame.f_code.co_filename == str(path):
            where = f" (at {os.path.basename(str(path))}:{tb.tb_lineno})"
        tb = tb.tb_next
    return f"{type(exc).__name__}{where}: {exc}".rstrip()


def run_trials(item: Any, rule: TrialRule, *, failed_exceptions: tuple, session: Any,
               trace: Any = None) -> TrialsOutcome:
    """Run the body of the test ``item`` ``rule.k`` times (the pytest plugin's
    ``pytest_pyfunc_call`` for an ``ek_trials`` test); ``trace`` is its ``ek_trace``
    (:class:`~ek_otel.testing.agent_trace.AgentTrace`), which gets a new capture per trial.
    ``failed_exceptions`` are what make a trial fail (``Exception`` and pytest's
    ``fail``); anything else (a skip, Ctrl-C) stops the test as it would without trials.
    ``session`` is the :class:`~ek_otel.testing.session.Session`.

    Each trial's scored tasks are recorded in the session with the trial's outcome (a task
    succeeds in a trial when the body passed and its scores did); a test that scores nothing
    counts as one task named by its id.
    """
    function = item.obj
    args = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}
    if trace is not None:
        trace.trials_mode = True
    passed = 0
    failures = []
    per_trial = []
    for number in range(1, rule.k + 1):
        if trace is not None and number > 1:
            trace.next_trial()
        try:
            result = function(**args)
            if inspect.iscoroutine(result):
                asyncio.run(result)
        except failed_exceptions as exc:
            failures.append((number, _failure_text(exc, getattr(item, "path", None))))
            ok = False
        else:
            passed += 1
            ok = True
        per_trial.append((ok, dict(trace.trial_tasks) if trace is not None else {}))
    tasks = list(dict.fromkeys(task_id for _, scored in per_trial for task_id in scored))
    for ok, scored in per_trial:
        if not tasks:
            session.record_trial(item.nodeid, ok)
        for task_id in tasks:
            session.record_trial(task_id, ok and scored.get(task_id, True))
    return TrialsOutcome(rule, passed, rule.judge(passed), tuple(failures))
