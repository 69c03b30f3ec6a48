"""The score of one episode against its task: what the emit stage writes back into the trace.

Example:
    >>> s = EpisodeScore(task_id="t1", trace_id="ab" * 16, tp=1.0, fp=1.0, fn=1.0,
    ...                  precision=0.5, recall=0.5, f1=0.5, exact=False, success=False)
    >>> s.label
    'fail'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .episode import Cost
from .fastinit import fast_init

__all__ = ["Score", "ArgDiff", "CallRow", "EpisodeScore", "DIFF_KINDS"]

#: The kinds of argument difference: a wrong value, a wrong type, an argument the gold
#: requires but the call left out, and one the gold does not have.
DIFF_KINDS = ("wrong_value", "wrong_type", "missing", "unexpected")


@fast_init
@dataclass(frozen=True)
class Score:
    """The result of one metric on one item.

    ``detail`` carries the raw counts (``tp``, ``fp``, ``fn``) so that corpus aggregation
    is micro-averaged; ``explanation`` says in words why the score is what it is.

    Example:
        >>> s = Score(value=0.5, precision=0.5, recall=0.5, f1=0.5, metric="tool_call",
        ...           detail={"tp": 1.0, "fp": 1.0, "fn": 1.0})
        >>> s.detail["tp"], s.f1
        (1.0, 0.5)
    """

    value: float
    precision: Optional[float] = None
    recall: Optional[float] = None
    f1: Optional[float] = None
    metric: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    explanation: str = ""


@fast_init
@dataclass(frozen=True)
class ArgDiff:
    """One argument that disagreed between a predicted call and its gold call.

    Example:
        >>> ArgDiff("refund", "amount", kind="wrong_value", expected=(10,), got=100,
        ...         weight=20.0).kind
        'wrong_value'
    """

    tool: str
    arg: str
    kind: str
    expected: Any = None
    got: Any = None
    weight: float = 1.0


@fast_init
@dataclass(frozen=True)
class CallRow:
    """One line of the matcher's pairing: a predicted call beside the gold call it was paired
    with, a spurious call (``gold`` None) or a missing gold call (``got`` None).

    ``got`` and ``gold`` are ``(tool, args)``; ``turn`` is the gold turn of a multi-turn
    task (a spurious call takes the turn of the paired call before it), None otherwise;
    ``diffs`` are indexes into the score's ``arg_diffs``.

    Example:
        >>> CallRow(got=("refund", {"amount": 355.0}), gold=("refund", {"amount": 35.5}),
        ...         exact=False, diffs=(0,)).diffs
        (0,)
    """

    got: Any = None
    gold: Any = None
    turn: Optional[int] = None
    exact: bool = False
    diffs: tuple = ()
    agent: Optional[str] = None  # the agent that made ``got``, in multi-agent runs


@fast_init
@dataclass(frozen=True)
class EpisodeScore:
    """One episode scored against one task.

    ``tp``/``fp``/``fn`` are cost-weighted counts (call or argument level), so that corpus
    figures are micro-averaged by summing them. ``exact`` is True when every gold call was
    matched exactly and nothing extra was called; ``success`` is the task verdict (the same
    as ``exact`` unless the task's ``match`` mode, its hard rules (``violations``, each a
    :class:`~ek_otel.core.hardrules.Violation`) or a task-specific checker decided otherwise).

    ``precision`` is None when no call was predicted, ``recall`` when none was expected, and
    ``f1`` when neither was (:func:`~ek_otel.core.fields.defined_precision_recall_f1`): such
    an episode is judged by its ``success`` alone (no call made where none was expected).
    """

    task_id: str
    trace_id: str = ""
    metric: str = "tool_call"
    level: str = "call"
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    precision: Optional[float] = 0.0
    recall: Optional[float] = 0.0
    f1: Optional[float] = 0.0
    exact: bool = False
    success: bool = False
    explanation: str = ""
    arg_diffs: tuple = ()
    missing_calls: tuple = ()
    spurious_calls: tuple = ()
    cost: Cost = field(default_factory=Cost)
    dollars: Optional[float] = None
    revision: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)
    calls: tuple = ()  # CallRow: the matcher's pairing, for reports
    answer: Optional["Score"] = None  # the task's expected answer, scored apart (core.answer)
    violations: tuple = ()  # core.hardrules.Violation: hard rules the run broke
    turns: tuple = ()  # core.turns.TurnScore: each user turn's verdict (multi-turn tasks)

    @property
    def label(self) -> str:
        """``"pass"`` or ``"fail"``: the low-cardinality label written back to the trace."""
        return "pass" if self.success else "fail"
