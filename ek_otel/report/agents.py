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
from typing import Any

from ..core.agents import AgentRow, agent_rows

__all__ = ["AgentRow", "agent_table"]


def agent_table(episodes: Iterable[Mapping[str, Any]]) -> list:
    """One :class:`~ek_otel.core.agents.AgentRow` per agent named in the episodes' rows, by
    name; ``[]`` when none is (single-agent runs). The counting is
    :func:`ek_otel.core.agents.agent_rows`'.

    Example:
        >>> agent_table([{"calls": [{"got": {"tool": "a"}, "gold": None}]}])
        []
    """
    return agent_rows(call for episode in episodes for call in episode.get("calls") or ()
                      if isinstance(call, Mapping))
