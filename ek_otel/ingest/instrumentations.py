"""What ek-otel knows about the instrumentations it reads: one table, in semantic-convention
terms, behind ``ek-otel doctor`` (:mod:`ek_otel.ingest.diagnose`) and ``docs/frameworks.md``.

Each :class:`Instrumentation` is recognised by the OTel **instrumentation scope** names its
spans carry (the ``scope.name`` of OTLP; a trailing ``*`` matches a prefix), and says:

- ``package``: the package that emits the spans, and ``convention``: the attribute
  conventions they follow (OTel GenAI, OpenInference, OpenLLMetry, Logfire, or the
  framework's own);
- ``framework``: what users call what is instrumented (``"pydantic-ai"``, ``"OpenAI client"``)
  and whether it is an agent ``framework`` or a model ``client`` (the framework of a trace is
  its agent framework when one is found);
- ``fixes``: for each item the package may leave out of its telemetry, the setting that makes
  it record it (``doctor`` prints it beside a gap it finds);
- ``limits``: items the package never records whatever its settings (only token kinds: a
  cached or reasoning count of 0 is then no proof the model used none), with what to add;
- ``opaque``: the package records calls and tokens only in forms never read (Python
  reprs): a trace of it with nothing read lacks every item;
- ``limits_before``: ``limits`` of releases before a version (``{item: (version, text)}``);
- ``stream_usage``: the package's own words for a streamed call without usage (else the
  provider's, :data:`STREAM_USAGE_FIXES`);
- ``stream_elsewhere``: where the package records a streamed call's answer and usage apart
  from the call's span (said first, whatever the request asked);
- ``carriers``: where the package puts what is not in the common places (``arguments``,
  ``results``, ``answer``, ``hosted``, ``tokens``), as :mod:`ek_otel.ingest.semconv` reads it.

The items are the :data:`SUPPORT_ITEMS` of the support matrix: tool names, arguments, call
ids, and input/output/cached/reasoning tokens.

Example:
    >>> hit = recognise("opentelemetry.util.genai.handler")
    >>> hit.package, hit.convention
    ('opentelemetry-instrumentation-openai-v2 (2.4+, through opentelemetry-util-genai)', 'OTel GenAI')
    >>> recognise("pydantic-ai").fixes["arguments"]
    'Agent(instrument=InstrumentationSettings(include_content=True))'
    >>> recognise("my.own.tracer") is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Optional

__all__ = [
    "SUPPORT_ITEMS",
    "TOKEN_ITEMS",
    "FRAMEWORK",
    "CLIENT",
    "Instrumentation",
    "INSTRUMENTATIONS",
    "recognise",
    "GENERIC_FIXES",
    "TASK_ID",
    "TASK_ID_FIX",
    "STREAM_USAGE_FIXES",
    "PROVIDER_LACKS",
    "STREAM_USAGE_ASKED",
    "TOTAL_ONLY",
]

#: The items of the support matrix, in its column order.
SUPPORT_ITEMS = ("tool_names", "arguments", "call_ids", "input_tokens", "output_tokens",
                 "cached_tokens", "reasoning_tokens")
#: The token items (a subset of :data:`SUPPORT_ITEMS`).
TOKEN_ITEMS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")

#: The gap of a run that carries no task id (not a support item: no instrumentation sets it),
#: and its fix; ``ek-otel score`` names the same fix when it cannot link a run to a task.
TASK_ID = "task_id"
TASK_ID_FIX = ("set ek.task.id on each run's root span (OTel SDK: "
               "span.set_attribute(\"ek.task.id\", task_id)), or score with --task ID (one task "
               "for every run) or --task-id-key KEY (the attribute that holds the id)")

#: ``Instrumentation.kind`` of an agent framework, and of a model client (or a gateway).
FRAMEWORK = "framework"
CLIENT = "client"


@dataclass(frozen=True)
class Instrumentation:
    """One instrumentation package, as its spans show it (module doc).

    Example:
        >>> Instrumentation(("a.b*",), "a", "OTel GenAI", "A", CLIENT).matches("a.b.c")
        True
    """

    scopes: tuple
    package: str
    convention: str
    framework: str
    kind: str
    fixes: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[str, str] = field(default_factory=dict)
    carriers: Mapping[str, str] = field(default_factory=dict)
    stream_usage: str = ""
    stream_elsewhere: str = ""
    limits_before: Mapping[str, tuple] = field(default_factory=dict)
    opaque: bool = False

    def limits_of(self, version: str) -> Mapping[str, str]:
        """``limits``, and the ``limits_before`` items whose version the scope is below (all
        of them when the scope names no version).

        Example:
            >>> i = Instrumentation(("a",), "a", "c", "A", CLIENT,
            ...                     limits_before={"cached_tokens": ("1.0", "upgrade")})
            >>> dict(i.limits_of("0.4b0")), dict(i.limits_of("1.3b0")), dict(i.limits_of(""))
            ({'cached_tokens': 'upgrade'}, {}, {'cached_tokens': 'upgrade'})
        """
        if not self.limits_before:
            return self.limits
        found = dict(self.limits)
        for item, (below, text) in self.limits_before.items():
            if not version or _release(version) < _release(below):  # unknown: may be older
                found.setdefault(item, text)
        return found

    def matches(self, scope_name: str) -> bool:
        """True when a scope name is one of this package's (``*``: a prefix)."""
        for scope in self.scopes:
            if scope.endswith("*"):
                if scope_name.startswith(scope[:-1]):
                    return True
            elif scope_name == scope:
                return True
        return False


def _release(version: str) -> tuple:
    """The leading numbers of a version (``"0.4b0"`` -> ``(0, 4)``), for comparing releases."""
    numbers = []
    for part in version.split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        numbers.append(int(digits))
        if len(digits) < len(part):
            break
    return tuple(numbers)


# -- the settings that fix a gap, named once --------------------------------------------------

_OTEL_CONTENT = ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (with "
                 "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental: span_only or "
                 "span_and_event)")
_TRACELOOP_CONTENT = "TRACELOOP_TRACE_CONTENT=true (the default)"
_OPENINFERENCE_CONTENT = ("OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS unset or "
                          "false (and OPENINFERENCE_HIDE_INPUT_MESSAGES / "
                          "OPENINFERENCE_HIDE_OUTPUT_MESSAGES)")
_STREAM_USAGE = ('streaming without usage: pass stream_options={"include_usage": True} to the '
                 "OpenAI call (or do not stream)")
_LITELLM_STREAM = ('streaming without usage: pass stream_options={"include_usage": True} to '
                   "litellm.completion / litellm.acompletion (or do not stream)")
#: logfire's instrument_openai / instrument_anthropic record every answer (response_data);
#: a streamed one, when the stream is consumed, in a log span of its own.
_LOGFIRE_STREAM = ("logfire records a streamed call's answer and usage in its 'streaming "
                   "response from ...' log, written where the stream is consumed: consume it "
                   "inside the trace of the call (within the run's span, e.g. a logfire.span)")
_ADD_CLIENT = ("add a model-client instrumentor (opentelemetry-instrumentation-openai-v2, "
               "openinference-instrumentation-openai, ...): its spans carry the model calls")
_GEMINI_IDS = ("none: Gemini models give no tool-call ids (calls are joined by name and "
               "order)")
#: What a provider never reports, whatever the instrumentation (no gap of the package).
PROVIDER_LACKS = {"gemini": frozenset({"call_ids"}),
                  "anthropic": frozenset({"reasoning_tokens"})}


def _content(fix: str) -> dict:
    """Content capture gates the model's requested calls: their names, arguments and ids."""
    return {"tool_names": fix, "arguments": fix, "call_ids": fix}


_OTHER_OPENAI = ("not recorded by this instrumentation: the OpenInference and OpenLLMetry "
                 "OpenAI instrumentors record them")

#: Every instrumentation ek-otel recognises, agent frameworks first (the corpus in
#: ``tests/ingest/corpus`` holds spans of each, made by the real package).
INSTRUMENTATIONS: tuple = (
    # -- agent frameworks, their own telemetry ------------------------------------------------
    Instrumentation(("pydantic-ai", "pydantic_ai*"), "pydantic-ai (Agent(instrument=...))",
                    "OTel GenAI", "pydantic-ai", FRAMEWORK,
                    fixes={"arguments": "Agent(instrument=InstrumentationSettings(include_content=True))"}),
    # 0.x: its tracer is named after the service ("strands-agents"), and its older traces
    # seen elsewhere under opentelemetry.instrumentation.strands
    Instrumentation(("strands.telemetry.tracer", "strands*",
                     "opentelemetry.instrumentation.strands"), "strands-agents", "OTel GenAI",
                    "Strands Agents", FRAMEWORK,
                    limits={"reasoning_tokens": "Strands records no reasoning-token count: add "
                                                "an OpenAI client instrumentor that does "
                                                "(OpenInference, OpenLLMetry)"},
                    limits_before={"cached_tokens": (
                        "1.0", "Strands 0.x records no cached-token count: upgrade "
                               "strands-agents (1.x records it), or add an OpenAI client "
                               "instrumentor that does (OpenInference, OpenLLMetry)")}),
    Instrumentation(("gcp.vertex.agent",), "google-adk", "OTel GenAI (+ gcp.vertex.agent.*)",
                    "Google ADK", FRAMEWORK,
                    fixes={"arguments": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="
                                        "SPAN_ONLY (or the legacy schema, "
                                        "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1, with "
                                        "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true)",
                           "call_ids": _GEMINI_IDS}),
    Instrumentation(("openinference.instrumentation.smolagents",),
                    "openinference-instrumentation-smolagents", "OpenInference", "smolagents",
                    FRAMEWORK, fixes={"arguments": _OPENINFERENCE_CONTENT},
                    limits={"cached_tokens": "add openinference-instrumentation-openai: its "
                                             "client spans carry them",
                            "reasoning_tokens": "add openinference-instrumentation-openai: its "
                                                "client spans carry them"}),
    Instrumentation(("openinference.instrumentation.llama_index",),
                    "openinference-instrumentation-llama-index", "OpenInference", "LlamaIndex",
                    FRAMEWORK, fixes={"arguments": _OPENINFERENCE_CONTENT},
                    stream_usage='streaming without usage: pass additional_kwargs='
                                 '{"stream_options": {"include_usage": True}} to '
                                 "llama_index.llms.openai.OpenAI (or do not stream)"),
    Instrumentation(("openinference.instrumentation.crewai",),
                    "openinference-instrumentation-crewai", "OpenInference", "CrewAI", FRAMEWORK,
                    fixes={"call_ids": "the crewai instrumentors trace no model call: "
                                       + _ADD_CLIENT}),
    Instrumentation(("opentelemetry.instrumentation.crewai*",),
                    "opentelemetry-instrumentation-crewai (OpenLLMetry)", "OpenLLMetry",
                    "CrewAI", FRAMEWORK,
                    fixes=dict.fromkeys(SUPPORT_ITEMS, "recorded only as Python reprs, which are "
                                        "never read: use openinference-instrumentation-crewai, "
                                        "or " + _ADD_CLIENT), opaque=True),
    Instrumentation(("openinference.instrumentation.openai_agents",),
                    "openinference-instrumentation-openai-agents", "OpenInference",
                    "OpenAI Agents SDK", FRAMEWORK, fixes=_content(_OPENINFERENCE_CONTENT)),
    Instrumentation(("opentelemetry.instrumentation.openai_agents",),
                    "opentelemetry-instrumentation-openai-agents (OTel contrib or OpenLLMetry)",
                    "OTel GenAI / OpenLLMetry", "OpenAI Agents SDK", FRAMEWORK,
                    fixes=_content(f"{_OTEL_CONTENT}; OpenLLMetry's: {_TRACELOOP_CONTENT}"),
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"),
                                         "the OTel contrib instrumentor does not record them: "
                                         "add an OpenAI client instrumentor that does "
                                         "(OpenInference, OpenLLMetry)")),
    Instrumentation(("logfire.openai_agents",), "logfire (instrument_openai_agents)", "Logfire",
                    "OpenAI Agents SDK", FRAMEWORK),
    Instrumentation(("logfire.claude_agent_sdk",), "logfire (instrument_claude_agent_sdk)",
                    "OTel GenAI", "Claude Agent SDK", FRAMEWORK),
    Instrumentation(("logfire.mcp",), "logfire (instrument_mcp; the MCP servers of "
                    "instrument_openai_agents)", "Logfire", "MCP", FRAMEWORK),
    Instrumentation(("openinference.instrumentation.langchain",),
                    "openinference-instrumentation-langchain", "OpenInference",
                    "LangChain / LangGraph", FRAMEWORK, fixes=_content(_OPENINFERENCE_CONTENT)),
    Instrumentation(("opentelemetry.instrumentation.langchain",),
                    "opentelemetry-instrumentation-langchain (OpenLLMetry)", "OpenLLMetry",
                    "LangChain / LangGraph", FRAMEWORK, fixes=_content(_TRACELOOP_CONTENT),
                    limits={"reasoning_tokens": "OpenLLMetry's LangChain instrumentor records no "
                                                "reasoning-token count: add "
                                                "opentelemetry-instrumentation-openai (0.52+)"}),
    Instrumentation(("semantic_kernel*",), "semantic-kernel", "OTel GenAI", "Semantic Kernel",
                    FRAMEWORK,
                    fixes={"arguments": "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"
                                        "_SENSITIVE=true"},
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"),
                                         "Semantic Kernel records input and output tokens only: "
                                         "add an OpenAI client instrumentor")),
    Instrumentation(("Microsoft.SemanticKernel*",), "Microsoft.SemanticKernel (.NET)", "OTel GenAI",
                    "Semantic Kernel", FRAMEWORK,
                    fixes={"arguments": "AppContext switch Microsoft.SemanticKernel.Experimental"
                                        ".GenAI.EnableOTelDiagnosticsSensitive (or the env var "
                                        "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"
                                        "_SENSITIVE=true)"},
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"),
                                         "Semantic Kernel records input and output tokens only: "
                                         "add an OpenAI client instrumentor")),
    Instrumentation(("autogen-core", "autogen*"), "autogen-agentchat / autogen-core", "OTel GenAI",
                    "AutoGen", FRAMEWORK,
                    fixes=dict.fromkeys(SUPPORT_ITEMS, "AutoGen traces no model call: " + _ADD_CLIENT)),
    Instrumentation(("opentelemetry.instrumentation.mcp*",),
                    "opentelemetry-instrumentation-mcp (OpenLLMetry)", "OpenLLMetry", "MCP",
                    FRAMEWORK, fixes={"arguments": _TRACELOOP_CONTENT}),
    Instrumentation(("mcp-python-sdk", "mcp.*"), "mcp (the SDK's own telemetry)", "OTel GenAI",
                    "MCP", FRAMEWORK),
    Instrumentation(("@mastra/*", "mastra*"), "@mastra/otel-exporter", "Mastra (mastra.*)",
                    "Mastra", FRAMEWORK,
                    fixes={"arguments": "tracingOptions hideInput/hideOutput false (the default)"}),
    Instrumentation(("mlflow*",), "mlflow (tracing exported over OTLP)", "MLflow (mlflow.*)",
                    "MLflow", FRAMEWORK,
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"),
                                         "with MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true MLflow drops "
                                         "them: leave it unset (mlflow.* attributes)")),
    Instrumentation(("ai",), "ai (Vercel AI SDK telemetry, ai.* attributes)", "Vercel AI (ai.*)",
                    "Vercel AI SDK", FRAMEWORK,
                    fixes={"arguments": "experimental_telemetry: { recordInputs: true, "
                                        "recordOutputs: true } (the defaults)"}),
    Instrumentation(("gen_ai",), "@ai-sdk/otel (Vercel AI SDK 7, registerTelemetry(new "
                    "OpenTelemetry()))", "OTel GenAI", "Vercel AI SDK", FRAMEWORK,
                    fixes={"arguments": "telemetry: { recordInputs: true, recordOutputs: true } "
                                        "(the defaults)"},
                    limits={"reasoning_tokens": "new OpenTelemetry({ usage: true })"}),
    Instrumentation(("langfuse-sdk", "langfuse*"), "langfuse (OpenAI integration)", "Langfuse",
                    "Langfuse", FRAMEWORK),
    # -- model clients and gateways --------------------------------------------------------
    Instrumentation(("opentelemetry.instrumentation.openai_v2",),
                    "opentelemetry-instrumentation-openai-v2", "OTel GenAI", "OpenAI client",
                    CLIENT, fixes=_content("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"),
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"), _OTHER_OPENAI)),
    Instrumentation(("opentelemetry.util.genai*",),
                    "opentelemetry-instrumentation-openai-v2 (2.4+, through opentelemetry-util-genai)",
                    "OTel GenAI", "OpenAI client", CLIENT,
                    fixes=_content(_OTEL_CONTENT),
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"), _OTHER_OPENAI)),
    Instrumentation(("opentelemetry.instrumentation.google_genai",),
                    "opentelemetry-instrumentation-google-genai", "OTel GenAI", "Google GenAI client",
                    CLIENT, fixes={**_content("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="
                                              "SPAN_ONLY with OTEL_SEMCONV_STABILITY_OPT_IN="
                                              "gen_ai_latest_experimental (before 1.0: "
                                              "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
                                              "=true)"),
                                   "call_ids": _GEMINI_IDS},
                    limits_before={item: ("1.0", "before 1.0 the instrumentor records no "
                                                 f"{item.split('_')[0]} tokens: upgrade "
                                                 "opentelemetry-instrumentation-google-genai")
                                   for item in ("cached_tokens", "reasoning_tokens")},
                    carriers={"arguments": "gen_ai.tool.call.arguments (1.x); before 1.0, "
                                           "automatic function calling: "
                                           "code.function.parameters.<name>.value",
                              "results": "gen_ai.tool.call.result (1.x); before 1.0: "
                                         "code.function.return.value",
                              "answer": "gen_ai.output.messages (1.x); before 1.0: the "
                                        "gen_ai.choice event's content.parts"}),
    Instrumentation(("opentelemetry.instrumentation.openai*",),
                    "opentelemetry-instrumentation-openai (OpenLLMetry)", "OpenLLMetry",
                    "OpenAI client", CLIENT, fixes=_content(_TRACELOOP_CONTENT),
                    limits={"reasoning_tokens": "opentelemetry-instrumentation-openai 0.52 or later "
                                                "records them, for calls that are not streamed"}),
    Instrumentation(("opentelemetry.instrumentation.anthropic",),
                    "opentelemetry-instrumentation-anthropic (OpenLLMetry)", "OpenLLMetry",
                    "Anthropic client", CLIENT, fixes=_content(_TRACELOOP_CONTENT)),
    Instrumentation(("openinference.instrumentation.openai",),
                    "openinference-instrumentation-openai", "OpenInference", "OpenAI client",
                    CLIENT, fixes=_content(_OPENINFERENCE_CONTENT)),
    Instrumentation(("openinference.instrumentation.anthropic",),
                    "openinference-instrumentation-anthropic", "OpenInference", "Anthropic client",
                    CLIENT, fixes=_content(_OPENINFERENCE_CONTENT)),
    Instrumentation(("com.anthropic.sdk*",), "anthropic (the SDK's own telemetry)", "OTel GenAI",
                    "Anthropic client", CLIENT,
                    fixes=_content("ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content")),
    Instrumentation(("logfire.anthropic",), "logfire (instrument_anthropic)", "Logfire",
                    "Anthropic client", CLIENT, fixes=_content(_LOGFIRE_STREAM),
                    stream_elsewhere=_LOGFIRE_STREAM),
    Instrumentation(("logfire.openai",), "logfire (instrument_openai)", "Logfire",
                    "OpenAI client", CLIENT, fixes=_content(_LOGFIRE_STREAM),
                    stream_elsewhere=_LOGFIRE_STREAM),
    Instrumentation(("logfire*",), "logfire (another of its integrations)", "Logfire",
                    "Logfire", CLIENT),
    Instrumentation(("litellm",), "litellm (OpenTelemetry callback)", "OpenLLMetry-like",
                    "LiteLLM", CLIENT,
                    fixes={"arguments": "litellm.turn_off_message_logging=False (the default)"},
                    stream_usage=_LITELLM_STREAM,
                    limits=dict.fromkeys(("cached_tokens", "reasoning_tokens"),
                                         "litellm's OpenTelemetry callback records input and "
                                         "output tokens only: add a client instrumentor of the "
                                         "provider's SDK for the details")),
    Instrumentation(("openlit*",), "openlit (openlit.init)", "OpenLit (gen_ai.* + content events)",
                    "OpenLit", CLIENT,
                    fixes={**_content("openlit.init(capture_message_content=True) (the "
                                      "default); before 1.3x OpenLit records a call that "
                                      "offered tools only as 'Function called with tools': "
                                      "upgrade openlit")},
                    limits={"reasoning_tokens": "OpenLit records no reasoning-token count: "
                                                "add a client instrumentor that does "
                                                "(OpenInference, OpenLLMetry)"},
                    limits_before={"cached_tokens": ("1.30", "OpenLit before 1.30 records "
                                                             "input and output tokens only: "
                                                             "upgrade openlit")},
                    carriers={"answer": "the gen_ai.content.completion span event "
                                        "(gen_ai.completion, plain text in 1.2x)",
                              "tokens": "gen_ai.usage.input_tokens / output_tokens"}),
    Instrumentation(("openinference.instrumentation.*",), "an OpenInference instrumentor",
                    "OpenInference", "OpenInference", CLIENT,
                    fixes={"arguments": _OPENINFERENCE_CONTENT}),
    Instrumentation(("opentelemetry.instrumentation.*",), "an OpenLLMetry or OTel contrib instrumentor",
                    "OTel GenAI / OpenLLMetry", "an instrumented library", CLIENT,
                    fixes={"arguments": f"{_OTEL_CONTENT}; OpenLLMetry's: {_TRACELOOP_CONTENT}"}),
)

#: The fix of a gap when no recognised instrumentation names one.
GENERIC_FIXES = {
    "arguments": f"turn content capture on: {_OTEL_CONTENT}; OpenLLMetry: {_TRACELOOP_CONTENT}; "
                 f"OpenInference: {_OPENINFERENCE_CONTENT}",
    "tool_names": "turn content capture on (the model's requested calls are message content)",
    "call_ids": _ADD_CLIENT,
    **dict.fromkeys(TOKEN_ITEMS, _ADD_CLIENT),
    TASK_ID: TASK_ID_FIX,
}

#: Streamed model calls that recorded no usage, in each provider's words: only OpenAI's API
#: (and LiteLLM, which passes it on) sends usage in a stream when asked
#: (``stream_options``); Anthropic's and Gemini's streams always carry it, so there the
#: instrumentation lost it. A package's own words (``Instrumentation.stream_usage``) come first.
STREAM_USAGE_FIXES = {
    "openai": _STREAM_USAGE,
    "litellm": _LITELLM_STREAM,
    "anthropic": ("Anthropic streams always carry usage (message_start and message_delta): "
                  "the instrumentation dropped it; use one that records streamed usage "
                  "(opentelemetry-instrumentation-anthropic 0.62+, "
                  "openinference-instrumentation-anthropic, the anthropic SDK's own telemetry)"),
    "gemini": ("Gemini streams carry usageMetadata on their chunks: the instrumentation "
               "dropped it; use one that records streamed usage "
               "(opentelemetry-instrumentation-google-genai 1.x)"),
}
#: When the request asked for usage in the stream and none was recorded anyway.
STREAM_USAGE_ASKED = ("the request asked for usage in the stream, and the instrumentation "
                      "recorded none: it does not read usage from streamed chunks; " + _ADD_CLIENT)
#: When a package recorded only a token total (no input/output split).
TOTAL_ONLY = ("only a token total is recorded, not its input/output split: "
              + _ADD_CLIENT)


def recognise(scope_name: str) -> Optional[Instrumentation]:
    """The :class:`Instrumentation` of a scope name, or None (the first match in the table).

    Example:
        >>> recognise("openinference.instrumentation.langchain").framework
        'LangChain / LangGraph'
        >>> recognise("openinference.instrumentation.somethingnew").package
        'an OpenInference instrumentor'
    """
    if not isinstance(scope_name, str) or not scope_name:
        return None
    for instrumentation in INSTRUMENTATIONS:
        if instrumentation.matches(scope_name):
            return instrumentation
    return None
