"""Pricing math: ModelPrice, PriceTable lookup, dollars."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.core.cost import ModelPrice, PriceTable, dollars
from ek_otel.core.episode import Cost
from ek_otel.errors import PricingError

PRICE = ModelPrice(input=3.0, output=15.0, cached_input=0.3, reasoning=60.0)


def test_defaults_of_cached_and_reasoning_prices():
    p = ModelPrice(2.0, 8.0)
    assert p.cached_input_price == 2.0 and p.reasoning_price == 8.0
    assert PRICE.cached_input_price == 0.3 and PRICE.reasoning_price == 60.0


def test_negative_or_non_numeric_price_is_refused():
    with pytest.raises(PricingError):
        ModelPrice(-1.0, 1.0)
    with pytest.raises(PricingError):
        ModelPrice(1.0, "cheap")


def test_dollars_follow_semconv_input_includes_cached_output_includes_reasoning():
    c = Cost(input_tokens=10_000, output_tokens=2_000, cached_input_tokens=4_000,
             reasoning_tokens=500)
    want = (6_000 * 3.0 + 4_000 * 0.3 + 2_000 * 15.0) / 1e6
    assert dollars(c, PRICE) == pytest.approx(want)
    assert dollars(c, PRICE, reasoning_in_output=False) == pytest.approx(want + 500 * 60.0 / 1e6)


def test_cached_above_input_clamps_uncached_at_zero():
    c = Cost(input_tokens=100, cached_input_tokens=300)
    assert dollars(c, PRICE) == pytest.approx(300 * 0.3 / 1e6)


def test_zero_cost_is_zero_dollars():
    assert dollars(Cost(), PRICE) == 0.0


@given(st.integers(0, 10**7), st.integers(0, 10**7), st.integers(0, 10**7))
@settings(max_examples=100, deadline=None)
def test_dollars_are_additive_over_costs(a, b, c):
    x, y = Cost(input_tokens=a, output_tokens=b), Cost(input_tokens=c, cached_input_tokens=c // 2)
    assert dollars(x + y, PRICE) == pytest.approx(dollars(x, PRICE) + dollars(y, PRICE))


def test_price_lookup_exact_case_prefix_and_provider():
    mini, full, four = ModelPrice(0.15, 0.6), ModelPrice(2.5, 10.0), ModelPrice(30.0, 60.0)
    t = PriceTable({"gpt-4o": full, "gpt-4o-mini": mini, "gpt-4": four})
    assert t.price_of("gpt-4o") is full
    assert t.price_of("GPT-4o") is full
    assert t.price_of("gpt-4o-2024-08-06") is full
    assert t.price_of("gpt-4o-mini-2024-07-18") is mini
    assert t.price_of("openai/gpt-4o-mini") is mini
    assert t.price_of("gpt-4-0613") is four
    assert PriceTable({"gpt-4": four}).find("gpt-4o") is None   # not a separator boundary
    assert t.find("") is None and t.find(None) is None


def test_unknown_model_raises_a_typed_error_naming_it():
    with pytest.raises(PricingError, match="'llama-9'"):
        PriceTable({"gpt-4o": PRICE}).price_of("llama-9")
    with pytest.raises(PricingError, match="known: none"):
        PriceTable().price_of("x")


def test_table_dollars():
    t = PriceTable({"m": PRICE})
    assert t.dollars(Cost(output_tokens=1_000_000), "m-2025") == 15.0


def test_a_model_name_prices_its_releases_never_another_model():
    four_o, o1, sonnet = ModelPrice(2.5, 10.0), ModelPrice(15.0, 60.0), ModelPrice(3.0, 15.0)
    t = PriceTable({"gpt-4o": four_o, "o1": o1, "claude-3-5-sonnet": sonnet})
    # dated and versioned releases of a priced model
    for model, price in (("gpt-4o-2024-08-06", four_o), ("o1-2024-12-17", o1),
                         ("claude-3-5-sonnet-20241022", sonnet), ("claude-3-5-sonnet-latest", sonnet),
                         ("claude-3-5-sonnet@20240620", sonnet),
                         ("claude-3-5-sonnet-20241022-v2:0", sonnet)):
        assert t.find(model) is price, model
    # other (cheaper) models that merely start with a priced name: no price, not a wrong one
    for model in ("gpt-4o-mini", "gpt-4o-mini-2024-07-18", "o1-mini", "o1-preview",
                  "claude-3-5-sonnet-v", "gpt-4o-audio-preview-2024-10-01"):
        assert t.find(model) is None, model
