"""Comparing the arguments of two calls to the same tool, and saying how they differ.

:func:`compare_args` weighs each argument of a predicted call against its gold call (types
from the grammar, values through :func:`ek_otel.core.fields.values_match` and the rules of
:mod:`ek_otel.core.rules`) into an :class:`ArgComparison`; :func:`describe_diff` turns one
:class:`~ek_otel.core.scores.ArgDiff` into the phrase explanations show. The pairing of
calls is :mod:`ek_otel.core.pairing`, the alignment and the metric :mod:`ek_otel.core.toolcalls`.

Example:
    >>> c = compare_args("search", {"q": "Cats "}, {"q": "cats"})
    >>> c.exact, c.tp
    (True, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .episode import AnyOf
from .fastinit import fast_init
from .fields import _show, may_omit, normalise_type, spec_type_matches, values_match
from .grammar import GraphGrammar
from .rules import Rule
from .scores import ArgDiff

__all__ = ["ArgComparison", "compare_args", "describe_diff"]

_EMPTY_GRAMMAR = GraphGrammar()


@fast_init
@dataclass(frozen=True)
class ArgComparison:
    """How the arguments of one predicted call compare with its gold call.

    ``tp``/``fp``/``fn`` are argument weights (``grammar.field_cost``): an agreeing argument is
    a TP; a wrong value or a wrong type is an FP and an FN; a missing required argument an FN;
    an unexpected one an FP. A gold argument admitting ``""`` may be left out at no cost.
    ``ruled`` lists the arguments that agreed through a rule (:mod:`ek_otel.core.rules`), as
    :class:`ArgDiff` s of kind ``"rule"``, so that explanations can say what the rule let pass.

    Example:
        >>> c = compare_args("f", {"a": 1, "z": 0}, {"a": 1, "b": 2})
        >>> c.exact, c.tp, c.fp, c.fn, [d.kind for d in c.diffs]
        (False, 1.0, 1.0, 1.0, ['missing', 'unexpected'])
    """

    exact: bool
    tp: float
    fp: float
    fn: float
    diffs: tuple = ()
    ruled: tuple = ()


def compare_args(
    tool: str,
    pred_args: Mapping[str, Any],
    gold_args: Mapping[str, Any],
    *,
    canon: Optional[Callable[[Any], Any]] = None,
    grammar: Optional[GraphGrammar] = None,
    mode: str = "exact",
) -> ArgComparison:
    """Compare the arguments of a predicted and a gold call to ``tool``.

    Type checks run when the grammar gives the argument a type (``FieldSpec.type``). An
    argument the tool's schema marks ``required`` must be passed even when the gold admits
    ``""`` (as in BFCL's checker).

    ``mode`` is the argument mode (:data:`ek_otel.core.modes.ARG_MODES`): ``"exact"``
    compares every argument both ways; ``"ignore"`` compares none (the tool name alone
    decides, nothing is counted for the arguments); ``"subset"`` lets the call leave out gold
    arguments (unless the tool's schema requires them); ``"superset"`` lets it pass arguments
    the gold does not name. Values given are compared as always (admissible values, rules).

    Example:
        >>> from ek_otel.core.grammar import FieldSpec, NodeType
        >>> g = GraphGrammar({"refund": NodeType("refund",
        ...     {"amount": FieldSpec("amount", "number", importance=20.0)})})
        >>> c = compare_args("refund", {"amount": 100, "memo": "x"}, {"amount": AnyOf((10,))},
        ...                  grammar=g)
        >>> c.exact, c.tp, c.fp, c.fn
        (False, 0.0, 21.0, 20.0)
        >>> [(d.arg, d.kind) for d in c.diffs]
        [('amount', 'wrong_value'), ('memo', 'unexpected')]
        >>> compare_args("refund", {"amount": "10"}, {"amount": 10}, grammar=g).diffs[0].kind
        'wrong_type'
        >>> compare_args("f", {"a": 1}, {"a": 1, "b": 2}, mode="subset").exact
        True
        >>> compare_args("f", {"a": 1, "z": 0}, {"a": 1}, mode="superset").exact
        True
        >>> compare_args("f", {"a": 2}, {"a": 1}, mode="ignore").exact
        True
    """
    if mode == "ignore":
        return _IGNORED
    grammar = grammar or _EMPTY_GRAMMAR
    if type(grammar) is not GraphGrammar:  # a grammar of its own: ask it every time
        return _compare_args(tool, pred_args, gold_args, canon, grammar, mode)
    # GraphGrammar's field_cost and field_spec, with the tool looked up once
    node = grammar.node_types.get(tool)
    specs = node.fields if node is not None else _NO_FIELDS
    tp = fp = fn = 0.0
    diffs = []
    ruled = None
    for arg, gold_value in gold_args.items():
        spec = specs.get(arg)
        w = float(spec.importance) if spec is not None else 1.0
        if arg not in pred_args:
            if (may_omit(gold_value) or mode == "subset") and not (
                    spec is not None and spec.required):
                continue
            fn += w
            diffs.append(ArgDiff(tool, arg, "missing", _expected(gold_value), None, w))
            continue
        got = pred_args[arg]
        if spec is not None and not _fits(got, spec):
            fp += w
            fn += w
            diffs.append(ArgDiff(tool, arg, "wrong_type", _expected(gold_value), got, w))
        elif values_match(got, gold_value, canon):
            tp += w
            if isinstance(gold_value, Rule):
                ruled = (ruled or []) + [ArgDiff(tool, arg, "rule", gold_value, got, w)]
        else:
            fp += w
            fn += w
            diffs.append(ArgDiff(tool, arg, "wrong_value", _expected(gold_value), got, w))
    for arg, got in pred_args.items():
        if arg not in gold_args and mode != "superset":
            spec = specs.get(arg)
            w = float(spec.importance) if spec is not None else 1.0
            fp += w
            diffs.append(ArgDiff(tool, arg, "unexpected", None, got, w))
    if ruled:
        return ArgComparison(exact=not diffs, tp=tp, fp=fp, fn=fn, diffs=tuple(diffs),
                             ruled=tuple(ruled))
    return ArgComparison(exact=not diffs, tp=tp, fp=fp, fn=fn, diffs=tuple(diffs))


_NO_FIELDS: Mapping = {}
#: The comparison under ``mode="ignore"``: the arguments are not compared at all.
_IGNORED = ArgComparison(exact=True, tp=0.0, fp=0.0, fn=0.0)

#: For a plain scalar, whether it fits a spec depends on its type alone:
#: (type, id(spec)) -> (spec, spec_type_matches). Bounded; the spec is kept to check the id.
_FITS: dict = {}
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _fits(value: Any, spec: Any) -> bool:
    """``spec_type_matches(value, spec)``, remembered per (scalar type, spec)."""
    kind = type(value)
    if kind not in _SCALARS:
        return spec_type_matches(value, spec)
    key = (kind, id(spec))
    known = _FITS.get(key)
    if known is None or known[0] is not spec:
        if len(_FITS) >= 4096:
            _FITS.clear()
        known = _FITS[key] = (spec, spec_type_matches(value, spec))
    return known[1]


def _compare_args(tool: str, pred_args: Mapping[str, Any], gold_args: Mapping[str, Any],
                  canon: Optional[Callable[[Any], Any]], grammar: Any,
                  mode: str = "exact") -> ArgComparison:
    """:func:`compare_args` through the grammar's own ``field_cost``/``field_spec``."""
    tp = fp = fn = 0.0
    diffs = []
    ruled = []
    for arg, gold_value in gold_args.items():
        w = grammar.field_cost(tool, arg)
        if arg not in pred_args:
            if (may_omit(gold_value) or mode == "subset") and not _schema_requires(
                    grammar, tool, arg):
                continue
            fn += w
            diffs.append(ArgDiff(tool, arg, "missing", _expected(gold_value), None, w))
            continue
        got = pred_args[arg]
        if not spec_type_matches(got, grammar.field_spec(tool, arg)):
            fp += w
            fn += w
            diffs.append(ArgDiff(tool, arg, "wrong_type", _expected(gold_value), got, w))
        elif values_match(got, gold_value, canon):
            tp += w
            if isinstance(gold_value, Rule):
                ruled.append(ArgDiff(tool, arg, "rule", gold_value, got, w))
        else:
            fp += w
            fn += w
            diffs.append(ArgDiff(tool, arg, "wrong_value", _expected(gold_value), got, w))
    for arg, got in pred_args.items():
        if arg not in gold_args and mode != "superset":
            w = grammar.field_cost(tool, arg)
            fp += w
            diffs.append(ArgDiff(tool, arg, "unexpected", None, got, w))
    return ArgComparison(exact=not diffs, tp=tp, fp=fp, fn=fn, diffs=tuple(diffs),
                         ruled=tuple(ruled))


def _schema_requires(grammar: GraphGrammar, tool: str, arg: str) -> bool:
    spec = grammar.field_spec(tool, arg)
    return spec is not None and spec.required


def _expected(gold_value: Any) -> Any:
    return gold_value.values if isinstance(gold_value, AnyOf) else gold_value


def _item_type(spec: Any) -> Optional[str]:
    """The item type an array argument's schema gives (what :func:`spec_type_matches` checks)."""
    schema = getattr(spec, "schema", None)
    if not isinstance(schema, Mapping) or normalise_type(spec.type) != "array":
        return None
    items = schema.get("items")
    return items["type"] if isinstance(items, Mapping) and isinstance(items.get("type"), str) else None


def describe_diff(d: ArgDiff, grammar: Optional[GraphGrammar] = None) -> str:
    """One argument's disagreement (or its agreement through a rule) as a phrase.

    Example:
        >>> c = compare_args("refund", {"amount": 100, "memo": "x"}, {"amount": 10, "to": "a"})
        >>> for d in c.diffs:
        ...     print(describe_diff(d))
        refund.amount: expected 10, got 100
        refund.to: missing (expected 'a')
        refund.memo: unexpected ('x')
    """
    grammar = grammar or _EMPTY_GRAMMAR
    where = f"{d.tool}.{d.arg}"
    expected = d.expected
    if isinstance(expected, Rule):
        if d.kind == "rule":  # agreed through the rule: say what it let pass
            return f"{where}: {expected.describe()}, got {d.got!r}"
        shown = expected.describe()
    else:
        shown = _show(AnyOf(tuple(expected))) if isinstance(expected, tuple) else repr(expected)
    if d.kind == "wrong_value":
        return f"{where}: expected {shown}, got {d.got!r}"
    if d.kind == "wrong_type":
        spec = grammar.field_spec(d.tool, d.arg)
        article = "an" if spec is not None and spec.type[:1] in "aeiou" else "a"
        wanted = f"{article} {spec.type}" if spec is not None else "another type"
        items = _item_type(spec)
        if items is not None:  # the array itself may be fine: say what its items must be
            wanted += f" of {items} items"
        return f"{where}: expected {wanted}, got {type(d.got).__name__} {d.got!r}"
    if d.kind == "missing":
        if isinstance(expected, tuple) and may_omit(AnyOf(expected)):
            # the gold allows omitting it, so it is missing because the schema requires it
            allowed = ", ".join(repr(v) for v in expected)
            return f"{where}: missing, but the tool's schema requires it (allowed: {allowed})"
        return f"{where}: missing (expected {shown})"
    return f"{where}: unexpected ({d.got!r})"
