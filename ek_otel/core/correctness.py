"""``ToolCorrectnessMetric``: the API deepeval and agensight users know, with their defects fixed.

A drop-in for ``deepeval.metrics.ToolCorrectnessMetric`` (4.3.1) on deterministic settings:
``measure(test_case)`` returns the score and sets ``.score``, ``.reason`` and ``.success``.
The LLM-judged ``available_tools`` part of deepeval is not reproduced (its tool-selection
score is 1 when no available tools are given, which is the case reproduced here).

Example:
    >>> A, B = ToolCall("A"), ToolCall("B")
    >>> m = ToolCorrectnessMetric()
    >>> m.measure(ModelTestCase("q", "a", tools_called=[A], expected_tools=[A, B]))
    0.5
    >>> m.success, m.reason
    (True, "Incomplete tool usage: missing tools ['B']; expected ['A', 'B'], called ['A'].")
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .episode import as_call
from .assignment import hungarian_max, weighted_lcs

__all__ = ["ToolCall", "ToolCallParams", "ModelTestCase", "LLMTestCase", "ToolCorrectnessMetric"]


class ToolCallParams(enum.Enum):
    """What besides the tool name a match must agree on (deepeval's enum).

    Example:
        >>> ToolCallParams.INPUT_PARAMETERS.value
        'input_parameters'
    """

    INPUT_PARAMETERS = "input_parameters"
    OUTPUT = "output"


@dataclass(frozen=True, eq=True)
class ToolCall:
    """One tool call: a name, its input parameters and its output (deepeval's ``ToolCall``).

    Example:
        >>> ToolCall("get_weather", {"city": "Paris"}).input_parameters
        {'city': 'Paris'}
        >>> ToolCall.of(("search", {"q": "x"}))
        ToolCall(name='search', input_parameters={'q': 'x'}, output=None)
    """

    name: str
    input_parameters: Optional[Mapping[str, Any]] = None
    output: Any = None

    __hash__ = None  # type: ignore[assignment]  # parameters are dicts

    @classmethod
    def of(cls, x: Any) -> "ToolCall":
        """Coerce a ToolCall, a Step, a ``(tool, args)`` pair, a dict or a name."""
        if isinstance(x, ToolCall):
            return x
        name, args = as_call(x)
        output = getattr(x, "observation", None)
        return cls(name, dict(args) if args else None, output)


@dataclass(frozen=True)
class ModelTestCase:
    """One test case: the input, the answer, the tools called and the tools expected.

    ``LLMTestCase`` is the same class, under deepeval's name.

    Example:
        >>> tc = LLMTestCase("q", "a", tools_called=[ToolCall("A")], expected_tools=[])
        >>> len(tc.tools_called), tc.expected_tools
        (1, ())
    """

    input: Any = None
    actual_output: Any = None
    tools_called: Optional[Sequence[Any]] = None
    expected_tools: Optional[Sequence[Any]] = None

    def __post_init__(self) -> None:
        for name in ("tools_called", "expected_tools"):
            value = getattr(self, name)
            object.__setattr__(
                self, name, tuple(ToolCall.of(t) for t in value) if value is not None else ()
            )


LLMTestCase = ModelTestCase


def _names(calls: Sequence[ToolCall]) -> list:
    return [c.name for c in calls]


class ToolCorrectnessMetric:
    """Tool-calling correctness with deepeval's parameters and scores.

    Modes (``E`` expected calls, ``C`` calls made; a pair must share the tool name):

    - default: the sum of the best one-to-one pair similarities divided by ``|E|``; extra
      calls are not penalized (recall only);
    - ``should_consider_ordering``: a weighted longest common subsequence over the pair
      similarities, divided by ``|E|``;
    - ``should_exact_match``: 1 only if both lists have the same length and each position has
      the same name (and equal parameters / output when those are evaluated), else 0.

    A pair's similarity is 1, times the parameter similarity when ``INPUT_PARAMETERS`` is
    evaluated (1 for equal dicts, else the sum over shared equal-valued keys of
    ``1/|K1 ∪ K2|``, nested dicts recursing; Python ``==``, so ``3 == 3.0`` and case and list
    order matter), and 0 when ``OUTPUT`` is evaluated and the outputs differ. ``E = ∅`` scores
    1 if no call was made, else 0. ``strict_mode`` sets the threshold to 1 and turns any
    score below it into 0; ``success = score >= threshold``.

    Deviations from deepeval 4.3.1, each a confirmed defect there:

    1. **Duplicates.** deepeval keeps matched calls in a value-equality set, so a second
       identical call can never be matched: ``[A, A]`` vs ``[A, A]`` scores 0.5 there
       (deepeval #3141). Here calls are matched by position: 1.0.
    2. **Greedy matching.** deepeval lets each expected call, in order, grab its best free
       call, which can lose credit: expected ``[A(x=1,y=1), A(x=1,y=2)]``, called
       ``[A(x=1,y=2), A(x=9,y=1)]`` scores 0.25 there. Here the maximum-weight assignment
       is used: 0.75.
    3. **Empty reasons.** deepeval can say "Incorrect tool usage: ;". Reasons here always
       name what went wrong, and list only what is really missing (deepeval's "missing
       tools" list also holds calls that were made with other parameters).

    Also: ``input_parameters=None`` reads as ``{}``, and two equal parameter dicts
    (including two empty ones) have similarity 1. Reason texts follow deepeval's templates
    but are not byte-identical; scores are what is compatible.

    Example:
        >>> T = lambda n, **kw: ToolCall(n, kw or None)
        >>> m = ToolCorrectnessMetric(evaluation_params=[ToolCallParams.INPUT_PARAMETERS])
        >>> m.measure(ModelTestCase("q", "a", tools_called=[T("A", x=1, y=2), T("A", x=9, y=1)],
        ...                         expected_tools=[T("A", x=1, y=1), T("A", x=1, y=2)]))
        0.75
        >>> ToolCorrectnessMetric().measure(ModelTestCase("q", "a", [T("A"), T("A")],
        ...                                               [T("A"), T("A")]))
        1.0
    """

    def __init__(
        self,
        threshold: float = 0.5,
        evaluation_params: Optional[Sequence[ToolCallParams]] = None,
        include_reason: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
        should_consider_ordering: bool = False,
        should_exact_match: bool = False,
        **_ignored: Any,
    ) -> None:
        self.threshold = 1.0 if strict_mode else float(threshold)
        self.evaluation_params = list(evaluation_params or [])
        self.include_reason = include_reason
        self.strict_mode = strict_mode
        self.verbose_mode = verbose_mode
        self.should_consider_ordering = should_consider_ordering
        self.should_exact_match = should_exact_match
        self.score: Optional[float] = None
        self.reason: Optional[str] = None
        self.success: Optional[bool] = None
        self.verbose_logs: Optional[str] = None
        self.error: Optional[str] = None

    @property
    def __name__(self) -> str:  # deepeval exposes the metric name this way
        return "Tool Correctness"

    # -- similarity -------------------------------------------------------------------

    def _params_sim(self, expected: Optional[Mapping], called: Optional[Mapping]) -> float:
        return _dict_similarity(dict(expected or {}), dict(called or {}))

    def _pair_sim(self, expected: ToolCall, called: ToolCall) -> float:
        if expected.name != called.name:
            return 0.0
        sim = 1.0
        if ToolCallParams.INPUT_PARAMETERS in self.evaluation_params:
            sim *= self._params_sim(expected.input_parameters, called.input_parameters)
        if ToolCallParams.OUTPUT in self.evaluation_params and expected.output != called.output:
            sim = 0.0
        return sim

    # -- the three modes ---------------------------------------------------------------

    def _exact(self, expected: Sequence[ToolCall], called: Sequence[ToolCall]) -> tuple:
        label = f"expected {_names(expected)}, called {_names(called)}"
        if len(expected) != len(called):
            return 0.0, f"Not an exact match: {label} (different numbers of calls)."
        for pos, (e, c) in enumerate(zip(expected, called)):
            problem = None
            if e.name != c.name:
                problem = f"call {pos + 1} is {c.name!r}, not {e.name!r}"
            elif (ToolCallParams.INPUT_PARAMETERS in self.evaluation_params
                  and dict(e.input_parameters or {}) != dict(c.input_parameters or {})):
                problem = f"call {pos + 1} ({e.name!r}) has different input parameters"
            elif ToolCallParams.OUTPUT in self.evaluation_params and e.output != c.output:
                problem = f"call {pos + 1} ({e.name!r}) has a different output"
            if problem:
                return 0.0, f"Not an exact match: {label}; {problem}."
        return 1.0, f"Exact match: {label}."

    def _matched(self, expected: Sequence[ToolCall], called: Sequence[ToolCall],
                 ordered: bool) -> tuple:
        """Pair expected with called calls (order-preserving or not), score and explain.

        The score is the summed similarity of the pairs over ``len(expected)``. Unordered:
        the maximum-weight assignment; ordered: the weighted longest common subsequence,
        where an expected tool that was called, but not in its place, is "out of order".
        """
        sim = [[self._pair_sim(e, c) for c in called] for e in expected]
        if ordered:
            pairs = weighted_lcs(len(expected), len(called),
                                 lambda i, j: (sim[i][j],) if sim[i][j] > 0 else None)
        else:
            pairs = [(r, c) for r, c in hungarian_max(sim) if sim[r][c] > 0]
        score = sum(sim[r][c] for r, c in pairs) / len(expected)
        if score >= 1.0:
            if ordered:
                return 1.0, (f"Correct ordering: all expected tools {_names(expected)} were "
                             "called in the correct order.")
            return 1.0, (f"All expected tools {_names(expected)} were called "
                         "(order not considered).")
        matched = {r for r, _ in pairs}
        called_names = Counter(_names(called))
        missing, out_of_order = [], []
        for r, e in enumerate(expected):
            if r in matched:
                continue
            if ordered and called_names[e.name] > 0:
                out_of_order.append(e.name)
            else:
                missing.append(e.name)
        partial = [(expected[r], sim[r][c]) for r, c in pairs if sim[r][c] < 1.0]
        problems = []
        if missing:
            problems.append(f"missing tools {missing}")
        if out_of_order:
            problems.append(f"out-of-order tools {out_of_order}")
        if partial:
            problems.append(self._partial_text(partial))
        verdict = "Incorrect tool usage" if ordered else "Incomplete tool usage"
        return score, (f"{verdict}: {'; '.join(problems)}; "
                       f"expected {_names(expected)}, called {_names(called)}.")

    def _partial_text(self, partial: list) -> str:
        what = []
        if ToolCallParams.INPUT_PARAMETERS in self.evaluation_params:
            what.append("input parameters")
        if ToolCallParams.OUTPUT in self.evaluation_params:
            what.append("output")
        shown = ", ".join(f"{e.name!r} ({s:.2f})" for e, s in partial)
        return f"tools called with differing {' or '.join(what) or 'details'}: [{shown}]"

    # -- the public API ----------------------------------------------------------------

    def calculate_score(self, test_case: ModelTestCase) -> tuple:
        """The raw ``(score, reason)`` before strict mode and threshold.

        Example:
            >>> ToolCorrectnessMetric().calculate_score(ModelTestCase(tools_called=[ToolCall("A")],
            ...                                                       expected_tools=[]))
            (0.0, "No tools were expected, but ['A'] were called.")
        """
        expected = list(test_case.expected_tools or ())
        called = list(test_case.tools_called or ())
        if self.should_exact_match:
            return self._exact(expected, called)
        if not expected:
            if not called:
                return 1.0, "No tools were expected and none were called."
            return 0.0, f"No tools were expected, but {_names(called)} were called."
        return self._matched(expected, called, ordered=self.should_consider_ordering)

    def measure(self, test_case: ModelTestCase, *args: Any, **kwargs: Any) -> float:
        """Score ``test_case``; sets and returns ``.score``, and sets ``.reason``, ``.success``.

        Example:
            >>> m = ToolCorrectnessMetric(strict_mode=True)
            >>> m.measure(ModelTestCase(tools_called=[ToolCall("A")],
            ...                         expected_tools=[ToolCall("A"), ToolCall("B")]))
            0.0
            >>> m.success
            False
        """
        score, reason = self.calculate_score(test_case)
        if self.strict_mode and score < self.threshold:
            score = 0.0
        self.score = score
        self.success = score >= self.threshold
        self.reason = reason if self.include_reason else None
        if self.verbose_mode:
            self.verbose_logs = (
                f"Expected Tools: {_names(test_case.expected_tools)}\n"
                f"Tools Called: {_names(test_case.tools_called)}\n"
                f"Score: {score}\nReason: {reason}"
            )
        return self.score

    async def a_measure(self, test_case: ModelTestCase, *args: Any, **kwargs: Any) -> float:
        """The async form of :meth:`measure` (there is nothing to await)."""
        return self.measure(test_case)

    def is_successful(self) -> bool:
        """Whether the last measured case passed the threshold.

        Example:
            >>> ToolCorrectnessMetric().is_successful()
            False
        """
        return bool(self.success)


def _dict_similarity(d1: Mapping, d2: Mapping) -> float:
    """deepeval's key-fraction similarity: shared equal keys over all keys, nested dicts recurse.

    Example:
        >>> _dict_similarity({"a": 1, "b": {"x": 1, "y": 2}}, {"a": 1, "b": {"x": 1, "y": 3}})
        0.75
    """
    if d1 == d2:
        return 1.0
    total = set(d1) | set(d2)
    score = 0.0
    for key in set(d1) & set(d2):
        if d1[key] == d2[key]:
            score += 1.0 / len(total)
        elif isinstance(d1[key], Mapping) and isinstance(d2[key], Mapping):
            score += _dict_similarity(d1[key], d2[key]) / len(total)
    return score
