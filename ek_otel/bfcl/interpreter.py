"""Execution strings of BFCL's multi-turn entries, interpreted without ``eval``.

A model's call (``cd(folder='docs')``, rewritten to ``<instance name>.cd(...)`` by
:class:`~ek_otel.bfcl.simulator.ApiSession`) is parsed with :mod:`ast` and interpreted by
:class:`Interpreter`: literals, containers, unary minus, simple arithmetic on numbers,
names, attribute access on the simulated instances and calls of their methods, plus a few
pure builtins (``len``, ``round``, ``print`` silenced...). Calling a name of the official
executor's namespace that is never callable (``json(...)``) raises the ``TypeError``
``eval`` would; anything else only ``eval`` could run is refused (:class:`Refused`): other
builtins and namespace names, comprehensions, lambdas, subscripts, ``*``/``**`` unpacking,
attributes of anything but a simulated instance. :func:`contained_numeric_state` keeps
what a simulated method does to ``decimal`` and ``mpmath`` precision to that call.

Example:
    >>> Interpreter({}, {}).run("round(7 / 2)")
    4
    >>> Interpreter({}, {}).run("[x for x in 'ab']")
    Traceback (most recent call last):
    ...
    ek_otel.bfcl.interpreter.Refused: ListComp
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import decimal
import inspect
import io
import operator
import sys
from typing import Any, Iterator, Mapping, Optional

__all__ = ["Interpreter", "Refused", "contained_numeric_state"]


class Refused(Exception):
    """An expression that only ``eval`` could run; ek-otel refuses it."""


def _quiet_print(*args: Any, **kwargs: Any) -> None:
    kwargs.setdefault("file", io.StringIO())
    print(*args, **kwargs)


_SAFE_BUILTINS = {
    "abs": abs, "bool": bool, "dict": dict, "float": float, "int": int, "len": len,
    "list": list, "max": max, "min": min, "print": _quiet_print, "round": round,
    "set": set, "sorted": sorted, "str": str, "sum": sum, "tuple": tuple,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
          ast.Invert: operator.invert}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_NUMBER = (int, float, complex)


class Interpreter:
    """Evaluates the small expression language of execution strings (module doc).

    ``names``: global instance name -> simulated instance; ``shared_defaults``: the one
    pristine copy per check of each mutable default argument, filled on first use from
    ``mutable_defaults`` (class -> method -> ``(parameter, position, pristine value)``).

    Example:
        >>> class Calc:
        ...     def add(self, a, b=1):
        ...         return a + b
        >>> calc = Calc()
        >>> Interpreter({"calc": calc}, {}).run("calc.add(a=2, b=-3 * 2)")
        -4
        >>> Interpreter({"calc": calc}, {}).run("calc.__class__")
        Traceback (most recent call last):
        ...
        ek_otel.bfcl.interpreter.Refused: the attribute '__class__'
    """

    def __init__(self, names: Mapping[str, Any], shared_defaults: dict,
                 mutable_defaults: Optional[Mapping[type, Mapping[str, tuple]]] = None):
        self.names = names
        self.instances = tuple(names.values())
        self.shared_defaults = shared_defaults
        self.mutable_defaults = mutable_defaults or {}

    def run(self, text: str) -> Any:
        """The value of one execution string (``SyntaxError``, :class:`Refused`, or what the
        called method raises, as it raises it)."""
        tree = ast.parse(text, filename="<string>", mode="eval")
        _check_repeated_keywords(tree.body)
        return self.value(tree.body)

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [self.value(self.plain(e)) for e in node.elts]
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                raise Refused("** unpacking")
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self.value(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.value(node.left), self.value(node.right)
            if not (isinstance(left, _NUMBER) and isinstance(right, _NUMBER)):
                raise Refused("arithmetic on non-numbers")
            return _BINARY[type(node.op)](left, right)
        raise Refused(type(node).__name__)

    @staticmethod
    def plain(node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Starred):
            raise Refused("* unpacking")
        return node

    def name(self, identifier: str) -> Any:
        if identifier in self.names:
            return self.names[identifier]
        if identifier in _SAFE_BUILTINS:
            return _SAFE_BUILTINS[identifier]
        if identifier in _OFFICIAL_NAMESPACE:
            raise Refused(f"the name {identifier!r}")
        raise NameError(f"name '{identifier}' is not defined")

    def attribute(self, node: ast.Attribute) -> Any:
        owner = self.value(node.value)
        if not any(owner is instance for instance in self.instances):
            raise Refused(f"attribute access on {type(owner).__name__}")
        if node.attr.startswith("__"):
            raise Refused(f"the attribute {node.attr!r}")
        return getattr(owner, node.attr)

    def call(self, node: ast.Call) -> Any:
        uncallable = _uncallable_type(node.func, self.names)
        function = None if uncallable else self.value(node.func)
        args = [self.value(self.plain(a)) for a in node.args]
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise Refused("** unpacking")
            kwargs[keyword.arg] = self.value(keyword.value)
        if uncallable:
            raise TypeError(f"'{uncallable}' object is not callable")
        if not callable(function):
            raise TypeError(f"'{type(function).__name__}' object is not callable")
        if not self._may_call(function):
            raise Refused(f"calling {function!r}")
        if inspect.ismethod(function):
            self._fill_mutable_defaults(function, args, kwargs)
        return function(*args, **kwargs)

    def _fill_mutable_defaults(self, method: Any, args: list, kwargs: dict) -> None:
        owner_class = type(method.__self__)
        for name, position, pristine in self.mutable_defaults.get(owner_class, {}).get(
                method.__name__, ()):
            if name in kwargs or position < len(args):
                continue
            key = (owner_class.__qualname__, method.__name__, name)
            if key not in self.shared_defaults:
                self.shared_defaults[key] = copy.deepcopy(pristine)
            kwargs[name] = self.shared_defaults[key]

    def _may_call(self, function: Any) -> bool:
        if any(function is f for f in _SAFE_BUILTINS.values()):
            return True
        owner = getattr(function, "__self__", None)
        return inspect.ismethod(function) and any(owner is i for i in self.instances)


def _uncallable_type(func: ast.AST, names: Mapping[str, Any]) -> Optional[str]:
    """The type name of an official-namespace name that cannot be called (``json(...)``)."""
    if isinstance(func, ast.Name) and func.id not in names:
        return _UNCALLABLE_OFFICIAL_NAMES.get(func.id)
    return None


def _check_repeated_keywords(node: ast.AST) -> None:
    """Raise the compiler's SyntaxError for ``f(a=1, a=2)`` (``ast.parse`` accepts it).

    Visits calls in the compiler's order: the callee, the call's own keywords, then its
    arguments; constants (most of any call) are skipped at once.
    """
    if isinstance(node, (ast.Constant, ast.Name)):
        return
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for child in node.elts:
            _check_repeated_keywords(child)
        return
    if isinstance(node, ast.Call):
        _check_repeated_keywords(node.func)
        seen = set()
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in seen:
                raise SyntaxError(f"keyword argument repeated: {keyword.arg}",
                                  ("<string>", 1, keyword.col_offset + 1, None))
            seen.add(keyword.arg)
        for child in node.args:
            _check_repeated_keywords(child)
        for keyword in node.keywords:
            _check_repeated_keywords(keyword.value)
        return
    for child in ast.iter_child_nodes(node):
        _check_repeated_keywords(child)


# Names ``eval`` would find in the official executor (its module globals, its locals, and
# Python's builtins). They are refused rather than guessed at.
_OFFICIAL_NAMESPACE = frozenset(dir(builtins)) | frozenset({
    "copy", "importlib", "inspect", "json", "re", "CLASS_FILE_PATH_MAPPING",
    "STATELESS_CLASSES", "execute_multi_turn_func_call", "is_empty_execute_response",
    "_process_method_calls", "func_call_list", "initial_config", "involved_classes",
    "model_name", "test_entry_id", "long_context", "is_evaL_run",
    "class_method_name_mapping", "involved_instances", "class_name", "module_name",
    "instance_name", "module", "class_", "class_instance", "method_name", "method",
    "execution_results", "func_call", "func_call_copy",
})


@contextlib.contextmanager
def contained_numeric_state() -> Iterator[None]:
    """Keep a call's process-wide numeric settings to itself.

    Example:
        >>> import decimal
        >>> before = decimal.getcontext().prec
        >>> with contained_numeric_state():
        ...     decimal.getcontext().prec = 5
        >>> decimal.getcontext().prec == before
        True

    ``MathAPI.square_root`` sets the thread's ``decimal`` precision and
    ``MathAPI.logarithm`` sets ``mpmath.mp.dps``; each sets them right before use, so
    restoring them afterwards changes no result, and keeps the rest of ek-otel unaffected.
    """
    mpmath = sys.modules.get("mpmath")
    saved_dps = mpmath.mp.dps if mpmath is not None else None
    try:
        with decimal.localcontext():
            yield
    finally:
        if mpmath is not None:
            mpmath.mp.dps = saved_dps


# Names of the official executor's namespace whose value is never callable, by type name:
# calling one raises the same TypeError as ``eval`` would.
_UNCALLABLE_OFFICIAL_NAMES = {
    **dict.fromkeys(("copy", "importlib", "inspect", "json", "re"), "module"),
    **dict.fromkeys(("model_name", "test_entry_id", "class_name", "module_name",
                     "instance_name", "method_name", "func_call", "func_call_copy"), "str"),
    **dict.fromkeys(("initial_config", "class_method_name_mapping", "involved_instances",
                     "CLASS_FILE_PATH_MAPPING"), "dict"),
    **dict.fromkeys(("func_call_list", "involved_classes", "execution_results",
                     "STATELESS_CLASSES"), "list"),
    **dict.fromkeys(("long_context", "is_evaL_run"), "bool"),
}
