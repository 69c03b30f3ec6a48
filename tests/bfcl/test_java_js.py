"""Java/JavaScript value conversion and call splitting."""

from __future__ import annotations

import pytest

from ek_otel.bfcl.decode import DecodeError
from ek_otel.bfcl.java_js import java_convert, js_convert, parse_java_js_calls


@pytest.mark.parametrize("text, declared, nested, expected", [
    ("12", "integer", None, 12), ("1.5", "integer", None, "1.5"), ("3e2f", "float", None, 300.0),
    ("2.5", "float", None, "2.5"), ("2.5", "double", None, 2.5), ("7l", "long", None, 7),
    ("'a'", "char", None, "'a'"), ('new int[] { 1, 2 }', "Array", "integer", [1, 2]),
    ("new ArrayList<>()", "ArrayList", None, []),
    ('new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); }}', "HashMap", None,
     {"k": 1, "s": "v"}),
    ("anything", "any", None, "anything"),
])
def test_java_conversion(text, declared, nested, expected):
    assert java_convert(text, declared, nested) == expected


@pytest.mark.parametrize("text, declared, nested, expected", [
    ('"hi"', "String", None, "hi"), ("hi", "String", None, "hi"), ("3.5", "float", None, 3.5),
    ("9n", "Bigint", None, 9), ("true", "Boolean", None, True), ("[[1, 2], [3]]", "array", None, [[1, 2], [3]]),
    ("new Array(1, 2)", "array", "integer", [1, 2]), ("[1, x]", "array", "integer", [1, "x"]),
    ("{a: 1, b: 'z'}", "dict", None, {"a": 1, "b": "z"}),
])
def test_javascript_conversion(text, declared, nested, expected):
    assert js_convert(text, declared, nested) == expected


def test_calls_are_split_at_top_level_commas_only():
    text = 'A.b(x=new int[]{1, 2}, y="a, b"), c(z=f(1, 2))'
    assert parse_java_js_calls(text) == [
        {"A.b": {"x": "new int[]{1, 2}", "y": "a, b"}}, {"c": {"z": "f(1, 2)"}}]
    with pytest.raises(DecodeError):
        parse_java_js_calls("f(x=1, x=2)")
