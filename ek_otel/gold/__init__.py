"""gold stage: gold task files, and the gold of other sources.

``ek_otel.gold.gold_from_episodes(episodes, ...)`` makes gold tasks from good runs
(:mod:`ek_otel.gold.traces`; from trace dumps: :func:`ek_otel.gold_from_traces.from_traces`);
``ek_otel.gold.importers`` reads and writes other tools' eval sets. Both are loaded when
first used.

Example:
    >>> import ek_otel.gold as gold
    >>> callable(gold.gold_from_episodes), gold.merge_tasks.__module__
    (True, 'ek_otel.gold.traces')
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["gold_from_episodes", "merge_tasks", "FromTraces"]

_LAZY = {"gold_from_episodes": "traces", "merge_tasks": "traces", "FromTraces": "traces"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
