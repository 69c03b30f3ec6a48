"""Tool-call matching and the cost-weighted tool-call metric (the seed's ``ek.agents.toolcalls``).

:func:`align_calls` (and :func:`match_calls`, its plain form) pairs predicted calls with gold
calls into a :class:`CallAlignment`; :class:`ToolCallMetric` turns the alignment into
cost-weighted TP/FP/FN, precision, recall and F1, and :func:`explain_alignment` into a
sentence. The comparison of two calls' arguments is :mod:`ek_otel.core.arguments`, the
choice of pairs :mod:`ek_otel.core.pairing`.

Example:
    >>> from ek_otel.core.episode import Step
    >>> pred = [Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})]
    >>> gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
    >>> ToolCallMetric()(pred, gold).f1
    1.0
    >>> hallucinated = [Step("search", {"q": "cats"}), Step("delete_all", {})]
    >>> round(ToolCallMetric()(hallucinated, gold).f1, 3)     # 1 TP, 1 FP, 1 FN
    0.5
    >>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
    ...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
    >>> len(pairs), up, ug          # order-insensitive within a tool name
    (2, [], [])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .agents import agents_of, with_agents
from .arguments import ArgComparison, compare_args, describe_diff
from .episode import Trajectory, as_call, is_episode
from .fastinit import fast_init
from .fields import may_omit, micro_aggregate, precision_recall_f1
from .grammar import GraphGrammar
from ..limits import MAX_CALL_PAIRS
from .pairing import check_strategy, pair_indices, pairing_capped
from .scores import CallRow, Score

__all__ = [
    "LEVELS",
    "check_level",
    "calls_of",
    "CallPair",
    "CallAlignment",
    "align_calls",
    "match_calls",
    "explain_alignment",
    "ToolCallMetric",
]

#: Levels of :class:`ToolCallMetric`.
LEVELS = ("call", "arg")

_EMPTY_GRAMMAR = GraphGrammar()


def calls_of(x: Any) -> tuple:
    """The ``(tool, args)`` calls of an Episode, a Trajectory, a TaskSpec's gold, or a sequence.

    A task with ``turns`` gives its turns flattened in order.

    Example:
        >>> from ek_otel.core.episode import Step, TaskSpec
        >>> calls_of([Step("a", {"x": 1}), "b"])
        (('a', {'x': 1}), ('b', {}))
        >>> calls_of(TaskSpec("t", turns=[[("a", {})], [("b", {})]]))
        (('a', {}), ('b', {}))
    """
    if x is None:
        return ()
    if is_episode(x):
        return tuple(x.calls)
    if isinstance(x, Trajectory):
        return x.calls
    if hasattr(x, "gold") and hasattr(x, "task_id"):  # a TaskSpec
        if getattr(x, "turns", None):
            return tuple(call for turn in x.turns for call in turn)
        return tuple(as_call(c) for c in x.gold)
    if isinstance(x, (str, Mapping)):
        return (as_call(x),)
    return tuple(c if _is_plain_call(c) else as_call(c) for c in x)


def _is_plain_call(c: Any) -> bool:
    """Already a ``(str, dict)`` pair: used as is, without a copy (the hot path)."""
    return type(c) is tuple and len(c) == 2 and type(c[0]) is str and type(c[1]) is dict


# ---------------------------------------------------------------------------
# Pairing calls
# ---------------------------------------------------------------------------


@fast_init
@dataclass(frozen=True)
class CallPair:
    """One predicted call paired with one gold call to the same tool.

    Example:
        >>> p = align_calls([("x", {}), ("s", {"q": "a"})], [("s", {"q": "A"})]).pairs[0]
        >>> p.pred_index, p.gold_index, p.tool, p.exact
        (1, 0, 's', True)
    """

    pred_index: int
    gold_index: int
    tool: str
    comparison: ArgComparison

    @property
    def exact(self) -> bool:
        """True when every argument agrees (and nothing unexpected was passed)."""
        return self.comparison.exact


@fast_init
@dataclass(frozen=True)
class CallAlignment:
    """The pairing of a predicted call sequence with a gold one, and its cost accounting.

    Example:
        >>> a = align_calls([("s", {"q": "x"}), ("t", {})], [("s", {"q": "y"})])
        >>> a.n_exact, a.spurious, a.missing, a.counts("call")
        (0, (1,), (), (0.0, 2.0, 1.0))
        >>> a.counts("arg")          # the tool name was right: 1 TP; q wrong: 1 FP + 1 FN
        (1.0, 2.0, 1.0)
    """

    pred: tuple
    gold: tuple
    pairs: tuple
    spurious: tuple
    missing: tuple
    strategy: str = "best_first"
    grammar: GraphGrammar = _EMPTY_GRAMMAR
    skipped: tuple = ()  # optional gold calls left unmade: neither missing nor counted
    capped: bool = False  # over limits.MAX_CALL_PAIRS: some calls paired in call order

    @property
    def n_exact(self) -> int:
        """How many pairs agree exactly."""
        return sum(1 for p in self.pairs if p.exact)

    @property
    def exact(self) -> bool:
        """True when every gold call is matched exactly and nothing extra was called."""
        return (
            not self.spurious
            and not self.missing
            and all(p.exact for p in self.pairs)
        )

    @property
    def arg_diffs(self) -> tuple:
        """Every :class:`ArgDiff` of the paired calls, in predicted order."""
        return tuple(d for p in self.pairs for d in p.comparison.diffs)

    @property
    def ruled_args(self) -> tuple:
        """The arguments that agreed through a rule (:class:`ArgDiff` s of kind ``"rule"``)."""
        return tuple(d for p in self.pairs for d in p.comparison.ruled)

    @property
    def spurious_calls(self) -> tuple:
        """The predicted calls no gold call was paired with, as ``(tool, args)``."""
        return tuple(self.pred[i] for i in self.spurious)

    @property
    def missing_calls(self) -> tuple:
        """The gold calls no predicted call was paired with, as ``(tool, args)``."""
        return tuple(self.gold[j] for j in self.missing)

    def rows(self, turn_sizes: Optional[Sequence[int]] = None,
             agents: Sequence[Optional[str]] = ()) -> tuple:
        """The pairing as :class:`~ek_otel.core.scores.CallRow` lines, for reports.

        Predicted calls in order (each with its gold call, or alone when spurious); each
        missing gold call comes after the line of the gold call before it. ``turn_sizes``
        (the gold calls per turn of a multi-turn task) sets each line's ``turn``; ``agents``
        (the agent of each predicted call) each made call's ``agent``.

        Example:
            >>> a = align_calls([("s", {"q": 1}), ("x", {})], [("s", {"q": 2}), ("t", {})])
            >>> [(r.got and r.got[0], r.gold and r.gold[0], r.exact, r.diffs) for r in a.rows()]
            [('s', 's', False, (0,)), (None, 't', False, ()), ('x', None, False, ())]
            >>> [r.turn for r in a.rows([1, 1])]
            [0, 1, 0]
        """
        turn_of: dict = {}
        if turn_sizes is not None:
            j = 0
            for turn, size in enumerate(turn_sizes):
                for _ in range(size):
                    turn_of[j] = turn
                    j += 1
        paired = {p.pred_index: p for p in self.pairs}
        lines: list = []  # (gold index or None, CallRow)
        offset = 0
        last_turn = 0 if turn_sizes is not None else None
        for i, call in enumerate(self.pred):
            pair = paired.get(i)
            agent = agents[i] if agents else None
            if pair is None:
                lines.append((None, CallRow(got=call, turn=last_turn, agent=agent)))
                continue
            n = len(pair.comparison.diffs)
            last_turn = turn_of.get(pair.gold_index, last_turn)
            lines.append((pair.gold_index, CallRow(
                got=call, gold=self.gold[pair.gold_index], turn=last_turn, exact=pair.exact,
                diffs=tuple(range(offset, offset + n)), agent=agent)))
            offset += n
        for j in self.missing:
            row = CallRow(gold=self.gold[j], turn=turn_of.get(j, last_turn if turn_sizes else None))
            at = 0
            for index, (gold_index, _) in enumerate(lines):
                if gold_index is not None and gold_index < j:
                    at = index + 1
            lines.insert(at, (j, row))
        return tuple(row for _, row in lines)

    def counts(self, level: str = "call") -> tuple:
        """Cost-weighted ``(tp, fp, fn)`` at ``level`` (see :class:`ToolCallMetric`).

        Example:
            >>> align_calls([("s", {"q": 1, "n": 2})], [("s", {"q": 1})]).counts("arg")
            (2.0, 1.0, 0.0)
        """
        check_level(level)
        g = self.grammar
        tp = fp = fn = 0.0
        for p in self.pairs:
            node = g.node_cost(p.tool)
            if level == "call":
                if p.exact:
                    tp += node
                else:
                    fp += node
                    fn += node
            else:
                tp += node + p.comparison.tp
                fp += p.comparison.fp
                fn += p.comparison.fn
        for i in self.spurious:
            tool, args = self.pred[i]
            fp += g.node_cost(tool)
            if level == "arg":
                fp += sum(g.field_cost(tool, a) for a in args)
        for j in self.missing:
            tool, args = self.gold[j]
            fn += g.node_cost(tool)
            if level == "arg":
                fn += sum(g.field_cost(tool, a) for a, v in args.items() if not may_omit(v))
        return (tp, fp, fn)


def check_level(level: str) -> None:
    """Raise ``ValueError`` unless ``level`` is one of :data:`LEVELS`.

    Example:
        >>> check_level("arg")
        >>> check_level("token")
        Traceback (most recent call last):
        ...
        ValueError: level must be one of ('call', 'arg'), not 'token'
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")


def align_calls(
    pred: Any,
    gold: Any,
    *,
    canon: Optional[Callable[[Any], Any]] = None,
    strategy: str = "best_first",
    grammar: Optional[GraphGrammar] = None,
    optional: Iterable[int] = (),
    arg_modes: Sequence[str] = (),
    gold_agents: Mapping[int, str] = {},
) -> CallAlignment:
    """Pair predicted calls with gold calls; the engine behind :func:`match_calls`.

    Only calls to the same tool are paired; within a tool name every predicted call is
    paired while a gold call is left, so ``min(n_pred, n_gold)`` pairs per name. What the
    strategies decide is *which* calls pair up:

    - ``"best_first"`` (the seed): all candidate pairs sorted globally by exact before
      partial, then more agreeing argument weight before less, ties by position, and taken
      greedily.
    - ``"optimal"``: the assignment that maximises first the number of exact pairs, then the
      total agreeing argument weight (Hungarian algorithm, O(n^3) per tool name). It never
      does worse than best-first, and does better when a greedy first pick blocks two good
      pairs (see the example). When best-first is already optimal its pairing is kept, so
      ties resolve by position.
    - ``"ordered"``: an order-respecting alignment (a weighted longest common subsequence
      over same-tool pairs, maximising exact pairs, then agreement, then pairs): a call made
      out of order is left unpaired (spurious + missing).

    When no tool name repeats on either side there is nothing to choose, and every
    strategy but ``"ordered"`` pairs by name in one linear pass.

    ``optional`` holds the indices of gold calls that a run may leave out (a gold call
    marked ``"optional": true``): left unpaired, such a call is ``skipped``, not missing
    (no false negative); made, it pairs like any other.

    ``gold_agents`` pins gold calls to the agent that must make them
    (:mod:`ek_otel.core.agents`; the agents of ``pred`` are its steps').

    ``arg_modes`` gives each gold call's argument mode (:data:`ek_otel.core.modes.ARG_MODES`;
    ``()``: all ``"exact"``), which decides when a pair is exact
    (:func:`~ek_otel.core.arguments.compare_args`).

    Example:
        >>> gold = [("f", {"a": 1, "b": 1, "c": 1, "d": 0}),
        ...         ("f", {"a": 1, "b": 1, "c": 9, "d": 9})]
        >>> pred = [("f", {"a": 1, "b": 1, "c": 1, "d": 5}),    # agrees 3 with g0, 2 with g1
        ...         ("f", {"a": 2, "b": 2, "c": 1, "d": 0})]    # agrees 2 with g0, 0 with g1
        >>> greedy = align_calls(pred, gold)                     # takes the 3, then 0
        >>> best = align_calls(pred, gold, strategy="optimal")   # 2 + 2 instead
        >>> [(p.pred_index, p.gold_index) for p in greedy.pairs]
        [(0, 0), (1, 1)]
        >>> [(p.pred_index, p.gold_index) for p in best.pairs]
        [(0, 1), (1, 0)]
        >>> greedy.counts("arg")[0], best.counts("arg")[0]     # arg-level TP (2 tool names + args)
        (5.0, 6.0)
        >>> a = align_calls([("b", {}), ("a", {})], [("a", {}), ("b", {})], strategy="ordered")
        >>> len(a.pairs), a.spurious, a.missing
        (1, (1,), (0,))
        >>> a = align_calls([("pay", {})], [("lookup", {}), ("pay", {})], optional=[0])
        >>> a.exact, a.missing, a.skipped
        (True, (), (0,))
        >>> align_calls([("s", {"q": "a", "n": 5})], [("s", {"q": "a"})], arg_modes=["superset"]).exact
        True
    """
    check_strategy(strategy)
    grammar = grammar or _EMPTY_GRAMMAR
    pred_calls = calls_of(pred)
    gold_calls = calls_of(gold)

    if arg_modes:
        def compare(i: int, j: int) -> ArgComparison:
            return compare_args(pred_calls[i][0], pred_calls[i][1], gold_calls[j][1],
                                canon=canon, grammar=grammar, mode=arg_modes[j])
    else:
        def compare(i: int, j: int) -> ArgComparison:
            return compare_args(
                pred_calls[i][0], pred_calls[i][1], gold_calls[j][1], canon=canon, grammar=grammar
            )
    if gold_agents:
        compare = with_agents(compare, pred_calls, agents_of(pred), gold_agents)

    index_pairs = pair_indices(pred_calls, gold_calls, compare, strategy)

    index_pairs.sort(key=lambda t: t[0])
    pairs = tuple(CallPair(i, j, pred_calls[i][0], c) for i, j, c in index_pairs)
    used_pred = {i for i, _, _ in index_pairs}
    used_gold = {j for _, j, _ in index_pairs}
    unpaired = tuple(j for j in range(len(gold_calls)) if j not in used_gold)
    skipped: tuple = ()
    if optional:
        optional = frozenset(optional)
        skipped = tuple(j for j in unpaired if j in optional)
        unpaired = tuple(j for j in unpaired if j not in optional)
    return CallAlignment(
        pred=pred_calls,
        gold=gold_calls,
        pairs=pairs,
        spurious=tuple(i for i in range(len(pred_calls)) if i not in used_pred),
        missing=unpaired,
        strategy=strategy,
        grammar=grammar,
        skipped=skipped,
        capped=pairing_capped(pred_calls, gold_calls, strategy),
    )




def match_calls(
    pred: Any,
    gold: Any,
    canon: Optional[Callable[[Any], Any]] = None,
    *,
    strategy: str = "best_first",
    grammar: Optional[GraphGrammar] = None,
) -> tuple:
    """Pair predicted calls with gold calls: ``(pairs, unmatched_pred, unmatched_gold)``.

    Candidates are grouped by tool name (a call to the wrong tool never matches); within a
    name, pairs are taken globally best-first: exact before partial, more agreeing
    arguments before fewer, ties by position. Argument order never matters; order inside a
    list value does. Strings compare case-insensitively with whitespace folded (pass
    ``canon`` to override; it is applied to every scalar). Repeated identical calls are
    interchangeable. Gold values may be :class:`~ek_otel.core.episode.AnyOf`. See
    :func:`align_calls` for ``strategy="optimal"`` and ``"ordered"``.

    Returns:
        ``pairs`` as ``((tool, pred_args), (tool, gold_args))`` sorted by predicted position,
        then the unpaired predicted and gold calls, in their original order.

    Example:
        >>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
        ...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
        >>> len(pairs), up, ug          # order-insensitive within a tool name
        (2, [], [])
        >>> pairs[0]
        (('s', {'q': 'b'}), ('s', {'q': 'b'}))
        >>> match_calls([("a", {})], [("b", {})])
        ([], [('a', {})], [('b', {})])
    """
    a = align_calls(pred, gold, canon=canon, strategy=strategy, grammar=grammar)
    pairs = [(a.pred[p.pred_index], a.gold[p.gold_index]) for p in a.pairs]
    return pairs, list(a.spurious_calls), list(a.missing_calls)


# ---------------------------------------------------------------------------
# Explanations
# ---------------------------------------------------------------------------

_MAX_LISTED = 3


def _listing(items: list) -> str:
    shown = items[:_MAX_LISTED]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" (+{more} more)" if more > 0 else "")




def explain_alignment(alignment: CallAlignment) -> str:
    """One readable sentence saying why an alignment scores as it does.

    Example:
        >>> from ek_otel.core.episode import AnyOf
        >>> a = align_calls([("refund", {"amount": 100})],
        ...                 [("refund", {"amount": AnyOf((10,))}), ("notify", {})])
        >>> explain_alignment(a)
        '0/2 calls matched; refund.amount: expected 10, got 100; missing: notify'
        >>> explain_alignment(align_calls([], []))
        'no call expected and none made'
    """
    n_gold = len(alignment.gold) - len(alignment.skipped)
    if n_gold == 0:
        if not alignment.pred and not alignment.skipped:
            return "no call expected and none made"
        head = "no call required" if alignment.skipped else "no call expected"
    else:
        head = f"{alignment.n_exact}/{n_gold} calls matched"
    parts = [head]
    diffs = [describe_diff(d, alignment.grammar) for d in alignment.arg_diffs]
    if diffs:
        parts.append("; ".join(diffs[:_MAX_LISTED]) + (
            f" (+{len(diffs) - _MAX_LISTED} more)" if len(diffs) > _MAX_LISTED else ""))
    ruled = alignment.ruled_args
    if ruled:
        notes = [describe_diff(d, alignment.grammar) for d in ruled]
        parts.append("; ".join(notes[:_MAX_LISTED]) + (
            f" (+{len(notes) - _MAX_LISTED} more)" if len(notes) > _MAX_LISTED else ""))
    if alignment.missing:
        parts.append("missing: " + _listing([t for t, _ in alignment.missing_calls]))
    if alignment.skipped:
        parts.append("optional, not made: " + _listing([alignment.gold[j][0] for j in alignment.skipped]))
    if alignment.spurious:
        parts.append("spurious: " + _listing([t for t, _ in alignment.spurious_calls]))
    if alignment.exact and n_gold:
        parts[0] += " exactly"
    if alignment.capped:
        parts.append(f"too many calls to weigh every pairing (over {MAX_CALL_PAIRS} pairs): "
                     "paired in call order")
    return "; ".join(parts)


# ---------------------------------------------------------------------------
# The metric
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCallMetric:
    """Cost-weighted precision/recall/F1 of tool calls against gold calls.

    Args:
        level: ``"call"``: a pair is a TP (of the tool's weight, ``grammar.node_cost``) only
            on an exact match; right tool with wrong arguments is an FP *and* an FN of that
            weight. ``"arg"``: partial credit per argument: a paired call earns its tool
            weight as a TP (the tool choice was right) plus the weight of each agreeing
            argument; a wrong or wrongly-typed argument is an FP and an FN of its
            ``grammar.field_cost``, a missing one an FN, an unexpected one an FP.
        canonicalizer: Applied to scalar values before comparing (default: strings
            lower-cased, whitespace folded).
        grammar: The cost table (and argument types, which turn type checks on). At both
            levels a spurious or missing call costs its tool weight; at arg level also the
            weight of each of its arguments.
        strategy: How calls are paired (:func:`align_calls`); the seed's ``"best_first"``.

    ``detail`` holds ``tp``, ``fp``, ``fn``, ``level``, ``n_matched`` (pairs), ``n_exact``,
    ``n_spurious`` and ``n_missed``. Inputs may be Episodes, Trajectories, TaskSpecs (their
    gold) or sequences of calls.

    Example:
        >>> from ek_otel.core.episode import Step, ToolSpec, tool_grammar
        >>> gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
        >>> s = ToolCallMetric()([Step("search", {"q": "cats"})], gold)
        >>> s.detail["tp"], s.detail["fn"], round(s.f1, 3)
        (1.0, 1.0, 0.667)
        >>> g = tool_grammar(ToolSpec("delete_all", destructive=True))
        >>> round(ToolCallMetric(grammar=g)([("search", {"q": "cats"}), ("delete_all", {})],
        ...                                 gold[:1]).precision, 3)     # 1 / (1 + 10)
        0.091
        >>> ToolCallMetric(level="arg")([("search", {"q": "dogs"})], gold[:1]).detail["tp"]
        1.0
    """

    level: str = "call"
    canonicalizer: Optional[Callable[[Any], Any]] = None
    grammar: Optional[GraphGrammar] = None
    strategy: str = "best_first"

    def __post_init__(self) -> None:
        check_level(self.level)
        check_strategy(self.strategy)

    def align(self, pred: Any, gold: Any) -> CallAlignment:
        """The :class:`CallAlignment` this metric scores."""
        return align_calls(
            pred, gold, canon=self.canonicalizer, strategy=self.strategy, grammar=self.grammar
        )

    def __call__(self, pred: Any, gold: Any) -> Score:
        """Score predicted calls against gold calls."""
        return self.score_alignment(self.align(pred, gold))

    def score_alignment(self, alignment: CallAlignment) -> Score:
        """Turn an alignment into a :class:`Score` at this metric's level."""
        tp, fp, fn = alignment.counts(self.level)
        precision, recall, f1 = precision_recall_f1(tp, fp, fn)
        return Score(
            value=f1,
            precision=precision,
            recall=recall,
            f1=f1,
            metric="tool_call",
            detail={
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "level": self.level,
                "n_matched": len(alignment.pairs),
                "n_exact": alignment.n_exact,
                "n_spurious": len(alignment.spurious),
                "n_missed": len(alignment.missing),
            },
            explanation=explain_alignment(alignment),
        )

    @staticmethod
    def aggregate(scores: Iterable[Score]) -> float:
        """The corpus micro-F1: F1 of the summed ``tp``/``fp``/``fn`` (1.0 when all are zero).

        :meth:`aggregate_score` gives the whole corpus :class:`~ek_otel.core.scores.Score`
        (precision, recall and the summed counts).

        Example:
            >>> m = ToolCallMetric()
            >>> scores = [m([("a", {})], [("a", {})]), m([("b", {})], [("a", {}), ("c", {})])]
            >>> round(m.aggregate(scores), 3)     # tp=1, fp=1, fn=2
            0.4
        """
        return ToolCallMetric.aggregate_score(scores).f1

    @staticmethod
    def aggregate_score(scores: Iterable[Score]) -> Score:
        """Micro-averaged corpus :class:`~ek_otel.core.scores.Score`: summed ``tp``/``fp``/``fn``.

        Example:
            >>> m = ToolCallMetric()
            >>> agg = m.aggregate_score([m([("a", {})], [("a", {})]), m([("b", {})], [("a", {})])])
            >>> agg.detail["tp"], agg.detail["fp"], agg.detail["fn"], round(agg.f1, 3)
            (1.0, 1.0, 1.0, 0.5)
        """
        return micro_aggregate(scores, metric="tool_call")
