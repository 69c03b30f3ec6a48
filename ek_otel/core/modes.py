"""Match modes: when a run's calls count as a success, beyond "exactly these calls".

A task's ``match`` says what success asks of the calls (precision, recall and F1 never
change; only success and the verdicts follow ``match``):

- ``"exact"`` (the default): every required gold call matched exactly and nothing extra
  called (:attr:`~ek_otel.core.toolcalls.CallAlignment.exact`);
- ``"superset"``: every required gold call matched by a distinct call; other calls are
  allowed (LangChain ``superset``, ADK ``ANY_ORDER``; with ``ordered``, ADK ``IN_ORDER``:
  the gold calls are a subsequence of the run);
- ``"subset"``: every call matched by a distinct gold call; gold calls may be missing
  (LangChain ``subset``; with ``ordered``, the run is a subsequence of the gold).

Which call may stand for which gold call is decided by the argument mode of that gold call
(:data:`ARG_MODES`: ``exact``, ``ignore``, ``subset``, ``superset``; see
:func:`ek_otel.core.arguments.compare_args`). The unordered modes are decided by a maximum
bipartite matching (augmenting paths), so a run with repeated tool names is never failed
because a first-fit pick took the wrong call; the ordered modes by the leftmost embedding of
one sequence into the other, which is optimal for a subsequence test.

Example:
    >>> pred = [("lookup", {}), ("search", {"q": "a"}), ("search", {"q": "b"})]
    >>> gold = [("search", {"q": "b"}), ("search", {"q": "a"})]
    >>> same = lambda i, j: pred[i] == gold[j]
    >>> decision = decide(pred, gold, same, "superset")
    >>> decision.success, decision.text
    (True, 'superset: 2 of 2 gold calls made; 1 extra call allowed')
    >>> decide(pred, gold, same, "superset", ordered=True).text
    'superset, in order: 1 of 2 gold calls made in order; missing: search'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["MATCH_MODES", "ARG_MODES", "mode_problem", "arg_modes_of", "Decision", "decide"]

#: What success asks of a run's calls (see the module docstring).
MATCH_MODES = ("exact", "superset", "subset")
#: How a call's arguments are compared with its gold call's.
ARG_MODES = ("exact", "ignore", "subset", "superset")


def mode_problem(value: object, choices: Sequence[str], name: str) -> str:
    """``""`` when ``value`` is one of ``choices``, else the one-line problem.

    Example:
        >>> mode_problem("superset", MATCH_MODES, "match")
        ''
        >>> mode_problem("any_order", MATCH_MODES, "match")
        'match must be one of "exact", "superset", "subset", got "any_order"'
    """
    if isinstance(value, str) and value in choices:
        return ""
    import json

    shown = ", ".join(f'"{c}"' for c in choices)
    return f"{name} must be one of {shown}, got {json.dumps(value, default=repr)}"


def arg_modes_of(gold: Sequence[tuple], default: str = "exact",
                 by_tool: Mapping[str, str] = {}, by_call: Mapping[int, str] = {}) -> tuple:
    """The argument mode of each gold call: the call's own, else its tool's, else the task's.

    Returns ``()`` when every call's mode is ``"exact"`` (nothing to pass along).

    Example:
        >>> arg_modes_of([("a", {}), ("b", {}), ("b", {})], "subset", {"b": "ignore"}, {2: "exact"})
        ('subset', 'ignore', 'exact')
        >>> arg_modes_of([("a", {})])
        ()
    """
    modes = tuple(by_call.get(j, by_tool.get(tool, default)) for j, (tool, _) in enumerate(gold))
    return () if all(m == "exact" for m in modes) else modes


@dataclass(frozen=True)
class Decision:
    """What a match mode decided: ``success``, and the sentence that says why.

    ``made`` counts the gold calls matched, ``extra`` the calls matched by no gold call.

    Example:
        >>> Decision(True, "subset: 1 call, all in gold; 1 gold call not made", 1, 0).success
        True
    """

    success: bool
    text: str
    made: int = 0
    extra: int = 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _kuhn(left: Sequence[int], right_of: Callable[[int], Iterable[int]]) -> dict:
    """A maximum matching of ``left`` (augmenting paths): ``{right: left}``."""
    owner: dict = {}

    def augment(u: int, seen: set) -> bool:
        for v in right_of(u):
            if v in seen:
                continue
            seen.add(v)
            if v not in owner or augment(owner[v], seen):
                owner[v] = u
                return True
        return False

    for u in left:
        augment(u, set())
    return owner


def _leftmost(outer: int, inner: Sequence[int], fits: Callable[[int, int], bool]) -> dict:
    """The leftmost embedding of the ``inner`` items, in order, into ``range(outer)``:
    ``{inner item: outer position}`` for the items placed before the first that could not be."""
    placed: dict = {}
    at = 0
    for item in inner:
        while at < outer and not fits(at, item):
            at += 1
        if at == outer:
            break
        placed[item] = at
        at += 1
    return placed


def decide(pred: Sequence[tuple], gold: Sequence[tuple], fits: Callable[[int, int], bool],
           match: str, *, ordered: bool = False, optional: Iterable[int] = ()) -> Decision:
    """Decide success under ``match`` (``"superset"`` or ``"subset"``).

    Args:
        pred: The run's calls, ``(tool, args)``.
        gold: The gold calls.
        fits: ``fits(i, j)``: call ``i`` may stand for gold call ``j`` (same tool, arguments
            agreeing under ``j``'s argument mode). Asked only for calls to the same tool.
        match: ``"superset"`` or ``"subset"``.
        ordered: Whether the matched calls must come in gold order.
        optional: Gold calls a run may leave out (never required under ``superset``).

    Example:
        >>> pred, gold = [("a", {}), ("b", {})], [("a", {}), ("c", {})]
        >>> same = lambda i, j: pred[i] == gold[j]
        >>> decide(pred, gold, same, "subset").text
        'subset: 1 of 2 calls in gold; outside gold: b'
        >>> decide(pred[:1], gold, same, "subset").text
        'subset: 1 call, all in gold; 1 gold call not made'
    """
    optional = frozenset(optional)

    def candidates(i: int) -> list:  # gold calls that call i may stand for
        return [j for j in by_tool.get(pred[i][0], ()) if fits(i, j)]

    if match == "superset":
        required = [j for j in range(len(gold)) if j not in optional]
        if ordered:
            placed = _leftmost(len(pred), required,
                               lambda i, j: pred[i][0] == gold[j][0] and fits(i, j))
        else:
            pred_by_tool: dict = {}
            for i, (tool, _) in enumerate(pred):
                pred_by_tool.setdefault(tool, []).append(i)
            owner = _kuhn(required, lambda j: [i for i in pred_by_tool.get(gold[j][0], ())
                                               if fits(i, j)])
            placed = {j: i for i, j in owner.items()}
        missing = [gold[j][0] for j in required if j not in placed]
        extra = len(pred) - len(placed)
        how = "superset, in order" if ordered else "superset"
        made = "gold calls made in order" if ordered else "gold calls made"
        text = f"{how}: {len(placed)} of {len(required)} {made}"
        if missing:
            text += "; missing: " + _names(missing)
        elif extra:
            text += f"; {_plural(extra, 'extra call')} allowed"
        return Decision(not missing, text, len(placed), extra)
    if match != "subset":
        raise ValueError(f"decide() takes match 'superset' or 'subset', not {match!r}")
    by_tool: dict = {}
    for j, (tool, _) in enumerate(gold):
        by_tool.setdefault(tool, []).append(j)
    if ordered:
        placed = _leftmost(len(gold), range(len(pred)),
                           lambda j, i: pred[i][0] == gold[j][0] and fits(i, j))
    else:
        owner = _kuhn(range(len(pred)), candidates)
        placed = {i: j for j, i in owner.items()}
    outside = [pred[i][0] for i in range(len(pred)) if i not in placed]
    not_made = len([j for j in range(len(gold)) if j not in set(placed.values())])
    how = "subset, in order" if ordered else "subset"
    if outside:
        where = "in gold order" if ordered else "in gold"
        text = (f"{how}: {len(placed)} of {_plural(len(pred), 'call')} {where}; "
                f"outside gold: " + _names(outside))
    else:
        text = f"{how}: {_plural(len(pred), 'call')}, all in gold"
        if not_made:
            text += f"; {_plural(not_made, 'gold call')} not made"
    return Decision(not outside, text, len(placed), len(outside))


def _names(tools: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(tools[:limit])
    return shown + (f" (+{len(tools) - limit} more)" if len(tools) > limit else "")
