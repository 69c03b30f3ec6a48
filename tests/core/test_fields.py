"""FieldMetric and the value comparison every metric shares."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel import FieldMetric as PublicFieldMetric
from ek_otel.core.episode import AnyOf
from ek_otel.core.grammar import FieldSpec, Score
from ek_otel.core.fields import (
    FieldMetric,
    canonical,
    micro_aggregate,
    normalise_type,
    precision_recall_f1,
    spec_type_matches,
    type_matches,
    values_match,
)


def test_public_name():
    assert PublicFieldMetric is FieldMetric


def test_canonical_folds_case_and_whitespace_only_for_strings():
    assert canonical(" A  b\nC ") == "a b c"
    assert canonical(2.5) == 2.5


@pytest.mark.parametrize("pred, gold, ok", [
    ("Paris", "paris", True),
    ("Paris", AnyOf(("London", "PARIS")), True),
    ("Rome", AnyOf(("London", "Paris")), False),
    ([1, 2], [1, 2], True),
    ([1, 2], [2, 1], False),
    ((1, 2), [1, 2], True),
    ([1, 2], AnyOf(([2, 1], [1, 2])), True),
    ({"a": 1}, {"a": 1}, True),
    ({"a": 1, "b": 2}, {"a": 1}, False),
    ({"a": 1}, {"a": [1, 2], "b": [""]}, True),
    ({"a": 3}, {"a": [1, 2]}, False),
    ([{"a": "X"}], [{"a": ["x", "y"]}], True),
    (None, None, True),
    (None, "", False),
    (True, 1, False),
    (1, True, False),
    (0, False, False),
    (2, 2.0, True),
    ("1", 1, False),
    ([1], 1, False),
])
def test_values_match(pred, gold, ok):
    assert values_match(pred, gold) is ok


def test_user_canonicalizer_is_applied_to_scalars():
    assert values_match("A", "a") and not values_match("A", "a", canon=str)
    assert values_match(1, "1", canon=str)
    assert values_match(["A"], ["a"], canon=str.lower)


def test_a_canonicalizer_that_fails_falls_back_to_equality():
    def picky(v):
        if not isinstance(v, str):
            raise TypeError("strings only")
        return v.upper()

    assert values_match(3, 3, canon=picky) and values_match("a", "A", canon=picky)


@pytest.mark.parametrize("value, type_name, ok", [
    ("s", "string", True), (1, "string", False),
    (1, "integer", True), (True, "integer", False), (1.0, "integer", False),
    (1, "number", True), (1.5, "float", True), (False, "number", False),
    (True, "boolean", True), (1, "boolean", False),
    ([1], "array", True), ((1,), "tuple", True), ("x", "array", False),
    ({}, "object", True), ({}, "dict", True), ([], "object", False),
    (None, "null", True), (object(), "any", True), (1, "weird-type", True),
])
def test_type_matches(value, type_name, ok):
    assert type_matches(value, type_name) is ok


def test_normalise_type_and_item_checks():
    assert normalise_type("Integer") == "integer" and normalise_type(None) is None
    spec = FieldSpec("xs", "array", schema={"items": {"type": "string"}})
    assert spec_type_matches(["a"], spec) and not spec_type_matches(["a", 1], spec)
    assert spec_type_matches(1, FieldSpec("n", "number"))


def test_precision_recall_f1_formulas():
    p, r, f = precision_recall_f1(3, 1, 2)
    assert p == pytest.approx(3 / 4) and r == pytest.approx(3 / 5)
    assert f == pytest.approx(2 * p * r / (p + r))
    assert precision_recall_f1(0, 0, 2) == (0.0, 0.0, 0.0)


@given(st.floats(0, 50), st.floats(0, 50), st.floats(0, 50))
@settings(max_examples=100, deadline=None)
def test_prf_is_bounded(tp, fp, fn):
    for x in precision_recall_f1(tp, fp, fn):
        assert 0.0 <= x <= 1.0


def test_field_metric_counts():
    s = FieldMetric()({"a": 1, "b": "X", "c": 3, "extra": 0}, {"a": 1, "b": "y", "d": 4})
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1.0, 3.0, 2.0)
    assert "b: expected 'y', got 'X'" in s.explanation
    assert "d: missing" in s.explanation and "extra: unexpected" in s.explanation
    assert s.value == s.f1 and s.metric == "field"


def test_field_metric_none_is_absent_and_optional_gold_may_be_omitted():
    s = FieldMetric()({"a": None, "b": None}, {"a": 1, "c": AnyOf(("x", ""))})
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (0.0, 0.0, 1.0)


def test_field_metric_weights_accept_numbers_and_fieldspecs():
    m = FieldMetric(weights={"a": 3, "b": FieldSpec("b", importance=7.0)})
    s = m({"a": 0, "b": 0}, {"a": 1, "b": 1})
    assert s.detail["fp"] == 10.0 and s.detail["fn"] == 10.0
    assert m({}, {}).f1 == 1.0 and m({}, {}).explanation == "all fields match"


def test_aggregate_is_micro():
    m = FieldMetric()
    scores = [m({"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 1, "c": 1}), m({"a": 2}, {"a": 1})]
    agg = FieldMetric.aggregate(scores)
    assert (agg.detail["tp"], agg.detail["fp"], agg.detail["fn"]) == (3.0, 1.0, 1.0)
    assert agg.f1 == pytest.approx(0.75)
    assert micro_aggregate([]).f1 == 1.0
    assert micro_aggregate([Score(0.0, detail={"tp": 0, "fp": 1, "fn": 0})]).f1 == 0.0
