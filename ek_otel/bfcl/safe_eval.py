"""The values the official Python decoder gets from ``eval``, computed without ``eval``.

The official decoder evaluates a binary operation in a keyword value with
``eval(ast.unparse(node))`` (``resolve_ast_by_type``). Model output holds arithmetic
such as ``60*60*24``, ``2**-3``, ``100*1.08``, ``'a'+'b'``, ``[1]*3`` and at times a pure
builtin (``round(3.14159, 2)*100``, ``len('abc')+1``, ``max(1, 2)-1``), a comparison, a
conditional, an index (``[1, 2][0]+1``) or a dict or set union. Those are computed here
from the syntax tree, on literal constants only; whatever else ``eval`` would need
(names, attributes, other calls) fails to decode, as it would for a name the official
process lacks. Sizes are capped where the official would run out of time or memory: no
value built (a repetition, a concatenation, ``%`` formatting, a builtin's result, a
container) may exceed :data:`MAX_SIZE` (:func:`size_of`), checked before building when the
size can be told in advance (repetition, ``%`` widths, powers and shifts) and on every value
built otherwise; ``str.format`` and ``format`` are calls ``eval`` would need names for, so
they are not evaluated.

Example:
    >>> import ast
    >>> evaluate(ast.parse("round(3.14159, 2) * 100 + len('ab')", mode="eval").body)
    316.0
    >>> evaluate(ast.parse("{'a': 1} | {'b': 2}", mode="eval").body)
    {'a': 1, 'b': 2}
    >>> evaluate(ast.parse("x + 1", mode="eval").body)
    Traceback (most recent call last):
    ...
    ek_otel.bfcl.decode.DecodeError: name 'x' is not defined
"""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any

from ..limits import BFCL_MAX_INT_BITS, BFCL_MAX_VALUE_SIZE

__all__ = ["evaluate", "MAX_SIZE", "size_of"]

#: The largest value evaluation may build (:data:`~ek_otel.limits.BFCL_MAX_VALUE_SIZE`), by
#: :func:`size_of`: characters of a string, items of a container (what they hold counted),
#: decimal digits of an integer.
MAX_SIZE = BFCL_MAX_VALUE_SIZE

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _numbers(values: Any) -> bool:
    return all(isinstance(v, (int, float)) for v in values)


def _sum(*args: Any) -> Any:
    if not args or not _numbers(list(args[0])) or not _numbers(args[1:]):
        raise DecodeError("sum() of non-numbers is not evaluated")  # quadratic on lists
    return sum(*args)


def _pow(*args: Any) -> Any:
    if len(args) == 2:
        _guard(ast.Pow(), args[0], args[1])
    return pow(*args)


#: Pure builtins ``eval`` would call; nothing that reads, writes or loops on demand.
_BUILTINS = {
    "abs": abs, "bool": bool, "divmod": divmod, "float": float, "int": int, "len": len,
    "list": list, "max": max, "min": min, "pow": _pow, "round": round, "sorted": sorted,
    "str": str, "sum": _sum, "tuple": tuple,
}
_ERRORS = (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError)


def evaluate(node: ast.AST) -> Any:
    """The value ``eval(ast.unparse(node))`` gives in the official decoder, for literal
    arithmetic; :class:`~ek_otel.bfcl.decode.DecodeError` for anything else, and for a
    value larger than :data:`MAX_SIZE`.

    Example:
        >>> import ast
        >>> evaluate(ast.parse("2 ** -1 + (1 < 2)", mode="eval").body)
        1.5
        >>> evaluate(ast.parse("'%01000000000d' % 1", mode="eval").body)
        Traceback (most recent call last):
        ...
        ek_otel.bfcl.decode.DecodeError: value too large to evaluate safely (over 100000)
    """
    try:
        return _evaluate(node)
    except DecodeError:
        raise
    except _ERRORS as exc:
        raise DecodeError(str(exc)) from None
    except (RecursionError, MemoryError):
        raise DecodeError("expression too deep or too large to evaluate safely") from None


def size_of(value: Any, limit: int = MAX_SIZE) -> int:
    """How big ``value`` is: characters of a string or bytes, decimal digits (about) of an
    int, 1 for other scalars, 1 plus the sizes of the items of a container (keys too),
    however often the same item is held. Counting stops past ``limit`` (the answer is then
    ``limit + 1`` or more), so it costs at most ``limit`` steps.

    Example:
        >>> size_of("abc"), size_of([["ab"] * 3] * 2), size_of(2 ** 100), size_of({"a": 1.5})
        (3, 15, 31, 3)
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bytes:
            total += len(item)
        elif kind is int:
            total += 1 + item.bit_length() * 3 // 10
        elif kind is list or kind is tuple or kind is set or kind is frozenset:
            total += 1
            stack.extend(item)
        elif kind is dict:
            total += 1
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            total += 1
        if total > limit:
            return total
    return total


def _bounded(value: Any) -> Any:
    if type(value) in _SCALARS:
        return value
    if size_of(value) > MAX_SIZE:
        raise DecodeError(f"value too large to evaluate safely (over {MAX_SIZE})")
    return value


_SCALARS = frozenset({bool, float, type(None), complex})


def _evaluate(node: ast.AST) -> Any:
    return _bounded(_evaluate_node(node))


def _evaluate_node(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_evaluate(v) for v in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise DecodeError("cannot evaluate ** in a dict without eval")
        return {_evaluate(k): _evaluate(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        _guard(node.op, left, right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        value = _evaluate(node.values[0])
        for operand in node.values[1:]:
            if (isinstance(node.op, ast.And) and not value) or (
                    isinstance(node.op, ast.Or) and value):
                return value
            value = _evaluate(operand)
        return value
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = _evaluate(comparator)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _evaluate(node.body) if _evaluate(node.test) else _evaluate(node.orelse)
    if isinstance(node, ast.Subscript):
        return _evaluate(node.value)[_evaluate(node.slice)]
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else _evaluate(p) for p in parts))
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Name):
        raise DecodeError(f"name '{node.id}' is not defined")
    raise DecodeError(f"cannot evaluate {type(node).__name__} without eval")


def _call(node: ast.Call) -> Any:
    function = _BUILTINS.get(node.func.id) if isinstance(node.func, ast.Name) else None
    if function is None:
        raise DecodeError(f"cannot evaluate the call {ast.unparse(node.func)}() without eval")
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords):
        raise DecodeError("cannot evaluate * or ** arguments without eval")
    args = [_evaluate(a) for a in node.args]
    kwargs = {k.arg: _evaluate(k.value) for k in node.keywords}
    return function(*args, **kwargs)  # at most a few characters per unit of its arguments


#: A ``%`` conversion's width and precision (``%-08.3f``, ``%*d``, ``%(name)s``).
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d*))?")


def _guard(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse what would take the official process minutes or gigabytes, before it is built."""
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
        if abs(left) > 1 and right > 0 and right * math.log2(abs(left)) > BFCL_MAX_INT_BITS:
            raise DecodeError("exponent too large to evaluate safely")
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > BFCL_MAX_INT_BITS:
        raise DecodeError("shift too large to evaluate safely")
    if isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(count, int):
                if size_of(seq) * count > MAX_SIZE:
                    raise DecodeError("sequence too large to evaluate safely")
    if isinstance(op, ast.Add) and isinstance(left, (str, bytes, list, tuple)) \
            and type(left) is type(right) and size_of(left) + size_of(right) > MAX_SIZE:
        raise DecodeError("sequence too large to evaluate safely")
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        _guard_percent(left, right)


def _guard_percent(template: Any, args: Any) -> None:
    """``template % args`` is at most the template, every argument's text and every width
    and precision written: refuse it when that may pass :data:`MAX_SIZE`."""
    text = template.decode("latin-1") if isinstance(template, bytes) else template
    budget = len(text) + 8 * size_of(args)
    for match in _PERCENT_SPEC.finditer(text):
        for number in match.groups():
            if number == "*":
                budget += max((abs(a) for a in (args if isinstance(args, tuple) else (args,))
                               if type(a) is int), default=0)
            elif number:
                if len(number) > 9:
                    raise DecodeError(f"value too large to evaluate safely (over {MAX_SIZE})")
                budget += int(number)
        if budget > MAX_SIZE:
            raise DecodeError(f"value too large to evaluate safely (over {MAX_SIZE})")


from .decode import DecodeError  # noqa: E402  (decode imports this module lazily)
