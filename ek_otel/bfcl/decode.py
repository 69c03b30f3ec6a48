"""Decoding BFCL model results into calls, as the official decoder does, without ``eval``.

Two result forms exist:

- **function calling**: ``[{"name": "<json args>"}, ...]`` -> ``[{name: json.loads(args)}]``;
- **prompting**: a Python-call string ``"[f(a=1), g(b='x')]"``, parsed with :mod:`ast`.
  Only keyword arguments are kept, tuples stay tuples, a bare name becomes its string,
  a nested call without keywords becomes its source text, a nested call with keywords
  becomes ``{name: {kwargs}}``. A binary operation, which the official decoder hands to
  ``eval``, is computed on literal constants without it (:mod:`ek_otel.bfcl.safe_eval`:
  arithmetic, comparisons, indexing, pure builtins such as ``round``); anything beyond
  that fails to decode.

Java and JavaScript prompting output is parsed with tree-sitter and walked as the
official decoder walks it (:mod:`ek_otel.bfcl.tree_sitter_calls`) when the ``tree_sitter``
packages are installed; without them a small tokenizer approximates it
(:func:`ek_otel.bfcl.java_js.parse_java_js_calls`). Every value is kept as source text.

Decode failures raise :class:`DecodeError` whose message is the text the official decoder
reports after ``"Invalid syntax. Failed to decode AST. "``.

Example:
    >>> decode_ast([{"f": '{"a": 1}'}])
    [{'f': {'a': 1}}]
    >>> decode_ast("[f(a=1, b=(1, 2)), g(c=x, d=h(1))]")
    [{'f': {'a': 1, 'b': (1, 2)}}, {'g': {'c': 'x', 'd': 'h(1)'}}]
    >>> decode_ast("```\\nget_weather(city='Paris')\\n```")
    [{'get_weather': {'city': 'Paris'}}]
    >>> is_function_calling_format([{"f": {}}]), is_empty_output([{}])
    (True, True)
    >>> decode_execute("[cd(folder='tmp'), ls()]")
    ["cd(folder='tmp')", 'ls()']
"""

from __future__ import annotations

import ast
import json
from typing import Any, Optional

from .jsonlines import parse_json

__all__ = [
    "DecodeError",
    "decode_ast",
    "decode_function_calling",
    "decode_prompting",
    "decode_execute",
    "result_style",
    "is_function_calling_format",
    "is_empty_output",
    "parse_call",
    "call_to_string",
]


def _documented(function):
    """Make ``function`` raise :class:`DecodeError` for what Python's parsers and
    converters raise on absurd input (a ``RecursionError`` of deep arguments, the
    ``ValueError`` of an integer over 4300 digits, a ``MemoryError``): the official decoder
    fails on them too."""
    import functools

    @functools.wraps(function)
    def decoder(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except DecodeError:
            raise
        except RecursionError:
            raise DecodeError("nested too deeply to decode") from None
        except MemoryError:
            raise DecodeError("too large to decode") from None
        except ValueError as exc:
            raise DecodeError(str(exc)[:200]) from None

    return decoder


class DecodeError(ValueError):
    """A model result that the official decoder could not decode (``ast_decoder:decoder_failed``).

    Example:
        >>> str(DecodeError("bad"))
        'bad'
    """


# ---------------------------------------------------------------------------
# Result form
# ---------------------------------------------------------------------------


def result_style(result: Any) -> str:
    """``"fc"`` for a function-calling result (a list or dict), ``"prompting"`` for a string.

    Example:
        >>> result_style([{"f": "{}"}]), result_style("[f(a=1)]"), result_style([])
        ('fc', 'prompting', 'fc')
    """
    return "prompting" if isinstance(result, str) else "fc"


@_documented
def decode_ast(result: Any, language: str = "python", style: Optional[str] = None, *,
               exact_ints: bool = True) -> list:
    """Decode one model result into ``[{name: {param: value}}]``.

    ``style`` is ``"fc"`` or ``"prompting"``; by default it is read from the result's form
    (:func:`result_style`); ``"decoded"`` passes already-decoded calls through;
    ``"fc-decoded"`` decodes as the official ``GeminiHandler`` (function calling whose
    arguments are stored as dicts: the result is kept, a non-list wrapped in a list).
    ``language`` is ``python``, ``java`` or ``javascript`` and only matters for prompting
    output. ``exact_ints=False`` parses function-calling arguments without the scan for
    integers beyond 64 bits (:func:`~ek_otel.bfcl.jsonlines.parse_json`), for text known to
    hold none.

    Example:
        >>> decode_ast('[calc(x=2**3, y=-1.5, z=None)]')
        [{'calc': {'x': 8, 'y': -1.5, 'z': None}}]
        >>> decode_ast("not a call")
        Traceback (most recent call last):
        ...
        ek_otel.bfcl.decode.DecodeError: invalid syntax. Perhaps you forgot a comma? (<unknown>, line 1)
    """
    style = style or result_style(result)
    if style == "decoded":
        return result
    if style == "fc":
        return decode_function_calling(result, exact_ints=exact_ints)
    if style == "fc-decoded":  # GeminiHandler: arguments already decoded, kept as they are
        return result if type(result) is list else [result]
    return decode_prompting(result, language)


@_documented
def decode_function_calling(result: Any, *, exact_ints: bool = True) -> list:
    """Decode function-calling output: each ``{name: "<json>"}`` becomes ``{name: dict}``.

    Mirrors the official FC handlers: the first key of each item is the name and its value
    goes through ``json.loads`` (so an item whose arguments are already a dict fails).

    Example:
        >>> decode_function_calling([{"f": '{"a": [1, 2]}'}, {"g": "{}"}])
        [{'f': {'a': [1, 2]}}, {'g': {}}]
        >>> decode_function_calling("plain text")
        Traceback (most recent call last):
        ...
        ek_otel.bfcl.decode.DecodeError: 'str' object has no attribute 'keys'
    """
    decoded = []
    try:
        for item in result:
            name = list(item.keys())[0]
            decoded.append({name: parse_json(item[name], exact_ints=exact_ints)})
    except (AttributeError, IndexError, TypeError, ValueError, KeyError) as exc:
        raise DecodeError(str(exc)) from None
    return decoded


def _wrap(text: str) -> str:
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


@_documented
def decode_prompting(text: str, language: str = "python") -> list:
    """Decode prompting output (a string of calls).

    Example:
        >>> decode_prompting("f(a='x'), g.h(b=[1, {'k': True}])")
        [{'f': {'a': 'x'}}, {'g.h': {'b': [1, {'k': True}]}}]
        >>> decode_prompting("[f(1, a=2)]")
        [{'f': {'a': 2}}]
        >>> decode_prompting("[obj.run(cfg=new Config(), n=5)]", "java")
        [{'obj.run': {'cfg': 'new Config()', 'n': '5'}}]
    """
    if not isinstance(text, str):
        raise DecodeError(f"expected a string, got {type(text).__name__}")
    wrapped = _wrap(text)
    if language == "python":
        return _parse_python(wrapped)
    from . import tree_sitter_calls

    if tree_sitter_calls.available(language):  # the official parser's grammar and walk
        return tree_sitter_calls.parse_calls(wrapped[1:-1], language)
    from .java_js import parse_java_js_calls  # an approximation without tree-sitter

    return parse_java_js_calls(wrapped[1:-1], language)


def _parse_python(text: str) -> list:
    cleaned = text.strip().strip("'")
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise DecodeError(str(exc)) from None
    body = tree.body
    try:
        if isinstance(body, ast.Call):
            return [_resolve_call(body)]
        elts = getattr(body, "elts", None)
        if elts is None:
            raise DecodeError(f"'{type(body).__name__}' object has no attribute 'elts'")
        calls = []
        for elem in elts:
            if not isinstance(elem, ast.Call):
                raise DecodeError("")  # the official code fails an ``assert`` here
            calls.append(_resolve_call(elem))
        return calls
    except RecursionError as exc:  # pragma: no cover - absurdly deep input
        raise DecodeError(str(exc)) from None


def _call_name(func: ast.AST) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _resolve_call(call: ast.Call) -> dict:
    args = {}
    for keyword in call.keywords:
        args[keyword.arg] = _resolve_value(keyword.value)
    return {_call_name(call.func): args}


def _resolve_value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # The official decoder negates the operand whatever the operator is.
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise DecodeError(f"'{type(operand).__name__}' object has no attribute 'value'")
        try:
            return -operand.value
        except TypeError as exc:
            raise DecodeError(str(exc)) from None
    if isinstance(node, ast.List):
        return [_resolve_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise DecodeError("Unsupported AST type: <class 'NoneType'>")
            resolved_key = _resolve_value(key)
            try:
                out[resolved_key] = _resolve_value(value)
            except TypeError as exc:  # unhashable key
                raise DecodeError(str(exc)) from None
        return out
    if isinstance(node, ast.BinOp):
        return _safe_arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        return _resolve_call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_resolve_value(v) for v in node.elts)
    if isinstance(node, ast.Lambda):
        # The official code indexes ``body[0]`` of an expression: always a TypeError.
        raise DecodeError(f"'{type(node.body).__name__}' object is not subscriptable")
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"Unsupported AST type: {type(node)}")


# ---------------------------------------------------------------------------
# Format checks
# ---------------------------------------------------------------------------


def is_function_calling_format(decoded: Any) -> bool:
    """Whether ``decoded`` is a list of one-key dicts whose values are dicts.

    Example:
        >>> is_function_calling_format([{"f": {"a": 1}}]), is_function_calling_format(["f()"])
        (True, False)
        >>> is_function_calling_format([])
        True
    """
    if type(decoded) is not list:
        return False
    for item in decoded:
        if type(item) is not dict or len(item) != 1:
            return False
        if type(next(iter(item.values()))) is not dict:
            return False
    return True


def is_empty_output(decoded: Any) -> bool:
    """Whether ``decoded`` holds no call: ``[]``, ``[{}]``, or not in call format at all.

    Example:
        >>> is_empty_output([]), is_empty_output([{}]), is_empty_output([{"f": {}}])
        (True, True, False)
    """
    if not decoded or decoded.__class__ is not list:  # plain values: __class__ is type()
        return True
    for item in decoded:  # ``[{}]`` fails the one-key test below, as in the official
        if item.__class__ is not dict or len(item) != 1:
            return True
        [value] = item.values()
        if value.__class__ is not dict:
            return True
    return False


# ---------------------------------------------------------------------------
# Execution strings (multi-turn) and call strings
# ---------------------------------------------------------------------------


def _nested_repr(value: Any) -> str:
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            name = list(value.keys())[0]
            args = ", ".join(f"{k}={_nested_repr(v)}" for k, v in value[name].items())
            return f"{name}({args})"
        return "{" + ", ".join(f"'{k}': {_nested_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


@_documented
def decode_execute(result: Any, style: Optional[str] = None) -> list:
    """Decode one model step into executable call strings (multi-turn), as the official does.

    Function-calling output becomes ``name(k=repr(v),...)`` (joined by ``,``); prompting
    output is parsed like :func:`decode_prompting` and rendered ``name(k=v, ...)``.

    Example:
        >>> decode_execute([{"cd": '{"folder": "tmp"}'}, {"ls": "{}"}])
        ["cd(folder='tmp')", 'ls()']
        >>> decode_execute("[mv(source='a', destination='b')]")
        ["mv(source='a', destination='b')"]
    """
    if (style or result_style(result)) in ("fc", "fc-decoded"):
        items = [result] if isinstance(result, dict) else result
        calls = []
        try:
            for item in items:
                for name, args in item.items():
                    if isinstance(args, str):
                        args = json.loads(args)
                    calls.append(f"{name}({','.join(f'{k}={v!r}' for k, v in args.items())})")
        except (AttributeError, TypeError, ValueError) as exc:
            raise DecodeError(str(exc)) from None
        return calls
    calls = []
    for item in decode_prompting(result, "python"):
        for name, args in item.items():
            calls.append(f"{name}({', '.join(f'{k}={_nested_repr(v)}' for k, v in args.items())})")
    return calls


def parse_call(text: str) -> tuple:
    """Parse one call string (a multi-turn answer) into ``(name, kwargs, positional)``.

    Unlike :func:`decode_ast`, positional arguments are kept (in ``positional``), since
    multi-turn answers use them (``sort('final_report.pdf')``).

    Example:
        >>> parse_call("sort('final_report.pdf')")
        ('sort', {}, ['final_report.pdf'])
        >>> parse_call("mv(source='a', destination='b')")
        ('mv', {'source': 'a', 'destination': 'b'}, [])
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise DecodeError(f"{text!r}: {exc}") from None
    call = tree.body
    if not isinstance(call, ast.Call):
        raise DecodeError(f"{text!r} is not a call")
    kwargs = {kw.arg: _resolve_value(kw.value) for kw in call.keywords}
    positional = [_resolve_value(arg) for arg in call.args]
    return _call_name(call.func), kwargs, positional


def call_to_string(name: str, args: dict) -> str:
    """Render ``name(k=repr(v), ...)``: the inverse of :func:`parse_call` for keyword calls.

    Example:
        >>> call_to_string("cd", {"folder": "tmp"})
        "cd(folder='tmp')"
    """
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


from .safe_eval import evaluate as _safe_arithmetic  # noqa: E402  (it imports DecodeError)
