"""The decoder follows the official rules without eval."""

from __future__ import annotations

import pytest

from ek_otel.bfcl.decode import (
    DecodeError,
    decode_ast,
    decode_execute,
    is_empty_output,
    is_function_calling_format,
    parse_call,
)


def test_function_calling_output_is_json_decoded():
    assert decode_ast([{"f": '{"a": [1, 2], "b": {"c": null}}'}]) == [{"f": {"a": [1, 2], "b": {"c": None}}}]


@pytest.mark.parametrize("bad", [[{"f": {"a": 1}}], [{}], ["f"], [{"f": "{not json"}]])
def test_function_calling_output_that_json_cannot_read_fails(bad):
    with pytest.raises(DecodeError):
        decode_ast(bad)


def test_prompting_keeps_keywords_only_and_resolves_values():
    text = "[f(1, a=(1, 2), b=name, c=g(3), d=h(x=1), e=-5, s=...), mod.sub.k(z=[{'k': True}])]"
    assert decode_ast(text) == [
        {"f": {"a": (1, 2), "b": "name", "c": "g(3)", "d": {"h": {"x": 1}}, "e": -5, "s": "..."}},
        {"mod.sub.k": {"z": [{"k": True}]}},
    ]


def test_prompting_quirks_are_copied():
    assert decode_ast("[f(a=+5)]") == [{"f": {"a": -5}}]  # any unary operator negates
    assert decode_ast("[f(a=x[1])]") == [{"f": {"a": "x[1]"}}]
    assert decode_ast("[f(a=2**3 - 1)]") == [{"f": {"a": 7}}]


@pytest.mark.parametrize("text", ["[f(a=lambda: 1)]", "[f(a=x + 1)]", "[1, 2]", "hello world",
                                  "[f(a={**x})]", "[f(a=9**9**9)]", "[f(a={1, 2})]",
                                  "'f(a=1)'"])
def test_what_the_official_decoder_cannot_decode_fails_without_eval(text):
    with pytest.raises(DecodeError):
        decode_ast(text)


def test_format_checks():
    assert is_function_calling_format([])
    assert not is_function_calling_format([{"f": {}, "g": {}}])
    assert not is_function_calling_format(["f()"])
    assert is_empty_output("text") and is_empty_output([]) and is_empty_output([{}])
    assert not is_empty_output([{"f": {}}])


def test_execution_strings_match_the_official_renderings():
    assert decode_execute([{"mv": '{"source": "a", "n": 2}'}]) == ["mv(source='a',n=2)"]
    assert decode_execute("[f(a={'k': 1}, b=g(x=2))]") == ["f(a={'k': 1}, b=g(x=2))"]


def test_parse_call_keeps_positional_arguments():
    assert parse_call("sort('a.txt', reverse=True)") == ("sort", {"reverse": True}, ["a.txt"])
    with pytest.raises(DecodeError):
        parse_call("not a call")
