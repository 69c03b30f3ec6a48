"""An :class:`~ek_otel.core.episode.Episode` as a plain JSON-ready dict (what ``ek-otel
episodes`` prints, one per line).

Shape: ``{"trace_id", "task_id", "steps": [{"tool", "args", "error", ...}], "cost":
{"input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "retries",
"latency_s"}, "run": {...}, "provenance": {...}, "output", "meta"}``. Steps also carry
``call_id``, ``span_id``, ``agent``, ``agent_span_id`` and ``args_captured``, and
``"hosted": true`` for a tool the model provider ran itself (the key is left out otherwise).

Example:
    >>> from ek_otel.core.episode import Episode, Step, Trajectory, Cost
    >>> d = episode_to_dict(Episode("t1", Trajectory([Step("search", {"q": "x"})]),
    ...                             cost=Cost(input_tokens=3)))
    >>> d["task_id"], d["steps"][0]["tool"], d["steps"][0]["args"], d["cost"]["input_tokens"]
    ('t1', 'search', {'q': 'x'}, 3)
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any

from ..core.episode import Cost, Episode, Step
from ..core.text import utf8_safe
from .turns import USER_TURNS

__all__ = ["step_to_dict", "episode_to_dict", "episode_to_json"]

_COST_FIELDS = tuple(f.name for f in fields(Cost))


def step_to_dict(step: Step, turns: bool = False) -> dict:
    """One step as a dict: tool, args, error first, then the rest.

    Example:
        >>> step_to_dict(Step("f", error="Boom"))["error"]
        'Boom'
    """
    return {
        "tool": step.tool,
        "args": dict(step.args),
        "error": step.error,
        "observation": step.observation,
        "call_id": step.call_id,
        "span_id": step.span_id,
        "agent": step.agent,
        "agent_span_id": step.agent_span_id,
        "args_captured": step.args_captured,
        **({"hosted": True} if step.hosted else {}),
        **({"turn": step.turn} if turns and step.turn is not None else {}),
    }


def episode_to_dict(episode: Episode) -> dict:
    """The episode as a JSON-ready dict (see the module docstring for the shape).

    Example:
        >>> episode_to_dict(Episode("t"))["cost"]["output_tokens"]
        0
    """
    cost = episode.cost or Cost()
    provenance = asdict(episode.provenance) if episode.provenance is not None else {}
    if "instrumentation" in provenance:
        provenance["instrumentation"] = list(provenance["instrumentation"])
    return {
        "trace_id": provenance.get("trace_id", ""),
        "task_id": episode.task_id,
        "steps": [step_to_dict(s, USER_TURNS in episode.meta) for s in episode.trajectory],
        "cost": {name: getattr(cost, name) for name in _COST_FIELDS},
        "run": asdict(episode.run) if episode.run is not None else {},
        "provenance": provenance,
        "output": episode.output,
        "meta": dict(episode.meta),
    }


def episode_to_json(episode: Episode) -> str:
    """One compact JSON line; values JSON cannot hold become strings.

    Example:
        >>> episode_to_json(Episode("t"))[:28]
        '{"trace_id": "", "task_id": '
    """
    return utf8_safe(json.dumps(episode_to_dict(episode), default=_fallback, ensure_ascii=False))


def _fallback(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
