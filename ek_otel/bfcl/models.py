"""What the official runner knows about a model: function-calling or prompting, and
``underscore_to_dot``.

The official runner looks the result directory's model name up in ``MODEL_CONFIG_MAPPING``
(``bfcl_eval/constants/model_config.py``, after replacing every ``_`` by ``/``) and
decodes with that model's handler: a function-calling model's string result (a text
answer) never decodes as calls, a prompting model's result is parsed as Python-call text;
``underscore_to_dot`` makes the checker expect ``_`` for ``.`` in function names.

ek-otel reads that registry from the source file of the installed package or of the wheel
given as ``--data`` (parsed with :mod:`ast`, never imported: importing it pulls in every
model SDK). The handler decides the decoding: most API handlers pick the default
function-calling or prompting decoder by ``is_fc_model``, the local ``OSSHandler`` family
always decodes prompting text, ``GeminiHandler`` keeps already-decoded arguments
(``"fc-decoded"``); handlers with decoders of their own (Hammer, Qwen FC, Cohere...) are
not reproduced. For those, and for a model the registry does not know, the style is read
from the results (:func:`style_of_results`); ``underscore_to_dot`` is off unless
registered or asked for.

Example:
    >>> traits = ModelTraits(is_fc_model=True, underscore_to_dot=True)
    >>> traits.style
    'fc'
    >>> registry_from_source('M = {"a-FC": ModelConfig(is_fc_model=True, underscore_to_dot=True)}')
    {'a-FC': ModelTraits(is_fc_model=True, underscore_to_dot=True, handler='')}
    >>> style_of_results(["text", [{"f": "{}"}]]), style_of_results(["[f(a=1)]"])
    ('fc', 'prompting')
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["ModelTraits", "BRANCHING_HANDLERS", "PROMPTING_HANDLERS", "registry_from_source",
           "model_registry", "lookup", "style_of_results"]

_CONFIG_FILE = ("constants", "model_config.py")


#: Handlers (bfcl_eval 2026.3.23) whose ``decode_ast`` is the default one of each kind,
#: picked by ``is_fc_model``: JSON-string arguments, or ``default_decode_ast_prompting``.
BRANCHING_HANDLERS = frozenset({
    "OpenAICompletionsHandler", "OpenAIResponsesHandler", "ClaudeHandler", "MistralHandler",
    "DeepSeekAPIHandler", "FireworksHandler", "FunctionaryHandler", "GLMAPIHandler",
    "GoGoAgentHandler", "GrokHandler", "KimiHandler", "LingAPIHandler", "NanbeigeAPIHandler",
    "NovitaHandler", "QwenAPIHandler", "QwenAgentThinkHandler", "QwenAgentNoThinkHandler",
    "WriterHandler",
})
#: Handlers that always decode as prompting, whatever ``is_fc_model`` says (the local
#: ``OSSHandler`` family without a decoder of its own, and ``NvidiaHandler``).
PROMPTING_HANDLERS = frozenset({
    "BielikHandler", "DeepseekReasoningHandler", "GemmaHandler", "LlamaHandler",
    "MiniCPMHandler", "QwenHandler", "NvidiaHandler",
})


@dataclass(frozen=True)
class ModelTraits:
    """The registry entries that change how a model's results are scored.

    Example:
        >>> ModelTraits(False, False).style
        'prompting'
        >>> ModelTraits(True, False, "LlamaHandler").style, ModelTraits(True, True, "GeminiHandler").style
        ('prompting', 'fc-decoded')
        >>> ModelTraits(True, False, "HammerHandler").style is None
        True
    """

    is_fc_model: bool
    underscore_to_dot: bool
    handler: str = ""

    @property
    def style(self) -> Optional[str]:
        """How the model's handler decodes results: ``"fc"``, ``"prompting"``,
        ``"fc-decoded"`` (``GeminiHandler``), or None for a handler with a decoder of its
        own (read the style from the results then)."""
        if self.handler in PROMPTING_HANDLERS:
            return "prompting"
        if self.handler == "GeminiHandler":
            return "fc-decoded" if self.is_fc_model else "prompting"
        if self.handler and self.handler not in BRANCHING_HANDLERS:
            return None
        return "fc" if self.is_fc_model else "prompting"


def _flag(call: ast.Call, name: str) -> Optional[bool]:
    for keyword in call.keywords:
        if keyword.arg == name and isinstance(keyword.value, ast.Constant):
            return bool(keyword.value.value)
    return None


def registry_from_source(source: str) -> dict:
    """``{registry name: ModelTraits}`` from the text of ``model_config.py``.

    Example:
        >>> registry_from_source("x = {'m': ModelConfig(is_fc_model=False, model_handler=H)}")
        {'m': ModelTraits(is_fc_model=False, underscore_to_dot=False, handler='H')}
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
            handler = next((k.value.id for k in value.keywords
                            if k.arg == "model_handler" and isinstance(k.value, ast.Name)), "")
            registry[key.value] = ModelTraits(is_fc, bool(_flag(value, "underscore_to_dot")),
                                              handler)
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


@functools.lru_cache(maxsize=1)
def _installed_registry() -> dict:
    try:
        spec = importlib.util.find_spec("bfcl_eval")  # locates, never imports
    except (ImportError, ValueError):
        return {}
    for location in (spec.submodule_search_locations or []) if spec else []:
        registry = _registry_at("dir", os.path.join(location, "data"))
        if registry:
            return registry
    return {}


def model_registry(data: Any) -> dict:
    """The registry that ships with the BFCL ``data`` (a :class:`~ek_otel.bfcl.data.BfclData`
    of a package directory or a wheel), else that of the installed ``bfcl_eval`` (the one
    the official runner would use), else ``{}``.

    Example:
        >>> from ek_otel.bfcl.data import BfclData
        >>> model_registry(BfclData("/nowhere"))["gpt-4o-2024-11-20-FC"]   # the installed one
        ModelTraits(is_fc_model=True, underscore_to_dot=True, handler='OpenAIResponsesHandler')
    """
    return _registry_at(data.kind, data.root) or _installed_registry()


def lookup(registry: dict, model_dir: str) -> Optional[ModelTraits]:
    """The traits of the model whose result directory is ``model_dir``, found as the
    official runner finds them (every ``_`` read as ``/``); None when not registered.

    Example:
        >>> reg = {"openai/gpt-x-FC": ModelTraits(True, True), "gpt-y": ModelTraits(False, False)}
        >>> lookup(reg, "openai_gpt-x-FC").underscore_to_dot, lookup(reg, "gpt-y").style, lookup(reg, "mine")
        (True, 'prompting', None)
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
