"""Gold values as the formats of other tools hold them: one exact value per argument.

ADK eval sets, DeepEval goldens and LangChain reference trajectories hold one value per
argument, no admissible sets and no rules: :func:`exact_args` writes the first admissible
value and notes each loss (the wording of the notes is ADK's, the first format written;
:mod:`ek_otel.gold.importers` lists the formats). :func:`gold_args` is the way back: each
value the one admissible one. :func:`input_text` is a task's input as one string.

Example:
    >>> gold_args({"city": "Paris"})
    {'city': ['Paris']}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.episode import AnyOf
from ..core.rules import Rule

__all__ = ["exact_value", "exact_args", "gold_args", "input_text"]


def gold_args(args: Mapping) -> dict:
    """A call's arguments as a native gold call holds them: each value its one admissible value.

    Example:
        >>> gold_args({"q": "cats", "n": 2})
        {'q': ['cats'], 'n': [2]}
    """
    return {arg: [value] for arg, value in args.items()}


def input_text(task: Any) -> str:
    """A task's input as one string: its text, its turns' inputs joined with ``" / "``, or ``""``.

    Example:
        >>> from ek_otel.core.episode import TaskSpec
        >>> input_text(TaskSpec("t", input=["hi", "and then?"])), input_text(TaskSpec("t"))
        ('hi / and then?', '')
    """
    return task.input if isinstance(task.input, str) else (
        " / ".join(task.input) if isinstance(task.input, list) else "")


def exact_value(value: Any, where: str, notes: list) -> Any:
    """One exact value for a gold value, as formats without admissible sets or rules hold it
    (the first admissible value other than ``""``; a rule: None), each loss noted.

    Example:
        >>> from ek_otel.core.rules import AnyValue
        >>> notes = []
        >>> exact_value(AnyOf(("", "c", "f")), "t.unit", notes), exact_value(AnyValue(), "t.id", notes)
        ('c', None)
        >>> notes
        ['t.unit: ADK takes one value; the first of 3 admissible values is written', "t.id: the rule 'any value' has no ADK form; its value is left out"]
    """
    if isinstance(value, Rule):
        notes.append(f"{where}: the rule '{value.describe()}' has no ADK form; its value is left out")
        return None
    if isinstance(value, AnyOf):
        shown = [v for v in value.values if v != ""]
        if len(value.values) > 1:
            notes.append(f"{where}: ADK takes one value; the first of {len(value.values)} admissible "
                         f"values is written")
        return shown[0] if shown else None
    return value


def exact_args(args: Mapping, where: str, notes: list) -> dict:
    """One exact value per argument (what the other formats hold), each loss noted; an
    argument without one is left out.

    Example:
        >>> exact_args({"x": AnyOf((1,)), "y": 2}, "t: calls[0].f", [])
        {'x': 1, 'y': 2}
    """
    written = {}
    for arg, value in args.items():
        exact = exact_value(value, f"{where}.{arg}", notes)
        if exact is not None:
            written[arg] = exact
    return written
