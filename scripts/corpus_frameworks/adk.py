"""Google ADK's own OpenTelemetry spans, with ``LiteLlm`` against the fake OpenAI server and
with ADK's own Gemini model against the fake Gemini server.

An ADK ``LlmAgent`` named WeatherAgent, with the three pretend tools as Python functions,
runs the fake server's script in an ``InMemoryRunner``: through
``LiteLlm("openai/gpt-4o-mini", api_base=...)`` (litellm's OpenAI provider, Chat
Completions; litellm's own callbacks are not installed), or through
``Gemini(base_url=...)`` (google-genai against ``fake_gemini.py``). ADK traces itself
(tracer ``gcp.vertex.agent``).

Modes (read from google/adk/telemetry/_schema_version.py and context.py, 2.13.0):

- default: schema version 2 (``otel_semconv_1_44``), GenAI-semconv aligned (the experimental
  GenAI conventions whatever ``OTEL_SEMCONV_STABILITY_OPT_IN`` says), no content;
- ``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`` with
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY``: content on the spans;
  ``EVENT_ONLY``: content only in the inference-details log records;
- ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1``: the legacy schema, ``call_llm`` spans and the
  ``gcp.vertex.agent.*`` attributes (content in them unless
  ``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false``);
- ``RunConfig(streaming_mode=StreamingMode.SSE)``: every partial response recorded too.

When a model answer asks for several tools at once, ADK runs them in parallel and adds one
``execute_tool (merged)`` span over them: a grouping span, no call.
"""

from __future__ import annotations

from pathlib import Path

VERSION = "2.13.0"
# google-adk 2.13.0 requires opentelemetry-sdk<1.45: the SDK of its time, and the JSON
# file exporter (which pins the 1.45 line) without its dependencies (NO_DEPS)
ENVIRONMENTS: dict = {
    "adk": ["opentelemetry-sdk==1.44.0", "opentelemetry-exporter-otlp-proto-common==1.44.0",
            "httpx==0.28.1", "openai==3.57.0", f"google-adk=={VERSION}", "litellm==1.110.2"],
}
NO_DEPS: dict = {"adk": ["opentelemetry-exporter-otlp-json-file==0.66b1",
                         "opentelemetry-exporter-otlp-json-common==0.66b1",
                         "opentelemetry-proto-json==0.66b1",
                         "opentelemetry-exporter-otlp-common==0.66b1"]}

FRAMEWORK = "Google ADK"
_COMMON_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # no price list from the internet
#: the latest experimental GenAI conventions, content on the spans
_LATEST = {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
           "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"}
_LATEST_MODE = ", ".join(f"{k}={v}" for k, v in _LATEST.items())

SCENARIOS: dict = {
    f"adk-{VERSION}-litellm": ("adk", "adk", [], dict(_COMMON_ENV)),
    f"adk-{VERSION}-litellm-latest_experimental": (
        "adk", "adk", [],
        dict(_COMMON_ENV, **_LATEST)),
    f"adk-{VERSION}-litellm-legacy": (
        "adk", "adk", [], dict(_COMMON_ENV, ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN="1")),
    # ADK's own Gemini model (google-genai) against fake_gemini.py: Gemini's usage semantics
    # (thoughts apart from candidates), function calls without ids
    f"adk-{VERSION}-gemini": ("adk", "gemini_adk", [], {}),
    f"adk-{VERSION}-gemini-latest_experimental": (
        "adk", "gemini_adk", [],
        dict(_LATEST)),
    # the fix the default mode's support record names, alone
    f"adk-{VERSION}-gemini-span_only": (
        "adk", "gemini_adk", [],
        dict(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="SPAN_ONLY")),
    # content only in the inference-details log records (linked to the spans by span id)
    f"adk-{VERSION}-gemini-event_only": (
        "adk", "gemini_adk", [],
        dict(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="EVENT_ONLY")),
    f"adk-{VERSION}-gemini-legacy": (
        "adk", "gemini_adk", [], dict(ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN="1")),
    f"adk-{VERSION}-gemini-legacy-no_content": (
        "adk", "gemini_adk", [], dict(ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN="1",
                                      ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS="false")),
    f"adk-{VERSION}-gemini-latest_experimental-sse": (
        "adk", "gemini_adk_sse", [],
        dict(_LATEST)),
    # RunConfig(streaming_mode=StreamingMode.SSE): LiteLlm streams (partial events)
    f"adk-{VERSION}-litellm-latest_experimental-sse": (
        "adk", "adk_sse", [],
        dict(_COMMON_ENV, **_LATEST)),
}

_ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
             "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
             "reasoning_tokens": "read"}

EXPECT: dict = {}  # filled in below, per scenario, from what the spans hold


def _entry(mode: str, **changes) -> dict:
    entry = {"args": True, "cached": True, "reasoning": True, "framework": FRAMEWORK,
             "framework_version": VERSION, "mode": mode, "support": dict(_ALL_READ),
             "fixes": {}, "notes": []}
    entry.update(changes)
    return entry




def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: the ADK agent against the fake server, spans written to ``out``."""
    from google.adk.agents import LlmAgent, RunConfig
    from google.adk.agents.run_config import StreamingMode
    from google.adk.models.lite_llm import LiteLlm
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace

    tracer_provider, logger_provider, span_exporter, log_exporter = kit._providers()
    fake = kit._load_fake_server()
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    app = SCENARIOS[scenario][1]
    gemini = app.startswith("gemini")
    server_class = kit._load_fake_gemini().FakeGemini if gemini else fake.FakeOpenAI
    with server_class() as server:
        if gemini:
            from google.adk.models.google_llm import Gemini

            model = Gemini(model=kit._load_fake_gemini().REQUEST_MODEL, base_url=server.base_url)
        else:
            model = LiteLlm(model="openai/gpt-4o-mini", api_base=server.base_url,
                            api_key="sk-fake")
        agent = LlmAgent(name="WeatherAgent", model=model,
                         instruction="You are a weather assistant.", tools=kit.plain_tools(),
                         generate_content_config=types.GenerateContentConfig(
                             temperature=0.2, seed=7))
        runner = InMemoryRunner(agent=agent, app_name="weather")
        session = runner.session_service.create_session_sync(app_name="weather",
                                                             user_id="user-1")
        message = types.Content(role="user", parts=[
            types.Part(text="Weather and time in Paris, in Fahrenheit?")])
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": kit.TASK_ID}):
            streaming = app.endswith("_sse")
            run_config = RunConfig(streaming_mode=StreamingMode.SSE if streaming
                                   else StreamingMode.NONE)
            for _event in runner.run(user_id="user-1", session_id=session.id,
                                     new_message=message, run_config=run_config):
                pass
    kit.write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter,
                      log_exporter)

#: LiteLlm puts OpenAI's completion_tokens (reasoning included) into candidates_token_count
#: and the reasoning tokens into thoughts_token_count; ADK's TokenUsage then records
#: candidates + thoughts as gen_ai.usage.output_tokens: every reasoning token is counted twice
#: in the output (24 here). Kept as recorded: nothing tells a reader it happened.
_REASONING_TWICE = ("output tokens over-reported by the package: LiteLlm maps OpenAI's "
                    "completion_tokens (reasoning included) to candidates_token_count and ADK "
                    "adds thoughts_token_count to it (every reasoning token counted twice)")
#: what the LiteLlm scenarios' EXPECT entries say of that
_LITELLM_MISCOUNT = {"output_tokens_extra": 24, "miscounted": {"output_tokens": _REASONING_TWICE}}
_MERGED = ("parallel tool calls get an extra 'execute_tool (merged)' span "
           "(gen_ai.tool.name '(merged tools)', a fresh event id as gen_ai.tool.call.id): "
           "no call")
# ADK records no response id and no response model on its spans (only the request model,
# as LiteLlm's "openai/gpt-4o-mini"), except in the legacy llm_response JSON (model_version)
_MODEL = "openai/gpt-4o-mini"

EXPECT[f"adk-{VERSION}-litellm"] = _entry(
    "default (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=2, no content capture)",
    # no content by default: the generate_content spans record no messages (their
    # inference-details log events have no body), finish reason "stop" even for tool calls;
    # the execute_tool spans name each tool and carry its gen_ai.tool.call.id, no arguments
    args=False, tool_names=True, model=_MODEL, **_LITELLM_MISCOUNT,
    support=dict(_ALL_READ, arguments="not_recorded"),
    fixes={"arguments": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"},
    notes=[_MERGED])
EXPECT[f"adk-{VERSION}-litellm-latest_experimental"] = _entry(
    _LATEST_MODE,
    # gen_ai.input/output.messages on generate_content spans; gen_ai.tool.call.arguments and
    # .result on the execute_tool spans
    model=_MODEL, **_LITELLM_MISCOUNT, notes=[_MERGED])
EXPECT[f"adk-{VERSION}-litellm-latest_experimental-sse"] = _entry(
    _LATEST_MODE + ", "
    "RunConfig(streaming_mode=StreamingMode.SSE)",
    model=_MODEL, **_LITELLM_MISCOUNT, notes=[_MERGED])
# Gemini gives no call ids: ADK writes "{name}_{index}" into the output messages and its own
# "adk-<uuid4>" ids on the tool spans (client-side, stripped before the model sees them):
# neither is the model's. Usage: output = candidates + thoughts, right for Gemini.
_GEMINI_IDS = ("Gemini gives no call ids: the output messages say '{name}_{index}', the "
               "tool spans ADK's own 'adk-<uuid>' ids (neither is the model's)")
EXPECT[f"adk-{VERSION}-gemini"] = _entry(
    "default (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=2, no content capture), Gemini model",
    args=False, tool_names=True, model="gemini-2.5-flash",
    support=dict(_ALL_READ, arguments="not_recorded", call_ids="not_recorded"),
    fixes={"arguments": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"},
    notes=[_MERGED, _GEMINI_IDS])
EXPECT[f"adk-{VERSION}-gemini-latest_experimental"] = _entry(
    _LATEST_MODE + ", Gemini model",
    model="gemini-2.5-flash", support=dict(_ALL_READ, call_ids="not_recorded"),
    notes=[_MERGED, _GEMINI_IDS])
EXPECT[f"adk-{VERSION}-gemini-span_only"] = _entry(
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY, Gemini model",
    model="gemini-2.5-flash", support=dict(_ALL_READ, call_ids="not_recorded"),
    notes=[_MERGED, _GEMINI_IDS])
EXPECT[f"adk-{VERSION}-gemini-event_only"] = _entry(
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY, Gemini model",
    # the messages only in gen_ai.client.inference.operation.details log records; the tool
    # spans without arguments (those come with SPAN_ONLY/SPAN_AND_EVENT only)
    model="gemini-2.5-flash", support=dict(_ALL_READ, call_ids="not_recorded"),
    notes=[_MERGED, _GEMINI_IDS, "the model's answers only in log records"])
EXPECT[f"adk-{VERSION}-gemini-legacy"] = _entry(
    "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1 (legacy gcp.vertex.agent.* schema), Gemini model",
    support=dict(_ALL_READ, call_ids="not_recorded"),
    notes=[_MERGED, _GEMINI_IDS,
           "each model call is a call_llm span over a generate_content span, both with usage"])
EXPECT[f"adk-{VERSION}-gemini-legacy-no_content"] = _entry(
    "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1, ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false, "
    "Gemini model",
    # llm_request/llm_response "{}"; tool spans with "{}" as arguments AND response (which a
    # real call without arguments would not have): nothing recorded, nothing to read
    args=False, tool_names=True, model="gemini-2.5-flash",
    support=dict(_ALL_READ, arguments="not_recorded", call_ids="not_recorded"),
    fixes={"arguments": "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (the default)"},
    notes=[_MERGED, _GEMINI_IDS,
           "without content the legacy spans hold '{}' for requests, responses, tool "
           "arguments and results"])
EXPECT[f"adk-{VERSION}-gemini-latest_experimental-sse"] = _entry(
    _LATEST_MODE + ", "
    "RunConfig(streaming_mode=StreamingMode.SSE), Gemini model",
    model="gemini-2.5-flash", support=dict(_ALL_READ, call_ids="not_recorded"),
    notes=[_MERGED, _GEMINI_IDS])
EXPECT[f"adk-{VERSION}-litellm-legacy"] = _entry(
    "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1 (legacy gcp.vertex.agent.* schema)",
    # call_llm spans (gcp.vertex.agent.llm_request/llm_response JSON) each over a
    # generate_content span with the usage; tool spans with gcp.vertex.agent.tool_call_args;
    # gen_ai.choice log events whose content is "<elided>" (a placeholder, not the answer)
    **_LITELLM_MISCOUNT,
    notes=[_MERGED,
           "each model call is a call_llm span over a generate_content span, both with usage",
           "log events carry '<elided>' in place of content"])
