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
           "may_name", "model_registry", "lookup", "style_of_results"]

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
def _source_at(kind: str, root: str) -> Optional[str]:
    """The text of ``model_config.py`` beside the data (a package's, a wheel's), or None."""
    try:
        if kind == "wheel":
            with zipfile.ZipFile(root) as archive:
                return archive.read("bfcl_eval/" + "/".join(_CONFIG_FILE)).decode("utf-8")
        path = os.path.join(os.path.dirname(root), *_CONFIG_FILE)
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (KeyError, OSError, UnicodeDecodeError, zipfile.BadZipFile):
        return None


@functools.lru_cache(maxsize=8)
def _registry_at(kind: str, root: str) -> dict:
    source = _source_at(kind, root)
    return {} if source is None else registry_from_source(source)


@functools.lru_cache(maxsize=1)
def _installed_roots() -> tuple:
    """The ``data`` folders of the installed ``bfcl_eval`` (found, never imported)."""
    try:
        spec = importlib.util.find_spec("bfcl_eval")
    except (ImportError, ValueError):
        return ()
    locations = (spec.submodule_search_locations or []) if spec else []
    return tuple(os.path.join(location, "data") for location in locations)


def _installed_registry() -> dict:
    for root in _installed_roots():
        registry = _registry_at("dir", root)
        if registry:
            return registry
    return {}


def may_name(source: Optional[str], names: Iterable[str]) -> bool:
    """Whether the registry ``source`` may hold a string constant equal to one of ``names``
    (and so a key): False only when none can be, found from the text alone.

    Without a backslash in ``source`` no literal has an escape, so a constant equal to a
    name is either the name's own text in quotes, or adjacent literals (implicit
    concatenation) whose first non-empty one is a proper prefix of the name, quoted. When
    neither the name nor any quoted prefix of it occurs in the text, no constant is the
    name. A few substring searches instead of parsing the whole registry.

    Example:
        >>> may_name('M = {"a/b": ModelConfig(is_fc_model=True)}', ["a/b"]), may_name('M = {}', ["a/b"])
        (True, False)
        >>> may_name(None, ["a/b"]), may_name('M = {"a/" "b": 1}', ["a/b"]), may_name('M = {"a\\x2fb": 1}', ["a/b"])
        (False, True, True)
    """
    if source is None:
        return False
    if "\\" in source:
        return True
    for name in names:
        if name in source:
            return True
        for end in range(1, len(name)):
            prefix = name[:end]
            if f'"{prefix}"' in source or f"'{prefix}'" in source:
                return True
    return False


def model_registry(data: Any, models: Optional[Iterable[str]] = None) -> dict:
    """The registry that ships with the BFCL ``data`` (a :class:`~ek_otel.bfcl.data.BfclData`
    of a package directory or a wheel), else that of the installed ``bfcl_eval`` (the one
    the official runner would use), else ``{}``.

    With ``models`` (result directory names), the registry is only good for looking those
    up (:func:`lookup`): ``{}``, and nothing parsed, when no registry source can name any
    of them (:func:`may_name`), as for a model nobody registered.

    Example:
        >>> from ek_otel.bfcl.data import BfclData
        >>> model_registry(BfclData("/nowhere"))["gpt-4o-2024-11-20-FC"]   # the installed one
        ModelTraits(is_fc_model=True, underscore_to_dot=True, handler='OpenAIResponsesHandler')
        >>> model_registry(BfclData("/nowhere"), ["my_model-v1"])
        {}
    """
    if models is not None:
        names = [name for model in models for name in (model.replace("_", "/"), model)]
        roots = dict.fromkeys([(data.kind, data.root)] + [("dir", r) for r in _installed_roots()])
        if not any(may_name(_source_at(kind, root), names) for kind, root in roots):
            return {}
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
