"""The expected final answer: a task's ``answer`` against the run's final output, scored as
its own metric (``answer``; written back as ``ek.answer``), never mixed into the tool-call
counts.

``answer`` is a gold value as for an argument (:mod:`ek_otel.core.rules`): an admissible
list (the whole answer compared as strings are, case and whitespace folded), or a rule. For
a text answer a number rule (``{"number": 35.5, "abs_tol": 0.01}``, ``{"min":..}``) passes
when a number written in the text satisfies it; a regular expression must match the whole
answer (write ``(?s).*refund.*`` to find a word anywhere, or use ``{"contains": ...}``).

Example:
    >>> from ek_otel.core.rules import Contains, Number
    >>> s = score_answer("Refund issued: 35.50 EUR.", Number(35.5, abs_tol=0.01))
    >>> s.value, s.explanation
    (1.0, "answer: 35.5 ± 0.01, got 'Refund issued: 35.50 EUR.'")
    >>> score_answer(None, Contains("refund")).explanation
    "answer: contains 'refund', but the run recorded no final answer"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Optional

from .episode import AnyOf
from .fields import _show, values_match
from .rules import Number, Rule
from .scores import Score

__all__ = ["ANSWER_METRIC", "score_answer"]

#: The metric name of answer scores (``ek.answer`` when written back).
ANSWER_METRIC = "answer"

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_SHOWN = 80


def _numbers(text: str) -> list:
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _passes(output: Any, answer: Any, canon: Optional[Callable[[Any], Any]]) -> bool:
    if isinstance(answer, Number) and isinstance(output, str):
        return any(answer.matches(n) for n in _numbers(output))
    return values_match(output, answer, canon)


def score_answer(output: Any, answer: Any, canon: Optional[Callable[[Any], Any]] = None) -> Score:
    """1.0 when the run's final output satisfies the task's ``answer``, else 0.0, with an
    explanation naming the rule and what the run said.

    Example:
        >>> score_answer("Paris", AnyOf(("paris", "Paris, France"))).value
        1.0
        >>> score_answer("Lyon", AnyOf(("Paris",))).explanation
        "answer: expected 'Paris', got 'Lyon'"
    """
    wanted = answer.describe() if isinstance(answer, Rule) else "expected " + _show(answer)
    if output is None or (isinstance(output, str) and not output.strip()):
        return Score(0.0, metric=ANSWER_METRIC, detail={"passed": False},
                     explanation=f"answer: {wanted}, but the run recorded no final answer")
    passed = _passes(output, answer, canon)
    shown = output if not isinstance(output, str) or len(output) <= _SHOWN else output[:_SHOWN - 3] + "..."
    return Score(1.0 if passed else 0.0, metric=ANSWER_METRIC, detail={"passed": passed},
                 explanation=f"answer: {wanted}, got {shown!r}")
