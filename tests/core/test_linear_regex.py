"""Gold regular expressions run on RE2: what they match is what Python's ``re`` matches for
the patterns both accept, and what RE2 cannot run is refused when the gold file loads."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from ek_otel.core.linear_regex import compile_linear, fullmatch
from ek_otel.core.rules import Pattern, RuleError, parse_rule, rule_problems

PATTERNS = ["A-[0-9]+", "[0-9]{4}-[0-9]{2}-[0-9]{2}T.*", "(?i)ord-[a-f0-9]+", "a|ab|abc", "(ab)*c?",
            "[^x]*x", "(?s).*refund.*", "x{2,3}", "^a$", "(?P<id>[A-Z]+)-\\d+"]


@settings(max_examples=300, derandomize=True, database=None)
@given(st.sampled_from(PATTERNS), st.text(alphabet="aAbcx0129-T\nORDfrefund", max_size=30))
def test_re2_matches_what_python_re_matches(pattern, text):
    assert fullmatch(compile_linear(pattern), text) == (re.fullmatch(pattern, text) is not None)


@pytest.mark.parametrize("pattern, why", [("(?=A)A", "invalid perl operator: (?="),
                                          ("(a)\\1", "invalid escape sequence: \\1"),
                                          ("a\\Z", "invalid escape sequence: \\Z"),
                                          ("(?<!x)y", "invalid perl operator: (?<!")])
def test_what_re2_cannot_run_is_refused_with_the_reason(pattern, why):
    with pytest.raises(RuleError) as caught:
        parse_rule({"regex": pattern})
    assert str(caught.value) == (f"regular expression {pattern!r} is not supported by the linear-time "
                                 f"engine (RE2): {why} (no lookarounds, no backreferences, no \\Z: write \\z)")
    assert rule_problems({"regex": pattern}) == [str(caught.value)]


def test_a_syntax_error_keeps_its_position():
    assert rule_problems({"regex": "ORD-(["}) == [
        "bad regular expression 'ORD-([': unterminated character set at position 5"]


def test_a_lone_surrogate_in_the_string_is_matched_as_a_replacement_character():
    assert Pattern("a.b").matches("a\ud800b") and Pattern("a\ufffdb").matches("a\udfffb")
    assert not Pattern("ab").matches("a\ud800b")


def test_a_catastrophic_pattern_is_linear_on_re2():
    # (a+)+$ on Python's re doubles its time with each "a": 2**60 steps here, never finishing
    assert not Pattern("(a+)+$").matches("a" * 60 + "!")
    assert Pattern("(a+)+").matches("a" * 100_000)
