"""Access to the official ``bfcl_eval`` checker, for comparison tests and the benchmark only.

``bfcl_eval.constants.model_config`` imports every model handler (and so openai,
anthropic, ... and, through them, heavy stacks). When that import fails, a stand-in module
is registered in its place: a ``MODEL_CONFIG_MAPPING`` whose every model is a
function-calling model without ``underscore_to_dot``, whose handler decodes like the
official OpenAI function-calling handler. Nothing else of ``bfcl_eval`` is changed.

ek-otel itself never imports this module to score; install the official package with
``pip install --no-deps bfcl-eval==2026.3.23`` to use it.

Example:
    >>> official_ast_checker().__module__   # bfcl_eval installed (the test setup)
    'bfcl_eval.eval_checker.ast_eval.ast_checker'
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from typing import Any, Optional

__all__ = ["official_ast_checker", "official_language", "official_eval_runner",
           "OfficialFcHandler"]

_MODEL_CONFIG = "bfcl_eval.constants.model_config"


class OfficialFcHandler:
    """A stand-in handler that decodes as the official OpenAI function-calling handler.

    Example:
        >>> OfficialFcHandler().decode_ast([{"f": '{"a": 1}'}], None, False)
        [{'f': {'a': 1}}]
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.is_fc_model = True

    def decode_ast(self, result, language, has_tool_call_tag):
        """``[{name: json.loads(args)}]``, exactly as the official FC handlers."""
        decoded = []
        for invoked in result:
            name = list(invoked.keys())[0]
            decoded.append({name: json.loads(invoked[name])})
        return decoded

    def decode_execute(self, result, has_tool_call_tag):
        """Execution strings, as the official ``convert_to_function_call``."""
        from bfcl_eval.model_handler.utils import convert_to_function_call

        return convert_to_function_call(result)


class _Config:
    underscore_to_dot = False
    is_fc_model = True
    model_handler = OfficialFcHandler
    display_name = "model"
    url = ""
    org = ""
    license = ""
    input_price = None
    output_price = None

    def __init__(self, name: str) -> None:
        self.model_name = name


class _AnyModel(dict):
    def __missing__(self, key: str) -> _Config:
        return _Config(key)

    def __contains__(self, key: object) -> bool:
        return True


def _ensure_model_config() -> bool:
    try:
        import bfcl_eval  # noqa: F401
    except ImportError:
        return False
    if _MODEL_CONFIG in sys.modules:
        return True
    try:
        __import__(_MODEL_CONFIG)
    except Exception:  # heavy handler dependencies are missing: use the stand-in
        stub = types.ModuleType(_MODEL_CONFIG)
        stub.MODEL_CONFIG_MAPPING = _AnyModel()
        sys.modules[_MODEL_CONFIG] = stub
    return True


def _official_module(name: str) -> Optional[Any]:
    """Import a ``bfcl_eval`` module (with the stand-in model config), or None."""
    if not _ensure_model_config():
        return None
    try:
        return importlib.import_module(name)
    except Exception:  # any missing dependency of the official package
        return None


def official_ast_checker() -> Optional[Any]:
    """The official ``ast_checker`` function, or None when ``bfcl_eval`` is not importable.

    Example:
        >>> official_ast_checker().__name__
        'ast_checker'
    """
    module = _official_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    return None if module is None else module.ast_checker


def official_language(category: str) -> Any:
    """The official ``Language`` enum member for a category.

    Example:
        >>> official_language("simple_java").name, official_language("parallel").name
        ('JAVA', 'PYTHON')
    """
    from bfcl_eval.constants.enums import Language

    from .categories import language_of

    return {"java": Language.JAVA, "javascript": Language.JAVASCRIPT}.get(
        language_of(category), Language.PYTHON)


def official_eval_runner() -> Optional[Any]:
    """The official ``eval_runner`` module (end-to-end scoring), or None when it cannot be
    imported (it needs pandas, tqdm, filelock, tenacity, overrides, python-dotenv and the
    tree-sitter packages, but no model SDK thanks to the stand-in model config).

    Example:
        >>> official_eval_runner().__name__, callable(official_eval_runner().evaluate_task)
        ('bfcl_eval.eval_checker.eval_runner', True)
    """
    return _official_module("bfcl_eval.eval_checker.eval_runner")
