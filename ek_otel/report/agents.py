"""The calls of multi-agent runs by agent: how many each agent made, matched, made wrong
and made beyond the gold.

Read from the episodes of a JSON report: their ``calls`` rows carry ``agent`` in a
multi-agent run (two agents or more) or for a task that pins calls to agents
(:mod:`ek_otel.core.agents`). A row made by a call is **matched** when it agrees with its
gold call exactly, an **error** when it was paired with a gold call but disagrees (a wrong
argument, or the wrong agent), **spurious** when no gold call was paired with it.

Example:
    >>> episodes = [{"calls": [
    ...     {"got": {"tool": "lookup"}, "gold": {"tool": "lookup"}, "exact": True, "agent": "planner"},
    ...     {"got": {"tool": "refund"}, "gold": {"tool": "refund"}, "exact": False, "agent": "billing"},
    ...     {"got": {"tool": "email"}, "gold": None, "exact": False, "agent": "billing"},
    ...     {"got": None, "gold": {"tool": "notify"}, "exact": False}]}]
    >>> [row.as_list() for row in agent_table(episodes)]
    [['billing', 2, 0, 1, 1], ['planner', 1, 1, 0, 0]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AgentRow", "agent_table"]


@dataclass
class AgentRow:
    """One agent's calls over a run.

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


def agent_table(episodes: Iterable[Mapping[str, Any]]) -> list:
    """One :class:`AgentRow` per agent named in the episodes' rows, by name; ``[]`` when
    none is (single-agent runs).

    Example:
        >>> agent_table([{"calls": [{"got": {"tool": "a"}, "gold": None}]}])
        []
    """
    rows: dict = {}
    for episode in episodes:
        for call in episode.get("calls") or ():
            if not isinstance(call, Mapping) or call.get("got") is None or call.get("agent") is None:
                continue
            row = rows.get(call["agent"])
            if row is None:
                row = rows[call["agent"]] = AgentRow(str(call["agent"]))
            row.calls += 1
            if call.get("gold") is None:
                row.spurious += 1
            elif call.get("exact"):
                row.matched += 1
            else:
                row.errors += 1
    return [rows[name] for name in sorted(rows)]
