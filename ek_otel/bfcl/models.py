"""What the official runner knows about a model: function-calling or prompting, and
``underscore_to_dot``.

The official runner looks the result directory's model name up in ``MODEL_CONFIG_MAPPING``
(``bfcl_eval/constants/model_config.py``, after replacing every ``_`` by ``/``) and
decodes with that model's handler: a function-calling model's string result (a text
answer) never decodes as calls, a prompting model's result is parsed as Python-call text;
``underscore_to_dot`` makes the checker expect ``_`` for ``.`` in function names.

ek-otel reads that registry from the source file of the installed package or of the wheel
given as ``--data`` (parsed with :mod:`ast`, never imported: importing it pulls in every
model SDK). For a model the registry does not know, the style is read from the results
(:func:`style_of_results`) and ``underscore_to_dot`` is off unless asked for.

Example:
    >>> traits = ModelTraits(is_fc_model=True, underscore_to_dot=True)
    >>> traits.style
    'fc'
    >>> registry_from_source('M = {"a-FC": ModelConfig(is_fc_model=True, underscore_to_dot=True)}')
    {'a-FC': ModelTraits(is_fc_model=True, underscore_to_dot=True)}
    >>> style_of_results(["text", [{"f": "{}"}]]), style_of_results(["[f(a=1)]"])
    ('fc', 'prompting')
"""

from __future__ import annotations

import ast
import functools
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["ModelTraits", "registry_from_source", "model_registry", "lookup",
           "style_of_results"]

_CONFIG_FILE = ("constants", "model_config.py")


@dataclass(frozen=True)
class ModelTraits:
    """The two registry flags that change how results are scored.

    Example:
        >>> ModelTraits(False, False).style
        'prompting'
    """

    is_fc_model: bool
    underscore_to_dot: bool

    @property
    def style(self) -> str:
        """``"fc"`` or ``"prompting"``: how the model's handler decodes results."""
        return "fc" if self.is_fc_model else "prompting"


def _flag(call: ast.Call, name: str) -> Optional[bool]:
    for keyword in call.keywords:
        if keyword.arg == name and isinstance(keyword.value, ast.Constant):
            return bool(keyword.value.value)
    return None


def registry_from_source(source: str) -> dict:
    """``{registry name: ModelTraits}`` from the text of ``model_config.py``.

    Example:
        >>> registry_from_source("x = {'m': ModelConfig(is_fc_model=False)}")
        {'m': ModelTraits(is_fc_model=False, underscore_to_dot=False)}
        >>> registry_from_source("not python(")
        {}
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    registry = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                    and isinstance(value, ast.Call)):
                continue
            is_fc = _flag(value, "is_fc_model")
            if is_fc is None:
                continue
            registry[key.value] = ModelTraits(is_fc, bool(_flag(value, "underscore_to_dot")))
    return registry


@functools.lru_cache(maxsize=8)
def _registry_at(kind: str, root: str) -> dict:
    try:
        if kind == "wheel":
            with zipfile.ZipFile(root) as archive:
                source = archive.read("bfcl_eval/" + "/".join(_CONFIG_FILE)).decode("utf-8")
        else:
            path = os.path.join(os.path.dirname(root), *_CONFIG_FILE)
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
    except (KeyError, OSError, UnicodeDecodeError, zipfile.BadZipFile):
        return {}
    return registry_from_source(source)


def model_registry(data: Any) -> dict:
    """The registry that ships with the BFCL ``data`` (a :class:`~ek_otel.bfcl.data.BfclData`
    of an installed package or a wheel); ``{}`` for a bare data directory.

    Example:
        >>> from ek_otel.bfcl.data import BfclData
        >>> model_registry(BfclData("/nowhere"))
        {}
    """
    return _registry_at(data.kind, data.root)


def lookup(registry: dict, model_dir: str) -> Optional[ModelTraits]:
    """The traits of the model whose result directory is ``model_dir``, found as the
    official runner finds them (every ``_`` read as ``/``); None when not registered.

    Example:
        >>> reg = {"openai/gpt-x-FC": ModelTraits(True, True), "gpt-y": ModelTraits(False, False)}
        >>> lookup(reg, "openai_gpt-x-FC"), lookup(reg, "gpt-y"), lookup(reg, "mine")
        (ModelTraits(is_fc_model=True, underscore_to_dot=True), ModelTraits(is_fc_model=False, underscore_to_dot=False), None)
    """
    return registry.get(model_dir.replace("_", "/")) or registry.get(model_dir)


def _has_call_list(value: Any, depth: int) -> bool:
    if isinstance(value, dict):
        return True
    if isinstance(value, list):
        if depth == 0:
            return True
        return any(_has_call_list(item, depth - 1) for item in value)
    return False


def style_of_results(results: Iterable[Any], depth: int = 0) -> str:
    """``"fc"`` when any result holds a call list (a list or dict ``depth`` levels down:
    0 for single-turn results, 2 for multi-turn and agentic turns → steps), else
    ``"prompting"`` (prompting models only ever write strings).

    Example:
        >>> style_of_results([[["Done."]], [[[{"ls": "{}"}]]]], depth=2)
        'fc'
        >>> style_of_results([[["[ls()]"]]], depth=2)
        'prompting'
    """
    for result in results:
        if _has_call_list(result, depth):
            return "fc"
    return "prompting"
