"""Token usage: the token-count attributes of every convention, and usage blobs.

Example:
    >>> usage_of({"llm.token_count.prompt": 7, "llm.token_count.completion": "2"})
    Usage(input_tokens=7, output_tokens=2, cached_input_tokens=0, reasoning_tokens=0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ...core.fastinit import fast_init
from .outputs import MLFLOW_CHUNK_EVENT_PREFIX, MLFLOW_CHUNK_VALUE
from .values import as_int, json_value

__all__ = [
    "Usage",
    "INPUT_TOKEN_KEYS",
    "OUTPUT_TOKEN_KEYS",
    "CACHED_TOKEN_KEYS",
    "REASONING_TOKEN_KEYS",
    "RAW_USAGE_KEYS",
    "usage_of",
    "aggregate_usage_of",
    "AGGREGATED_USAGE_PREFIX",
    "streamed_usage_of",
    "unreadable_token_counts",
]



@fast_init
@dataclass(frozen=True)
class Usage:
    """Token usage of one model call. ``input_tokens`` includes cached tokens (as reported).

    Example:
        >>> Usage(10, 2) + Usage(5, 1, cached_input_tokens=4)
        Usage(input_tokens=15, output_tokens=3, cached_input_tokens=4, reasoning_tokens=0)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


INPUT_TOKEN_KEYS: tuple = (
    "gen_ai.usage.input_tokens",  # OTel GenAI, Traceloop 0.5x and 0.62
    "gen_ai.usage.prompt_tokens",  # deprecated OTel, old Traceloop
    "llm.token_count.prompt",  # OpenInference
    "llm.usage.prompt_tokens",
    "ai.usage.promptTokens",  # Vercel AI SDK
    "ai.usage.inputTokens",
)
OUTPUT_TOKEN_KEYS: tuple = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "llm.usage.completion_tokens",
    "ai.usage.completionTokens",
    "ai.usage.outputTokens",
)
CACHED_TOKEN_KEYS: tuple = (
    "gen_ai.usage.cache_read.input_tokens",  # OTel GenAI, Traceloop 0.62, Logfire
    "gen_ai.usage.cache_read_input_tokens",  # Traceloop 0.5x
    "llm.token_count.prompt_details.cache_read",  # OpenInference
    "ai.usage.cachedInputTokens",  # Vercel AI SDK (ai.* attributes)
    "ai.usage.inputTokenDetails.cacheReadTokens",
)
REASONING_TOKEN_KEYS: tuple = (
    "gen_ai.usage.reasoning.output_tokens",  # OTel GenAI
    "gen_ai.usage.reasoning_tokens",  # Traceloop 0.62
    "llm.usage.reasoning_tokens",  # Traceloop 0.5x
    "llm.token_count.completion_details.reasoning",  # OpenInference
    "gen_ai.usage.details.reasoning_tokens",  # Pydantic AI (its usage details, by name)
    "ai.usage.reasoningTokens",  # Vercel AI SDK (ai.* attributes; gen_ai.* with usage: true)
    "ai.usage.outputTokenDetails.reasoningTokens",
)
#: JSON usage blobs: Logfire ``gen_ai.usage.raw`` (raw OpenAI usage), Langfuse
#: ``usage_details``, the Agents-SDK ``usage`` object that Logfire's agent spans carry,
#: MLflow's ``mlflow.chat.tokenUsage`` (input, output, cache-read counts) and the response
#: object its ``mlflow.spanOutputs`` holds (whose usage has the reasoning count).
RAW_USAGE_KEYS: tuple = (
    "gen_ai.usage.raw",
    "langfuse.observation.usage_details",
    "usage",
    "mlflow.chat.tokenUsage",
    "mlflow.spanOutputs",
)
#: ``object`` of the response objects whose ``usage`` is read (Chat Completions, Responses).
_RESPONSE_OBJECTS = frozenset({"chat.completion", "response"})


_USAGE_FIELDS: tuple = (
    ("input_tokens", INPUT_TOKEN_KEYS),
    ("output_tokens", OUTPUT_TOKEN_KEYS),
    ("cached_input_tokens", CACHED_TOKEN_KEYS),
    ("reasoning_tokens", REASONING_TOKEN_KEYS),
)
_TOKEN_KEYS: tuple = INPUT_TOKEN_KEYS + OUTPUT_TOKEN_KEYS + CACHED_TOKEN_KEYS + REASONING_TOKEN_KEYS
_TOKEN_KEY_SET = frozenset(_TOKEN_KEYS)
#: Usage exists only with an input or output count, or a usage blob that may hold one.
_USAGE_KEYS = frozenset(RAW_USAGE_KEYS + INPUT_TOKEN_KEYS + OUTPUT_TOKEN_KEYS)
_ALL_USAGE_KEYS = frozenset(RAW_USAGE_KEYS + _TOKEN_KEYS)


def _raw_usage_fields(raw: Any) -> dict:
    raw = json_value(raw)
    if not isinstance(raw, Mapping):
        return {}
    if raw.get("object") in _RESPONSE_OBJECTS and isinstance(raw.get("usage"), Mapping):
        raw = raw["usage"]  # a whole response object
    fields: dict = {}

    def put(name: str, *candidates: Any) -> None:
        for candidate in candidates:
            number = as_int(candidate)
            if number is not None:
                fields[name] = number
                return

    input_details = raw.get("prompt_tokens_details") or raw.get("input_tokens_details") or {}
    output_details = (
        raw.get("completion_tokens_details") or raw.get("output_tokens_details") or {}
    )
    if not isinstance(input_details, Mapping):
        input_details = {}
    if not isinstance(output_details, Mapping):
        output_details = {}
    put("input_tokens", raw.get("input_tokens"), raw.get("prompt_tokens"), raw.get("input"),
        raw.get("promptTokens"))
    put("output_tokens", raw.get("output_tokens"), raw.get("completion_tokens"),
        raw.get("output"), raw.get("completionTokens"))
    put("cached_input_tokens", input_details.get("cached_tokens"),
        raw.get("cache_read_input_tokens"), raw.get("input_cached_tokens"),
        raw.get("input_cache_read"), raw.get("cached_tokens"),
        raw.get("cached_prompt_tokens"))  # CrewAI's UsageMetrics
    put("reasoning_tokens", output_details.get("reasoning_tokens"),
        raw.get("output_reasoning_tokens"), raw.get("reasoning_tokens"),
        raw.get("output_reasoning"))
    return fields


def unreadable_token_counts(attributes: Mapping) -> tuple:
    """The token-count attributes present whose value is not a count (they are ignored).

    Example:
        >>> unreadable_token_counts({"gen_ai.usage.input_tokens": "lots",
        ...                          "gen_ai.usage.output_tokens": "7"})
        ('gen_ai.usage.input_tokens',)
        >>> unreadable_token_counts({"llm.token_count.prompt": 5})
        ()
    """
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return ()
    bad = set()
    for key in _TOKEN_KEY_SET.intersection(attributes):  # the few present, in any order
        value = attributes.get(key)
        if value is None or type(value) is int:
            continue
        if value != "" and as_int(value) is None:
            bad.add(key)
    return tuple(key for key in _TOKEN_KEYS if key in bad) if bad else ()


def usage_of(attributes: Mapping, extra: tuple = ()) -> Optional[Usage]:
    """The token usage recorded on a span (or event), or None when it records none.

    Explicit attributes win; JSON usage blobs (Logfire ``gen_ai.usage.raw``, Langfuse
    ``usage_details``, Agents-SDK ``usage``, MLflow's), then the ``extra`` ones (usage
    mappings recorded elsewhere: a streamed call's last chunk), fill what they leave out.
    Usage exists when an input or output count is present.

    Example:
        >>> usage_of({"llm.token_count.prompt": 50, "llm.token_count.completion": 7,
        ...           "llm.token_count.prompt_details.cache_read": 20})
        Usage(input_tokens=50, output_tokens=7, cached_input_tokens=20, reasoning_tokens=0)
        >>> usage_of({"gen_ai.usage.input_tokens": 9, "gen_ai.usage.output_tokens": 4,
        ...           "gen_ai.usage.raw": '{"completion_tokens_details": {"reasoning_tokens": 2}}'})
        Usage(input_tokens=9, output_tokens=4, cached_input_tokens=0, reasoning_tokens=2)
        >>> usage_of({"gen_ai.request.model": "m"}) is None
        True
    """
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return None
    found = _ALL_USAGE_KEYS.intersection(attributes)  # the few present, in any order
    if not extra and found.isdisjoint(_USAGE_KEYS):
        return None  # no count and no usage blob: the common case of non-model spans
    fields: dict = {}
    if not extra and found.isdisjoint(RAW_USAGE_KEYS):
        blobs: tuple = ()
    else:
        blobs = (*(attributes[key] for key in RAW_USAGE_KEYS if key in found), *extra)
    for blob in blobs:
        for name, value in _raw_usage_fields(blob).items():
            fields.setdefault(name, value)
    # per kind of count, the first key (in the order of its key list) holding a count wins
    ranks: dict = {}
    for key in found:
        rank = _TOKEN_KEY_RANKS.get(key)
        if rank is None:
            continue  # a usage blob
        value = attributes[key]
        number = value if type(value) is int else as_int(value)
        if number is not None:
            name = rank[0]
            if name not in ranks or rank[1] < ranks[name]:
                ranks[name] = rank[1]
                fields[name] = number
    get = fields.get
    input_tokens, output_tokens = get("input_tokens"), get("output_tokens")
    if input_tokens is None and output_tokens is None:
        return None
    cached, reasoning = get("cached_input_tokens", 0), get("reasoning_tokens", 0)
    return Usage(input_tokens if input_tokens is not None and input_tokens > 0 else 0,
                 output_tokens if output_tokens is not None and output_tokens > 0 else 0,
                 cached if cached > 0 else 0, reasoning if reasoning > 0 else 0)


#: token-count key -> (Usage field, rank of the key in that field's key list)
_TOKEN_KEY_RANKS: dict = {key: (name, rank) for name, keys in _USAGE_FIELDS
                          for rank, key in enumerate(keys)}


#: Run totals inside a recorded output object, read only as an aggregate (when no model
#: call carries usage): ``(attribute, field)``. OpenInference's crewai instrumentor records
#: the kickoff's CrewOutput as JSON in ``output.value``; its ``token_usage`` is CrewAI's
#: UsageMetrics (``prompt_tokens``, ``completion_tokens``, ``cached_prompt_tokens``,
#: ``reasoning_tokens``).
AGGREGATE_USAGE_FIELDS: tuple = (("output.value", "token_usage"),)
#: Pydantic AI (the 2.x default) writes a run's totals on its agent span under this prefix
#: instead of ``gen_ai.usage.`` (the same names after it), so that they are not summed with
#: the per-call usage.
AGGREGATED_USAGE_PREFIX = "gen_ai.aggregated_usage."
_USAGE_PREFIX = "gen_ai.usage."


def aggregate_usage_of(attributes: Mapping) -> Optional[Usage]:
    """The run totals an aggregate (agent, root) span records: :func:`usage_of`, else the
    ``gen_ai.aggregated_usage.*`` names read as their ``gen_ai.usage.*`` twins, else the
    run totals inside a recorded output object (:data:`AGGREGATE_USAGE_FIELDS`).

    Example:
        >>> aggregate_usage_of({"gen_ai.aggregated_usage.input_tokens": 9,
        ...                     "gen_ai.aggregated_usage.output_tokens": 2,
        ...                     "gen_ai.aggregated_usage.details.reasoning_tokens": 1})
        Usage(input_tokens=9, output_tokens=2, cached_input_tokens=0, reasoning_tokens=1)
        >>> aggregate_usage_of({"output.value": '{"raw": "done", "token_usage": {'
        ...     '"prompt_tokens": 90, "completion_tokens": 9, "cached_prompt_tokens": 40}}'})
        Usage(input_tokens=90, output_tokens=9, cached_input_tokens=40, reasoning_tokens=0)
        >>> aggregate_usage_of({"output.value": "token_usage: 90"}) is None
        True
    """
    usage = usage_of(attributes)
    if usage is not None or type(attributes) is not dict and not isinstance(attributes, Mapping):
        return usage
    renamed = {_USAGE_PREFIX + key[len(AGGREGATED_USAGE_PREFIX):]: value
               for key, value in attributes.items()
               if type(key) is str and key.startswith(AGGREGATED_USAGE_PREFIX)}
    if renamed:
        return usage_of(renamed)
    for key, field in AGGREGATE_USAGE_FIELDS:
        value = attributes.get(key)
        if type(value) is not str or f'"{field}"' not in value:
            continue
        holder = json_value(value)
        if isinstance(holder, Mapping):
            fields = _raw_usage_fields(holder.get(field))
            if "input_tokens" in fields or "output_tokens" in fields:
                get = fields.get
                return Usage(max(0, get("input_tokens", 0)), max(0, get("output_tokens", 0)),
                             max(0, get("cached_input_tokens", 0)),
                             max(0, get("reasoning_tokens", 0)))
    return None


def streamed_usage_of(span: Any) -> tuple:
    """The usage a streamed call's chunks carry, when the span kept its chunks as events
    (MLflow): ``(usage mapping,)`` of the last chunk that has one, else ``()``. It fills the
    token kinds the span's attributes leave out (see :func:`usage_of`).

    Example:
        >>> from ek_otel.ingest.records import SpanEvent, SpanRecord
        >>> s = SpanRecord("a" * 32, "b" * 16, events=(SpanEvent("mlflow.chunk.item.3",
        ...     attributes={"mlflow.chunk.value": '{"usage": {"prompt_tokens": 4}}'}),))
        >>> streamed_usage_of(s)
        ({'prompt_tokens': 4},)
    """
    for event in reversed(getattr(span, "events", None) or ()):
        if getattr(event, "name", "").startswith(MLFLOW_CHUNK_EVENT_PREFIX):
            chunk = json_value((getattr(event, "attributes", None) or {}).get(MLFLOW_CHUNK_VALUE))
            if isinstance(chunk, Mapping) and isinstance(chunk.get("usage"), Mapping):
                return (chunk["usage"],)
    return ()
