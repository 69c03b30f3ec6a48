"""Java and JavaScript values: BFCL gives them as source text; the checker converts by type.

The conversions copy the official ``java_type_converter`` / ``js_type_converter`` (regexes
included): a Java ``long`` needs an ``L`` suffix, a ``float`` an ``f``; a JavaScript
``Bigint`` needs ``n``; a value that fails its conversion stays a string. A Java ``char``
never converts (the official pattern cannot match), and ``new String[]{"-v"}`` keeps
its quotes.

:func:`parse_java_js_calls` splits prompting output such as
``obj.run(cfg=new Config(), n=5)`` into calls with source-text values. It is only the
fallback when tree-sitter is not installed: the official decoder uses tree-sitter, whose
error recovery decides what decodes (``f(a=1)`` fails in Java, ``f(a=1, b=2)`` passes),
and :mod:`ek_otel.bfcl.tree_sitter_calls` reproduces it exactly.

Example:
    >>> java_convert("5L", "long"), java_convert("5", "long"), java_convert("2.5f", "float")
    (5, '5', 2.5)
    >>> java_convert('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String")
    ['a', 'b']
    >>> js_convert("12n", "Bigint"), js_convert("[1, 2]", "array", "integer")
    (12, [1, 2])
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .decode import DecodeError

__all__ = [
    "JAVA_TYPES",
    "JS_TYPES",
    "java_convert",
    "js_convert",
    "parse_java_js_calls",
]


class _Lazy:
    """A regular expression compiled when first used: a run needs few of this module's
    patterns (most runs none), and compiling them all at import costs more than the
    conversions of a whole category.

    Example:
        >>> _Lazy(r"^-?\\d+$").match("12") is not None
        True
    """

    __slots__ = ("_args", "_compiled")

    def __init__(self, *args: Any) -> None:
        self._args = args
        self._compiled = None

    def __getattr__(self, name: str) -> Any:  # match, search, findall...
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return getattr(self._compiled, name)


#: Declared Java type -> the Python type a converted value must have.
JAVA_TYPES = {
    "byte": int, "short": int, "integer": int, "float": float, "double": float, "long": int,
    "boolean": bool, "char": str, "Array": list, "ArrayList": list, "Set": set,
    "HashMap": dict, "Hashtable": dict, "Queue": list, "Stack": list, "String": str,
    "any": str,
}

#: Declared JavaScript type -> the Python type a converted value must have.
JS_TYPES = {
    "String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool,
    "dict": dict, "array": list, "any": str,
}

_INT = _Lazy(r"^-?\d+$")
_JAVA_FLOAT = _Lazy(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = _Lazy(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = _Lazy(r"^-?\d+[lL]$")
_JAVA_CHAR = _Lazy(r"^\'.$\'")
_AS_LIST = _Lazy(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ADD_BLOCK = _Lazy(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD_CALL = _Lazy(r"add\((.+?)\)")
_EMPTY_LIST = _Lazy(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = _Lazy(r"new\s+\w+\[\]\s*\{(.*?)\}")
_HASHMAP = _Lazy(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT = _Lazy(r"put\(\"(.*?)\",\s*(.*?)\)")
_EMPTY_MAP = _Lazy(r"new\s+HashMap<.*?>\s*\(\)")


def java_convert(value: str, declared: str, nested: Optional[str] = None) -> Any:
    """Convert Java source text ``value`` by its declared type (official semantics).

    Example:
        >>> java_convert("true", "boolean"), java_convert("yes", "boolean")
        (True, 'yes')
        >>> java_convert("new int[]{1, 2}", "Array", "integer")
        [1, 2]
        >>> java_convert('new String[]{"-v"}', "Array", "String")
        ['"-v"']
    """
    if declared == "String" or declared == "any":
        return str(value)
    if declared not in JAVA_TYPES:
        raise ValueError(f"Unsupported type: {declared}")
    if declared in ("byte", "short", "integer"):
        return int(value) if _INT.match(value) else str(value)
    if declared == "float":
        return float(value[:-1]) if _JAVA_FLOAT.match(value) else str(value)
    if declared == "double":
        return float(value) if _JAVA_DOUBLE.match(value) else str(value)
    if declared == "long":
        return int(value[:-1]) if _JAVA_LONG.match(value) else str(value)
    if declared == "boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if declared == "char":
        return value if _JAVA_CHAR.match(value) else str(value)
    sequence = {"ArrayList": _java_arraylist, "Array": _java_array}.get(declared)
    if sequence is not None:
        return sequence(value, nested)
    if declared == "HashMap":
        return _java_hashmap(value)
    raise NotImplementedError(f"{declared} conversion is not implemented")


def _java_element(text: str, nested: Optional[str]) -> Any:
    if nested in ("char", "String"):
        return text[1:-1]
    return java_convert(text, nested) if nested else _java_value(text)


def _java_arraylist(text: str, nested: Optional[str]) -> Any:
    match = _AS_LIST.search(text)
    if match:
        return [_java_element(part.strip(), nested) for part in match.group(1).split(",")]
    match = _ADD_BLOCK.search(text)
    if match:
        return [_java_element(m.strip(), nested) for m in _ADD_CALL.findall(match.group(1))]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, nested: Optional[str]) -> Any:
    match = _ARRAY.search(text)
    if not match:
        return text
    parts = [p.strip() for p in match.group(1).split(",") if p.strip()]
    if nested:
        return [java_convert(p, nested) for p in parts]
    return [_java_value(p) for p in parts]


def _java_hashmap(text: str) -> Any:
    match = _HASHMAP.search(text)
    if match:
        out = {}
        body = match.group(1)
        if body.strip():
            for key, raw in _PUT.findall(body):
                out[key] = _java_value(raw.strip())
        return out
    if _EMPTY_MAP.search(text):
        return {}
    return text


_BOOLEANS = {"true": True, "false": False}


def _unquoted(text: str, quotes: tuple) -> Optional[str]:
    """The text between a matching pair of ``quotes`` around ``text``, else None."""
    return text[1:-1] if text[:1] in quotes and text[-1:] == text[:1] else None


def _java_value(text: str) -> Any:
    if text in _BOOLEANS:
        return _BOOLEANS[text]
    inner = _unquoted(text, ('"',))
    if inner is not None:
        return inner
    for suffixed, kind in ((_JAVA_LONG, int), (_JAVA_FLOAT, float)):  # 5L, 2.5f
        if suffixed.match(text):
            return kind(text[:-1])
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# ---------------------------------------------------------------------------
# JavaScript
# ---------------------------------------------------------------------------

_JS_FLOAT = _Lazy(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = _Lazy(r"^-?\d+n$")
_JS_ARRAY_2D = _Lazy(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_ARRAY = _Lazy(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER = _Lazy(r"\[(.*?)\]")
_JS_DICT = _Lazy(r"\{(.*?)\}")
_JS_PAIR = _Lazy(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def js_convert(value: str, declared: str, nested: Optional[str] = None) -> Any:
    """Convert JavaScript source text ``value`` by its declared type (official semantics).

    Example:
        >>> js_convert("'abc'", "String"), js_convert("3.5", "float"), js_convert("3", "Bigint")
        ('abc', 3.5, '3')
        >>> js_convert("{'a': 1, 'b': [true]}", "dict")
        {'a': 1, 'b': [True]}
    """
    if declared not in JS_TYPES:
        raise ValueError(f"Unsupported type: {declared}")
    if declared == "String":
        quoted = (value.startswith('"') and value.endswith('"')) or (
            value.startswith("'") and value.endswith("'"))
        return value[1:-1] if quoted else str(value)
    if declared == "integer":
        return int(value) if _INT.match(value) else str(value)
    if declared == "float":
        return float(value) if _JS_FLOAT.match(value) else str(value)
    if declared == "Bigint":
        return int(value[:-1]) if _JS_BIGINT.match(value) else str(value)
    if declared == "Boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if declared == "dict":
        return _js_dict(value.strip())
    if declared == "array":
        return _js_array(value.strip(), nested)
    return str(value)


def _js_array(code: str, nested: Optional[str]) -> Any:
    try:
        match = _JS_ARRAY_2D.match(code)
        if match:
            rows = []
            for index, inner in enumerate(_JS_INNER.findall(match.group(0))):
                inner = inner.strip()
                if index == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([_js_value(e.strip()) for e in inner.split(",")])
            return rows
        match = _JS_ARRAY.match(code)
        if not match:
            return code
        body = match.group(1) if match.group(1) is not None else match.group(2)
        body = (body or "").strip()
        elements = body.split(",") if body else []
        if nested:
            return [js_convert(e.strip(), nested) for e in elements]
        return [_js_value(e.strip()) for e in elements]
    except Exception:  # the official converter falls back to the text on any error
        return code


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    match = _JS_DICT.match(code)
    if not match:
        return code
    try:
        out = {}
        for key, value in _JS_PAIR.findall(match.group(1)):
            key = key.strip().strip("'\"")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                out[key] = _js_array(value, None)
            elif value.startswith("{") and value.endswith("}"):
                out[key] = _js_dict(value)
            else:
                out[key] = _js_value(value.strip("'\""))
        return out
    except Exception:  # pragma: no cover - mirrors the official fallback
        return code


def _js_value(text: str) -> Any:
    text = text.strip()
    if text in _BOOLEANS:
        return _BOOLEANS[text]
    inner = _unquoted(text, ('"', "'"))
    return _number_or_text(text) if inner is None else inner


# ---------------------------------------------------------------------------
# Prompting output: splitting calls
# ---------------------------------------------------------------------------

_OPEN = "([{"
_CLOSE = ")]}"
_NAME = _Lazy(r"\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(")
_KEY = _Lazy(r"\s*([A-Za-z_$][\w$]*)\s*=(?!=)")


def _split_top(text: str, sep: str = ",") -> list:
    """Split at top-level ``sep`` (outside brackets and quotes)."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'`":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth < 0:
                raise DecodeError("Error parsing the source code: unbalanced brackets.")
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if quote or depth:
        raise DecodeError("Error parsing the source code: unbalanced brackets or quotes.")
    parts.append(text[start:])
    return parts


def _strip_literal(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_java_js_calls(text: str, language: str = "java") -> list:
    """Split Java/JavaScript prompting output into ``[{name: {param: source_text}}]``.

    Only ``name=value`` arguments are kept; a string literal loses its quotes.

    Example:
        >>> parse_java_js_calls('Util.run(path="a/b", flags=new String[]{"-v"})')
        [{'Util.run': {'path': 'a/b', 'flags': 'new String[]{"-v"}'}}]
        >>> parse_java_js_calls("f(x=", "javascript")
        Traceback (most recent call last):
        ...
        ek_otel.bfcl.decode.DecodeError: Error parsing the source code: unbalanced brackets or quotes.
    """
    calls = []
    for chunk in _split_top(text.strip().rstrip(";"), ","):
        chunk = chunk.strip().rstrip(";").strip()
        if not chunk:
            continue
        match = _NAME.match(chunk)
        if not match or not chunk.endswith(")"):
            raise DecodeError(f"Error parsing {language} the source code.")
        name = re.sub(r"\s+", "", match.group(1))
        inner = chunk[match.end():-1]
        args: dict = {}
        for part in _split_top(inner, ","):
            key = _KEY.match(part)
            if not key:
                continue
            if key.group(1) in args:
                raise DecodeError(
                    "Error: Multiple arguments with the same name are not supported.")
            args[key.group(1)] = _strip_literal(part[key.end():].strip())
        calls.append({name: args})
    return calls
