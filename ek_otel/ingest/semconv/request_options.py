"""A model call's request options, as far as ``ek-otel doctor`` needs them: the provider, whether
it was streamed and whether it asked for usage in the stream, a token total recorded without
its split, and whether the call failed.

Example:
    >>> provider_of({"gen_ai.system": "Anthropic"}), provider_of({"gen_ai.provider.name": "openai.chat"})
    ('anthropic', 'openai')
    >>> streaming_of({"llm.invocation_parameters": '{"stream": true}'}, "chat")
    (True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .run import _invocation_parameter
from .values import as_int, first_value, json_value, text_or_empty

__all__ = ["PROVIDER_KEYS", "TOTAL_TOKEN_KEYS", "provider_of", "streaming_of",
           "total_tokens_of"]

#: Where the model provider is named (OTel GenAI current and deprecated, OpenInference).
PROVIDER_KEYS: tuple = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
#: Provider names as packages write them -> the provider (``gcp.gemini``, ``vertex_ai``).
_PROVIDER_ALIASES = {"gcp": "gemini", "google": "gemini", "vertex_ai": "gemini",
                     "vertexai": "gemini", "gcp.gemini": "gemini", "gcp.vertex_ai": "gemini",
                     "google_genai": "gemini", "az.ai.openai": "openai", "azure": "openai"}
#: A token total recorded on its own (no input/output split): a token count all the same.
TOTAL_TOKEN_KEYS: tuple = ("gen_ai.usage.total_tokens", "llm.usage.total_tokens",
                           "llm.token_count.total", "ai.usage.tokens", "ai.usage.totalTokens")
_STREAM_FLAGS: tuple = ("gen_ai.request.stream", "gen_ai.is_streaming", "llm.is_streaming",
                        "stream")
_STREAM_OPTIONS = "stream_options"
_STREAMING_NAMES = ("stream", "Stream")


def provider_of(attributes: Mapping) -> str:
    """The model provider a span names, lower-case and without an API suffix; "" if none.

    Example:
        >>> provider_of({"llm.provider": "openai"}), provider_of({})
        ('openai', '')
        >>> provider_of({"gen_ai.system": "gcp.gemini"})
        'gemini'
    """
    value = text_or_empty(first_value(attributes, PROVIDER_KEYS)).strip().lower()
    if not value:
        return ""
    if value in _PROVIDER_ALIASES:
        return _PROVIDER_ALIASES[value]
    head = value.split(".", 1)[0]
    return _PROVIDER_ALIASES.get(head, head)


def _truthy(value: Any) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    text = text_or_empty(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    return None


def streaming_of(attributes: Mapping, span_name: str = "") -> tuple:
    """``(streamed, asked_for_usage)`` of a model call's request: streamed when a flag or
    the request parameters say so (or the span's name: ``astream_chat``, ``doStream``);
    ``asked_for_usage`` when ``stream_options.include_usage`` was set (OpenAI, LiteLLM).

    Example:
        >>> streaming_of({"stream": "true", "stream_options": '{"include_usage": true}'})
        (True, True)
        >>> streaming_of({}, "OpenAI.astream_chat"), streaming_of({})
        ((True, False), (False, False))
    """
    streamed = None
    for key in _STREAM_FLAGS:
        if key in attributes:
            streamed = _truthy(attributes.get(key))
            if streamed is not None:
                break
    if streamed is None:
        streamed = _truthy(_invocation_parameter(attributes, "stream"))
    if streamed is None:
        streamed = any(word in (span_name or "") for word in _STREAMING_NAMES)
    options = json_value(attributes.get(_STREAM_OPTIONS))
    if not isinstance(options, Mapping):
        options = _invocation_parameter(attributes, _STREAM_OPTIONS)
        if not isinstance(options, Mapping):
            extra = _invocation_parameter(attributes, "additional_kwargs")  # LlamaIndex
            options = extra.get(_STREAM_OPTIONS) if isinstance(extra, Mapping) else None
    asked = bool(isinstance(options, Mapping) and _truthy(options.get("include_usage")))
    return bool(streamed), asked


def total_tokens_of(attributes: Mapping) -> Optional[int]:
    """A token total recorded without its input/output split, or None.

    Example:
        >>> total_tokens_of({"ai.usage.tokens": "42"}), total_tokens_of({})
        (42, None)
    """
    for key in TOTAL_TOKEN_KEYS:
        value = as_int(attributes.get(key))
        if value is not None and value > 0:
            return value
    return None
