"""to_jsonable: the core's shapes as plain JSON values, exactly what the JSON report holds."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.episode import AnyOf, Cost
from ek_otel.core.jsonable import to_jsonable
from ek_otel.core.rules import parse_rule
from ek_otel.core.scores import ArgDiff, EpisodeScore


def test_keys_sets_and_unknown_objects():
    assert to_jsonable({("a", 1): {1, 2}}) == {"a|1": [1, 2]}   # a set in its iteration order
    assert to_jsonable({3: "x"}) == {"3": "x"}
    assert to_jsonable(object()).startswith("<object")


def test_an_episode_score_gets_its_label_and_keeps_its_shape_without_an_answer():
    row = to_jsonable(EpisodeScore("t", fn=1.0, cost=Cost(input_tokens=3),
                                   arg_diffs=(ArgDiff("f", "x", "wrong_value", AnyOf((1, 2)), 3, 1.0),)))
    assert row["label"] == "fail" and "answer" not in row
    assert row["cost"]["complete"] is True and row["cost"]["input_tokens"] == 3
    assert row["arg_diffs"][0]["expected"] == {"any_of": [1, 2]}


def test_a_rule_becomes_its_gold_file_object():
    assert to_jsonable([parse_rule({"regex": "^a"})]) == [{"regex": "^a"}]


def test_subclasses_of_plain_types_take_the_long_way():
    class Text(str):
        pass

    out = to_jsonable({"a": Text("x"), "b": [float("nan")], "c": (True, None)})
    assert out == {"a": "x", "b": [None], "c": [True, None]}
    assert type(out["a"]) is Text  # a str all the same: json writes it as text
    assert json.loads(json.dumps(out)) == {"a": "x", "b": [None], "c": [True, None]}


JSON_LIKE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5)),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=10)


@given(JSON_LIKE)
@settings(max_examples=200, deadline=None)
def test_whatever_it_is_given_the_output_is_strict_json(value):
    out = to_jsonable(value)
    text = json.dumps(out, allow_nan=False)  # no NaN or infinity survives
    assert json.loads(text) == out

    def finite(v):
        if isinstance(v, float):
            return v if math.isfinite(v) else None
        if isinstance(v, (list, tuple)):
            return [finite(x) for x in v]
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        return v

    assert out == finite(value)
