"""Field-level accounting: comparing values, checking types, and TP/FP/FN over flat records.

Everything that compares one predicted value with one gold value lives here, so the tool-call
matcher, the trajectory metric and :class:`FieldMetric` agree on what "equal" means:

- strings compare case-insensitively with whitespace folded (:func:`canonical`);
- numbers compare by value (``3 == 3.0``), but a boolean never equals a number;
- order inside a list matters; keys of a dict do not;
- a gold value may be an :class:`~ek_otel.core.episode.AnyOf` (a set of admissible values,
  BFCL's possible answer), and a gold dict's values may themselves be admissible lists.

Example:
    >>> from ek_otel.core.episode import AnyOf
    >>> values_match("  New   York ", "new york")
    True
    >>> values_match("NYC", AnyOf(("New York", "NYC")))
    True
    >>> values_match(True, 1)
    False
    >>> FieldMetric()({"city": "Paris", "unit": "F"}, {"city": "paris", "unit": "C"}).f1
    0.5
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .episode import AnyOf
from .grammar import FieldSpec
from .rules import Rule
from .scores import Score

__all__ = [
    "canonical",
    "values_match",
    "type_matches",
    "may_omit",
    "normalise_type",
    "precision_recall_f1",
    "defined_precision_recall_f1",
    "counts_and_rates",
    "micro_aggregate",
    "FieldMetric",
]

Canonicalizer = Callable[[Any], Any]

def canonical(value: Any) -> Any:
    """The default canonical form of a scalar: strings lower-cased with whitespace folded.

    Non-strings are returned unchanged (numbers keep Python's value equality).

    Example:
        >>> canonical("  Hello\\n  World ")
        'hello world'
        >>> canonical(3)
        3
    """
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    return value


def _leaf_equal(pred: Any, gold: Any, canon: Canonicalizer) -> bool:
    # A boolean is never a number: True == 1 in Python, but not in a tool call.
    if isinstance(pred, bool) != isinstance(gold, bool):
        return False
    if pred is None or gold is None:
        return pred is None and gold is None
    try:
        return canon(pred) == canon(gold)
    except Exception:  # a user canonicalizer that cannot read this value
        return pred == gold


def _is_optional_marker(value: Any) -> bool:
    return isinstance(value, str) and value == ""


def values_match(pred: Any, gold: Any, canon: Optional[Canonicalizer] = None) -> bool:
    """Whether a predicted value satisfies a gold value.

    ``canon`` (default :func:`canonical`) is applied to every scalar leaf before comparing.
    Rules, from the outside in:

    - gold :class:`AnyOf`: the prediction matches when it matches any admissible value;
    - lists (and tuples) match element by element, in order, with the same length;
    - dicts match when the prediction has no key the gold lacks, every gold key is matched,
      and a gold key may be left out only when its value admits ``""``. Inside a gold dict a
      list value that the prediction does not equal as a list is read as a list of
      admissible values (BFCL's nested possible answers, ``{"key": [allowed, ...]}``);
    - scalars compare canonically; a boolean never matches a number.

    Example:
        >>> values_match([1, 2], [2, 1])
        False
        >>> values_match({"a": "X", "b": 2}, {"b": [2, 3], "a": ["x"]})
        True
        >>> values_match({"a": "x"}, {"a": ["x"], "b": [1, ""]})     # b may be omitted
        True
        >>> values_match({"a": "x"}, {"a": ["x"], "b": [1]})         # b is required
        False
        >>> values_match(3, 3.0), values_match("Paris", "paris", canon=str)
        (True, False)
    """
    canon = canon or canonical
    return _match(pred, gold, canon, in_dict=False)


_LEAF_TYPES = frozenset({str, int, float, bool, type(None)})


def _match(pred: Any, gold: Any, canon: Canonicalizer, in_dict: bool) -> bool:
    gold_type = type(gold)
    if gold_type in _LEAF_TYPES:  # the common case, kept cheap
        pred_type = type(pred)
        if pred_type is gold_type and pred == gold:
            return True
        if pred_type not in _LEAF_TYPES and isinstance(pred, (Mapping, list, tuple)):
            return False
        return _leaf_equal(pred, gold, canon)
    if gold_type is AnyOf:
        for alt in gold.values:
            if _match(pred, alt, canon, False):
                return True
        return False
    if isinstance(gold, Rule):  # an argument rule (core.rules): any value, a pattern, a tolerance
        return gold.matches(pred, canon)
    if isinstance(gold, Mapping):
        return isinstance(pred, Mapping) and _dict_match(pred, gold, canon)
    if isinstance(gold, (list, tuple)):
        if isinstance(pred, (list, tuple)) and len(pred) == len(gold):
            if all(_match(p, g, canon, in_dict=False) for p, g in zip(pred, gold)):
                return True
        if in_dict:  # a nested possible-answer list: any admissible value
            return any(_match(pred, alt, canon, in_dict=False) for alt in gold)
        return False
    if isinstance(pred, (Mapping, list, tuple)):
        return False
    return _leaf_equal(pred, gold, canon)


def may_omit(gold_value: Any) -> bool:
    """Whether a top-level gold value lets the argument be left out: an ``AnyOf`` admitting
    ``""``, or a rule marked ``optional`` (:mod:`ek_otel.core.rules`).

    A plain gold value (even a list holding ``""``) is an exact value and is required.

    Example:
        >>> from ek_otel.core.rules import AnyValue
        >>> may_omit(AnyOf(("c", ""))), may_omit(AnyOf(("c",))), may_omit(["c", ""])
        (True, False, False)
        >>> may_omit(AnyValue(optional=True)), may_omit(AnyValue())
        (True, False)
    """
    if isinstance(gold_value, AnyOf):
        return gold_value.optional
    return isinstance(gold_value, Rule) and gold_value.optional


def _omittable(gold_value: Any) -> bool:
    """Inside a gold dict: an ``AnyOf`` or a possible-answer list admitting ``""``."""
    if isinstance(gold_value, AnyOf):
        return gold_value.optional
    if isinstance(gold_value, (list, tuple)):
        return any(_is_optional_marker(v) for v in gold_value)
    return False


def _dict_match(pred: Mapping, gold: Mapping, canon: Canonicalizer) -> bool:
    for key in pred:
        if key not in gold:
            return False
    for key, gold_value in gold.items():
        if key in pred:
            if not _match(pred[key], gold_value, canon, in_dict=True):
                return False
        elif not _omittable(gold_value):
            return False
    return True


#: JSON-schema type names and the common aliases (BFCL, Python) they stand for.
_TYPE_ALIASES = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "null": "null",
}


def normalise_type(type_name: Optional[str]) -> Optional[str]:
    """The JSON-schema type a type name stands for, or None when it disables checks.

    Example:
        >>> normalise_type("float"), normalise_type("dict"), normalise_type("any")
        ('number', 'object', None)
    """
    if not type_name:
        return None
    return _TYPE_ALIASES.get(str(type_name).strip().lower())


def type_matches(value: Any, type_name: Optional[str]) -> bool:
    """Whether ``value`` has the JSON-schema type ``type_name`` (``"any"``/unknown: always).

    An int is acceptable for ``number``; a boolean is never an integer or a number.

    Example:
        >>> type_matches(3, "number"), type_matches(True, "integer"), type_matches(3.0, "integer")
        (True, False, False)
        >>> type_matches([1], "array"), type_matches({"a": 1}, "object"), type_matches(1, "any")
        (True, True, True)
    """
    kind = normalise_type(type_name)
    if kind is None:
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, (list, tuple))
    if kind == "object":
        return isinstance(value, Mapping)
    return value is None  # "null"


def spec_type_matches(value: Any, spec: Optional[FieldSpec]) -> bool:
    """Whether ``value`` fits a :class:`FieldSpec` (its type, and array items one level deep).

    Example:
        >>> spec = FieldSpec("ids", "array", schema={"type": "array", "items": {"type": "integer"}})
        >>> spec_type_matches([1, 2], spec), spec_type_matches([1, "2"], spec)
        (True, False)
        >>> spec_type_matches("x", None)
        True
    """
    if spec is None:
        return True
    if not type_matches(value, spec.type):
        return False
    schema = spec.schema
    if normalise_type(spec.type) == "array" and isinstance(schema, Mapping):
        items = schema.get("items")
        if isinstance(items, Mapping) and isinstance(items.get("type"), str):
            return all(type_matches(v, items["type"]) for v in value)
    return True


def precision_recall_f1(tp: float, fp: float, fn: float) -> tuple:
    """Precision, recall and F1 from weighted counts, with the empty cases made explicit.

    ``precision = tp/(tp+fp)``, or 1.0 when nothing was predicted and nothing was missed
    (0.0 when something was missed). Recall is symmetric. Nothing expected and nothing
    predicted scores ``(1.0, 1.0, 1.0)``.

    Example:
        >>> precision_recall_f1(1, 1, 1)
        (0.5, 0.5, 0.5)
        >>> precision_recall_f1(0, 0, 0), precision_recall_f1(0, 1, 0)
        ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    """
    if tp + fp:
        precision = tp / (tp + fp)
    else:
        precision = 1.0 if fn == 0 else 0.0
    if tp + fn:
        recall = tp / (tp + fn)
    else:
        recall = 1.0 if fp == 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return (float(precision), float(recall), float(f1))


def defined_precision_recall_f1(tp: float, fp: float, fn: float) -> tuple:
    """Precision, recall and F1 from weighted counts, None where a figure is undefined: what
    reports, episode scores and their cuts show (``null`` in JSON, ``n/a`` on screen).

    - precision ``tp/(tp+fp)``: None when no call was predicted;
    - recall ``tp/(tp+fn)``: None when no call was expected;
    - F1 ``2tp/(2tp+fp+fn)`` (the harmonic mean of the two where both are defined): None
      only when neither is (nothing expected, nothing predicted), 0.0 when one is 0 or
      undefined beside a miss or a spurious call (a call made where none was expected).

    :func:`precision_recall_f1` keeps the conventions a single number needs (metrics whose
    peers return a float: :class:`~ek_otel.core.toolcalls.ToolCallMetric`,
    :class:`~ek_otel.core.correctness.ToolCorrectnessMetric`).

    Example:
        >>> defined_precision_recall_f1(1, 1, 1)
        (0.5, 0.5, 0.5)
        >>> defined_precision_recall_f1(0, 0, 0), defined_precision_recall_f1(0, 1, 0)
        ((None, None, None), (0.0, None, 0.0))
        >>> defined_precision_recall_f1(0, 0, 2)
        (None, 0.0, 0.0)
    """
    predicted = tp + fp
    expected = tp + fn
    precision = tp / predicted if predicted else None
    recall = tp / expected if expected else None
    f1 = (2 * tp / (predicted + expected)) if predicted + expected else None
    return (None if precision is None else float(precision),
            None if recall is None else float(recall), None if f1 is None else float(f1))


def counts_and_rates(tp: float, fp: float, fn: float) -> dict:
    """``tp``/``fp``/``fn`` and the precision, recall and F1 they give, as keyword arguments
    of a score or a cut; None where undefined
    (:func:`defined_precision_recall_f1`).

    Example:
        >>> counts_and_rates(1.0, 1.0, 0.0)
        {'tp': 1.0, 'fp': 1.0, 'fn': 0.0, 'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
        >>> counts_and_rates(0.0, 1.0, 0.0)["recall"] is None
        True
    """
    precision, recall, f1 = defined_precision_recall_f1(tp, fp, fn)
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}


def micro_aggregate(scores: Iterable[Score], metric: str = "") -> Score:
    """Micro-average: sum ``tp``/``fp``/``fn`` over all scores, then compute P/R/F1 once.

    Never a mean of per-item F1s. An empty corpus (or all counts zero) scores 1.0.

    Example:
        >>> a = Score(1.0, detail={"tp": 2.0, "fp": 0.0, "fn": 0.0})
        >>> b = Score(0.0, detail={"tp": 0.0, "fp": 1.0, "fn": 1.0})
        >>> round(micro_aggregate([a, b]).f1, 3)       # a macro mean would say 0.5
        0.667
    """
    tp = fp = fn = 0.0
    n = 0
    for s in scores:
        tp += float(s.detail.get("tp", 0.0))
        fp += float(s.detail.get("fp", 0.0))
        fn += float(s.detail.get("fn", 0.0))
        n += 1
    precision, recall, f1 = precision_recall_f1(tp, fp, fn)
    return Score(
        value=f1,
        precision=precision,
        recall=recall,
        f1=f1,
        metric=metric,
        detail={"tp": tp, "fp": fp, "fn": fn, "n": n},
        explanation=f"micro-average over {n} item(s): tp={tp:g}, fp={fp:g}, fn={fn:g}",
    )


def _is_absent(value: Any) -> bool:
    return value is None


@dataclass(frozen=True)
class FieldMetric:
    """TP/FP/FN accounting over two flat records keyed by field name.

    For each gold field: a predicted field that matches (:func:`values_match`) is a TP; one
    present but different is an FP *and* an FN; one left out is an FN (unless the gold value
    is an ``AnyOf`` admitting ``""``). A predicted field the gold lacks is an FP. A field whose
    value is ``None`` counts as absent. Counts are weighted by ``weights`` (field name -> cost,
    default 1.0).

    Args:
        canonicalizer: Applied to scalar leaves before comparing (default :func:`canonical`).
        weights: Field name -> importance (a number or a :class:`FieldSpec`).

    Example:
        >>> m = FieldMetric(weights={"amount": 5.0})
        >>> s = m({"amount": 100, "memo": "x"}, {"amount": 10, "memo": "X"})
        >>> s.detail["tp"], s.detail["fp"], s.detail["fn"]
        (1.0, 5.0, 5.0)
        >>> s.explanation
        'amount: expected 10, got 100'
        >>> round(FieldMetric.aggregate([s, m({"a": 1}, {"a": 1})]).f1, 3)
        0.286
    """

    canonicalizer: Optional[Canonicalizer] = None
    weights: Optional[Mapping[str, Any]] = None

    def weight(self, name: str) -> float:
        """The cost of an error on field ``name``.

        Example:
            >>> FieldMetric(weights={"a": 2}).weight("a"), FieldMetric().weight("a")
            (2.0, 1.0)
        """
        if not self.weights or name not in self.weights:
            return 1.0
        w = self.weights[name]
        return float(w.importance) if isinstance(w, FieldSpec) else float(w)

    def __call__(self, pred: Mapping[str, Any], gold: Mapping[str, Any]) -> Score:
        """Score one predicted record against one gold record."""
        tp = fp = fn = 0.0
        notes = []
        for name, gold_value in gold.items():
            if _is_absent(gold_value):
                continue
            w = self.weight(name)
            got = pred.get(name)
            if _is_absent(got):
                if not may_omit(gold_value):
                    fn += w
                    notes.append(f"{name}: missing")
            elif values_match(got, gold_value, self.canonicalizer):
                tp += w
            else:
                fp += w
                fn += w
                notes.append(f"{name}: expected {_show(gold_value)}, got {got!r}")
        for name, got in pred.items():
            if name not in gold and not _is_absent(got):
                fp += self.weight(name)
                notes.append(f"{name}: unexpected")
        precision, recall, f1 = precision_recall_f1(tp, fp, fn)
        explanation = "; ".join(notes) if notes else "all fields match"
        return Score(
            value=f1,
            precision=precision,
            recall=recall,
            f1=f1,
            metric="field",
            detail={"tp": tp, "fp": fp, "fn": fn},
            explanation=explanation,
        )

    @staticmethod
    def aggregate(scores: Iterable[Score]) -> Score:
        """Micro-F1 over a corpus of field scores (see :func:`micro_aggregate`)."""
        return micro_aggregate(scores, metric="field")


def _show(value: Any) -> str:
    """A short human rendering of a gold value (an ``AnyOf`` of one shows that value, a rule
    what it admits)."""
    if isinstance(value, Rule):
        return value.describe()
    if isinstance(value, AnyOf):
        shown = [v for v in value.values if not _is_optional_marker(v)]
        if not shown:
            return "it omitted"
        if len(shown) == 1:
            return repr(shown[0])
        return "one of " + repr(shown)
    return repr(value)


def is_nan(x: Any) -> bool:
    """True for a float NaN (used for undefined estimators).

    Example:
        >>> is_nan(float("nan")), is_nan(None), is_nan(1.0)
        (True, False, False)
    """
    return isinstance(x, float) and math.isnan(x)
