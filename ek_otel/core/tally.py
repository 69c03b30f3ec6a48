"""Corpus figures added up one score at a time, so that a corpus of millions of episodes is
aggregated without holding its scores.

- :class:`RunningSum` is ``sum(values)`` fed one value at a time: the same float, bit for
  bit, as the builtin over the same values in the same order (from Python 3.12 the builtin
  adds floats with Neumaier's compensated summation, and so does this).
- :class:`CutTally` gathers the figures of one cut of the corpus (all of it, a task, a
  slice, a provenance group) and gives its :class:`CutFigures` (the shape the corpus report,
  :mod:`ek_otel.core.reports`, holds per cut).
- :class:`DollarTally` is the summed dollars of some scores: ``value`` None unless every one
  is priced, ``known`` over the priced ones (what it leaves out counted by reason).

A score here is anything with the attributes of :class:`~ek_otel.core.scores.EpisodeScore`
that the figures read: ``task_id``, ``tp``, ``fp``, ``fn``, ``exact``, ``success``, ``cost``
and ``dollars`` (the spool of :mod:`ek_otel.scoring.spool` hands out such light records).

Example:
    >>> values = [0.1] * 10
    >>> total = RunningSum()
    >>> for v in values:
    ...     total.add(v)
    >>> total.value == sum(values)
    True
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .fields import counts_and_rates

__all__ = ["RunningSum", "CutFigures", "CutTally", "DollarTally"]

#: Whether the builtin ``sum`` compensates float rounding (Python 3.12 and later).
_COMPENSATED = sys.version_info >= (3, 12)


class RunningSum:
    """``sum(values)`` (start 0) fed one value at a time (module doc).

    Example:
        >>> s = RunningSum()
        >>> s.value
        0
        >>> for v in (1e16, 1.0, -1e16):
        ...     s.add(v)
        >>> s.value == sum([1e16, 1.0, -1e16])
        True
    """

    __slots__ = ("total", "low")

    def __init__(self) -> None:
        self.total: Any = 0
        self.low = 0.0  # the compensation of the float fast path (3.12+)

    def add(self, x: Any) -> None:
        total = self.total
        if _COMPENSATED and type(total) is float:
            if type(x) is float:
                t = total + x
                if abs(total) >= abs(x):
                    self.low += (total - t) + x
                else:
                    self.low += (x - t) + total
                self.total = t
                return
            if type(x) is int and -(2 ** 63) <= x < 2 ** 63:
                self.total = total + float(x)
                return
            total = self.value  # the builtin leaves its fast path with the compensation added
            self.low = 0.0
        self.total = total + x

    @property
    def value(self) -> Any:
        """The sum so far, as the builtin would return it."""
        low = self.low
        if low and math.isfinite(low):
            return self.total + low
        return self.total


class DollarTally:
    """Summed dollars; rounded to 12 decimals, as reports print them.

    ``value`` is None unless every score added is priced (and at least one was added);
    ``known`` is the sum over the priced ones (None when none is): a total that leaves out
    ``unpriced`` scores (a complete cost that could not be priced) and ``incomplete`` ones
    (model calls without usage: their cost is unknown, see
    :attr:`~ek_otel.core.episode.Cost.complete`); ``successes`` counts the priced
    successful ones (what dollars per solved task divides by).

    Example:
        >>> d = DollarTally()
        >>> d.value
        >>> d.add(0.25); d.add(0.5); d.value
        0.75
        >>> d.add(None); d.value, d.known, d.unpriced
        (None, 0.75, 1)
        >>> d.add(None, complete=False); d.left_out, d.incomplete
        (2, 1)
    """

    __slots__ = ("total", "n", "unpriced", "incomplete", "successes")

    def __init__(self) -> None:
        self.total = RunningSum()
        self.n = 0
        self.unpriced = 0
        self.incomplete = 0
        self.successes = 0

    def add(self, dollars: Optional[float], complete: bool = True, success: bool = False) -> None:
        self.n += 1
        if dollars is None:
            if complete:
                self.unpriced += 1
            else:
                self.incomplete += 1
            return
        self.total.add(dollars)
        if success:
            self.successes += 1

    @property
    def left_out(self) -> int:
        """How many scores the ``known`` total leaves out."""
        return self.unpriced + self.incomplete

    @property
    def value(self) -> Optional[float]:
        if not self.n or self.left_out:
            return None
        return round(self.total.value, 12)

    @property
    def known(self) -> Optional[float]:
        if self.n == self.left_out:
            return None
        return round(self.total.value, 12)


@dataclass(frozen=True)
class CutFigures:
    """The figures of one cut of the corpus (all of it, one task, or one slice).

    Rates are None for an empty cut. ``value_weighted_success`` is the summed task value of
    successful episodes over the summed task value of all of them.

    Example:
        >>> CutFigures.of([]).n, CutFigures.of([]).f1
        (0, None)
    """

    n: int = 0
    successes: int = 0
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    precision: Optional[float] = None
    recall: Optional[float] = None
    f1: Optional[float] = None
    exact_rate: Optional[float] = None
    success_rate: Optional[float] = None
    value_weighted_success: Optional[float] = None

    @classmethod
    def of(cls, scored: Sequence[tuple]) -> "CutFigures":
        """Figures over ``(EpisodeScore, task_value)`` pairs (micro-averaged).

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> f = CutFigures.of([(EpisodeScore("t", tp=1.0, exact=True, success=True), 2.0),
            ...                    (EpisodeScore("t", fn=1.0), 1.0)])
            >>> f.n, f.f1, f.exact_rate, round(f.value_weighted_success, 3)
            (2, 0.6666666666666666, 0.5, 0.667)
        """
        tally = CutTally()
        for score, value in scored:
            tally.add(score, value)
        return tally.figures()


class CutTally:
    """The running figures of one cut: :meth:`add` each ``(score, task value)``, then
    :meth:`figures` gives what :meth:`CutFigures.of` gives over the
    same pairs in the same order.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> cut = CutTally()
        >>> cut.add(EpisodeScore("t", tp=1.0, exact=True, success=True), 2.0)
        >>> cut.add(EpisodeScore("t", fn=1.0), 1.0)
        >>> f = cut.figures()
        >>> f.n, f.f1, f.exact_rate, round(f.value_weighted_success, 3)
        (2, 0.6666666666666666, 0.5, 0.667)
    """

    __slots__ = ("n", "successes", "exact", "tp", "fp", "fn", "value", "won")

    def __init__(self) -> None:
        self.n = 0
        self.successes = 0
        self.exact = 0
        self.tp, self.fp, self.fn = RunningSum(), RunningSum(), RunningSum()
        self.value, self.won = RunningSum(), RunningSum()

    def add(self, score: Any, value: float) -> None:
        self.n += 1
        self.tp.add(score.tp)
        self.fp.add(score.fp)
        self.fn.add(score.fn)
        self.value.add(value)
        if score.success:
            self.successes += 1
            self.won.add(value)
        if score.exact:
            self.exact += 1

    def figures(self) -> Any:
        """The :class:`CutFigures` of the scores added."""
        n = self.n
        if not n:
            return CutFigures()
        total_value = self.value.value
        return CutFigures(
            n=n,
            successes=self.successes,
            **counts_and_rates(self.tp.value, self.fp.value, self.fn.value),
            exact_rate=self.exact / n,
            success_rate=self.successes / n,
            value_weighted_success=(self.won.value / total_value) if total_value else None,
        )
