"""ScoreEnvelope: validation and the lossless JSON round trip the outbox relies on."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from ek_otel.core.episode import AnyOf, Cost
from ek_otel.core.scores import ArgDiff, EpisodeScore
from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance

TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "b7ad6b7169203331"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.builds(AnyOf, st.tuples(inner, inner)),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers()), inner, max_size=3),
    ),
    max_leaves=8,
)
calls = st.tuples(st.text(min_size=1, max_size=6), st.dictionaries(st.text(max_size=4), values, max_size=2))


def _same(a, b) -> bool:
    """Equality where NaN equals NaN (hypothesis makes NaNs; == would say they differ)."""
    return json.dumps(repr(a)) == json.dumps(repr(b))


def _no_constant(token: str):
    """``json.loads`` hook: NaN/Infinity are not JSON (a string *containing* "NaN" is fine)."""
    raise AssertionError(f"non-JSON token {token} in the envelope")


def test_no_constant_rejects_nan_tokens_but_not_strings():
    assert json.loads('{"NaN": "Infinity"}', parse_constant=_no_constant) == {"NaN": "Infinity"}
    with pytest.raises(AssertionError):
        json.loads('{"a": NaN}', parse_constant=_no_constant)


@settings(max_examples=150, deadline=None)
@given(
    f1=st.floats(allow_nan=True, allow_infinity=False),
    exact=st.booleans(),
    diffs=st.lists(st.builds(ArgDiff, st.text(max_size=5), st.text(max_size=5),
                             st.sampled_from(["wrong_value", "missing"]), values, values,
                             st.floats(min_value=0, max_value=100)), max_size=3),
    missing=st.lists(calls, max_size=2),
    spurious=st.lists(calls, max_size=2),
    settings_=st.dictionaries(st.text(max_size=5), values, max_size=3),
    matcher=st.dictionaries(st.text(min_size=1, max_size=5), values, max_size=3),
    dollars=st.one_of(st.none(), st.floats(min_value=0, max_value=1e6)),
    latency=st.one_of(st.none(), st.floats(min_value=0, max_value=1e6)),
    revision=st.integers(min_value=0, max_value=1000),
    service=st.one_of(st.none(), st.text(max_size=10)),
)
def test_json_round_trip_is_lossless(f1, exact, diffs, missing, spurious, settings_, matcher,
                                     dollars, latency, revision, service):
    score = EpisodeScore(
        task_id="t-1", trace_id=TRACE, level="arg", tp=2.5, fp=1.0, fn=0.0, precision=0.7,
        recall=1.0, f1=f1, exact=exact, success=exact, explanation="why",
        arg_diffs=tuple(diffs), missing_calls=tuple(missing), spurious_calls=tuple(spurious),
        cost=Cost(input_tokens=10, output_tokens=3, cached_input_tokens=2, reasoning_tokens=1,
                  retries=1, latency_s=latency),
        dollars=dollars, revision=revision, settings=settings_,
    )
    env = ScoreEnvelope(TRACE, ROOT, "t-1", score, ScoreProvenance("1.2.3", "ab" * 32, matcher),
                        revision=revision, evaluated_service=service, scored_at_ns=123,
                        response_id="resp-1")
    text = env.to_json()
    json.loads(text, parse_constant=_no_constant)  # strict JSON: no NaN/Infinity tokens
    back = ScoreEnvelope.from_json(text)
    assert _same(back, env)
    assert type(back.score.missing_calls) is tuple
    if not (isinstance(f1, float) and math.isnan(f1)):
        assert back.score.f1 == f1


def test_round_trip_equality_on_a_realistic_score():
    score = EpisodeScore(
        task_id="refund", trace_id=TRACE, tp=1.0, fp=1.0, fn=1.0, precision=0.5, recall=0.5,
        f1=0.5, arg_diffs=(ArgDiff("refund", "amount", "wrong_value", AnyOf((35.5,)), 355.0, 20.0),),
        missing_calls=(("notify", {"to": "me"}),), cost=Cost(input_tokens=7), dollars=0.01,
        settings={"level": "call", "ordered": True},
    )
    env = ScoreEnvelope(TRACE, ROOT, "refund", score, ScoreProvenance("0.1.0", "cd" * 32,
                        {"level": "call", "strategy": "optimal"}), revision=2)
    back = ScoreEnvelope.from_json(env.to_json())
    assert back == env
    assert back.score.arg_diffs[0].expected == AnyOf((35.5,))
    assert back.key == (TRACE, 2)


@pytest.mark.parametrize(
    "trace_id, root, revision, message",
    [
        ("XYZ", ROOT, 0, "trace_id"),
        (TRACE.upper(), ROOT, 0, "trace_id"),
        ("0" * 32, ROOT, 0, "trace_id"),
        (TRACE, "0" * 16, 0, "root_span_id"),
        (TRACE, ROOT + "00", 0, "root_span_id"),
        (TRACE, ROOT, -1, "revision"),
    ],
)
def test_invalid_envelopes_are_refused(trace_id, root, revision, message):
    with pytest.raises(ValueError, match=message):
        ScoreEnvelope(trace_id, root, "t", EpisodeScore("t"), ScoreProvenance("0"), revision=revision)


@pytest.mark.parametrize("text", ['{"format": 2}', '{"format": 1, "trace_id": "x"}', "[1]"])
def test_from_json_refuses_what_is_not_an_envelope(text):
    with pytest.raises(ValueError):
        ScoreEnvelope.from_json(text)
