"""Gold calls pinned to an agent: in a multi-agent run, a call by another agent is wrong.

Each step carries the agent that made it (:attr:`~ek_otel.core.episode.Step.agent`, read by
ingest from the nearest agent span: ``gen_ai.agent.name``, OpenInference agent spans, the
frameworks' own attributes). A gold call may name ``"agent": "billing"``
(``TaskSpec.call_agents``); paired with a call by another agent, or by none that is known,
the pair disagrees on the pseudo-argument :data:`AGENT_ARG` (a wrong value, weight 1), so it
is not exact and the explanation says who made it.

Example:
    >>> from ek_otel.core.arguments import compare_args
    >>> pred, gold = [("refund", {})], [("refund", {})]
    >>> compare = with_agents(lambda i, j: compare_args("refund", {}, {}), pred, ("planner",),
    ...                       {0: "billing"})
    >>> c = compare(0, 0)
    >>> c.exact, [(d.arg, d.expected, d.got) for d in c.diffs]
    (False, [('@agent', 'billing', 'planner')])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .arguments import ArgComparison
from .scores import ArgDiff

__all__ = ["AGENT_ARG", "AgentRow", "agent_rows", "agents_of", "with_agents"]

#: The name under which a wrong agent shows among a call's argument differences.
AGENT_ARG = "@agent"


def agents_of(pred: Any) -> tuple:
    """The agent of each predicted call (None where unknown): an Episode's or a Trajectory's
    steps, or plain calls (all None).

    Example:
        >>> from ek_otel.core.episode import Step, Trajectory
        >>> agents_of(Trajectory([Step("a", agent="billing"), Step("b")])), agents_of([("a", {})])
        (('billing', None), (None,))
    """
    trajectory = getattr(pred, "trajectory", pred)
    steps = getattr(trajectory, "steps", None)
    if steps is None:
        return tuple(getattr(c, "agent", None) for c in pred)
    return tuple(getattr(s, "agent", None) for s in steps)


def with_agents(compare: Callable[[int, int], ArgComparison], pred_calls: Sequence[tuple],
                pred_agents: Sequence[Optional[str]],
                gold_agents: Mapping[int, str]) -> Callable[[int, int], ArgComparison]:
    """``compare`` with each pinned gold call's agent checked too."""
    def checked(i: int, j: int) -> ArgComparison:
        c = compare(i, j)
        want = gold_agents.get(j)
        if want is None or pred_agents[i] == want:
            return c
        diff = ArgDiff(pred_calls[i][0], AGENT_ARG, "wrong_value", want, pred_agents[i], 1.0)
        return ArgComparison(exact=False, tp=c.tp, fp=c.fp + 1.0, fn=c.fn + 1.0,
                             diffs=c.diffs + (diff,), ruled=c.ruled)
    return checked


@dataclass
class AgentRow:
    """One agent's calls over a run: made, matched (exactly), spurious (paired with no gold
    call), errors (paired, but disagreeing: a wrong argument, or the wrong agent).

    Example:
        >>> AgentRow("billing", calls=2, matched=1).as_list()
        ['billing', 2, 1, 0, 0]
    """

    agent: str
    calls: int = 0
    matched: int = 0
    spurious: int = 0
    errors: int = 0

    def as_list(self) -> list:
        """``[agent, calls, matched, spurious, errors]``."""
        return [self.agent, self.calls, self.matched, self.spurious, self.errors]

    def as_dict(self) -> dict:
        """The row as the JSON report's ``agents`` holds it.

        Example:
            >>> AgentRow("a", 1, 1).as_dict()
            {'agent': 'a', 'calls': 1, 'matched': 1, 'spurious': 0, 'errors': 0}
        """
        return {"agent": self.agent, "calls": self.calls, "matched": self.matched,
                "spurious": self.spurious, "errors": self.errors}


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def agent_rows(rows: Iterable[Any]) -> list:
    """One :class:`AgentRow` per agent named by the call rows (a score's
    :class:`~ek_otel.core.scores.CallRow` objects, or a JSON report's ``calls`` dicts), by
    name; ``[]`` when no row names its agent (single-agent runs). A row with no call made
    (a missing gold call) counts for no agent.

    Example:
        >>> from ek_otel.core.scores import CallRow
        >>> rows = [CallRow(got=("a", {}), gold=("a", {}), exact=True, agent="planner"),
        ...         CallRow(got=("b", {}), agent="billing"), CallRow(gold=("c", {}))]
        >>> [r.as_list() for r in agent_rows(rows)]
        [['billing', 1, 0, 1, 0], ['planner', 1, 1, 0, 0]]
    """
    found: dict = {}
    for call in rows:
        agent = _field(call, "agent")
        if agent is None or _field(call, "got") is None:
            continue
        row = found.get(agent)
        if row is None:
            row = found[agent] = AgentRow(str(agent))
        row.calls += 1
        if _field(call, "gold") is None:
            row.spurious += 1
        elif _field(call, "exact"):
            row.matched += 1
        else:
            row.errors += 1
    return [found[name] for name in sorted(found)]
