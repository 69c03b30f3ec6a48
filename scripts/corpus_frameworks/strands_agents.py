"""Strands Agents' own OpenTelemetry spans, with its ``OpenAIModel`` against the fake server.

A Strands ``Agent`` named WeatherAgent, with the three pretend tools (``@tool``), runs the
fake OpenAI server's script through ``strands.models.openai.OpenAIModel`` (streamed Chat
Completions with usage). Strands traces itself (tracer ``strands.telemetry.tracer``, from the
global tracer provider): ``invoke_agent WeatherAgent`` > ``execute_event_loop_cycle`` >
``chat`` and ``execute_tool <name>``.

Modes (read from strands/telemetry/tracer.py, 1.62.0), through
``OTEL_SEMCONV_STABILITY_OPT_IN``:

- default: the first GenAI conventions, content in per-message span events
  (``gen_ai.user.message``, ``gen_ai.choice``, ``gen_ai.tool.message``); the tool spans
  carry their arguments only in a ``gen_ai.tool.message`` event;
- ``gen_ai_latest_experimental``: ``gen_ai.client.inference.operation.details`` span events
  with ``gen_ai.input.messages``/``gen_ai.output.messages``, and ``gen_ai.tool.call.arguments``
  and ``.result`` on the tool spans;
- ``gen_ai_latest_experimental,gen_ai_span_attributes_only``: the same messages as span
  attributes instead of events.

In every mode the agent span (and each event-loop cycle) repeats token totals.
"""

from __future__ import annotations

from pathlib import Path

VERSION = "1.62.0"
# strands-agents 1.62.0 pulls opentelemetry-instrumentation-threading 0.66b1, which wants the
# 1.45.1 SDK; the JSON file exporter (which pins 1.45.2) then goes in without dependencies
ENVIRONMENTS: dict = {
    "strands": ["opentelemetry-sdk==1.45.1", "opentelemetry-exporter-otlp-proto-common==1.45.1",
                "httpx==0.28.1", "openai==2.54.0", f"strands-agents[openai]=={VERSION}"],
}
NO_DEPS: dict = {"strands": ["opentelemetry-exporter-otlp-json-file==0.66b1",
                             "opentelemetry-exporter-otlp-json-common==0.66b1",
                             "opentelemetry-proto-json==0.66b1",
                             "opentelemetry-exporter-otlp-common==0.66b1"]}

FRAMEWORK = "Strands Agents"
_LATEST = "gen_ai_latest_experimental"
SCENARIOS: dict = {
    f"strands-{VERSION}": ("strands", "strands", [], {}),
    f"strands-{VERSION}-latest_experimental": (
        "strands", "strands", [], {"OTEL_SEMCONV_STABILITY_OPT_IN": _LATEST}),
    f"strands-{VERSION}-latest_experimental-attributes_only": (
        "strands", "strands", [],
        {"OTEL_SEMCONV_STABILITY_OPT_IN": f"{_LATEST},gen_ai_span_attributes_only"}),
}

_ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
             "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
             "reasoning_tokens": "read"}

_TOTALS = ("the agent span repeats the run's token totals as gen_ai.usage.* (the same names "
           "as each chat span's)")
EXPECT: dict = {}
for _name, (_env, _app, _instr, _extra) in SCENARIOS.items():
    EXPECT[_name] = {
        # Strands' OpenAIModel keeps prompt/completion/cached tokens of the usage chunk and
        # drops completion_tokens_details: no reasoning count anywhere (in no mode). It
        # records no response id or response model either: the model is the request's.
        "args": True, "cached": True, "reasoning": False, "model": "gpt-4o-mini",
        "framework": FRAMEWORK, "framework_version": VERSION,
        "mode": (f"OTEL_SEMCONV_STABILITY_OPT_IN={_extra['OTEL_SEMCONV_STABILITY_OPT_IN']}"
                 if _extra else "default"),
        "support": dict(_ALL_READ, reasoning_tokens="not_recorded"), "fixes": {},
        "notes": [_TOTALS],
    }
EXPECT[f"strands-{VERSION}"]["notes"].append(
    "tool arguments only in span events (gen_ai.tool.message on the execute_tool spans, "
    "gen_ai.choice toolUse blocks on the chat spans)")
EXPECT[f"strands-{VERSION}-latest_experimental"]["notes"].append(
    "messages only in gen_ai.client.inference.operation.details span events")




def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: the Strands agent against the fake server, spans written to ``out``."""
    from opentelemetry import trace

    tracer_provider, logger_provider, span_exporter, log_exporter = kit._providers()
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    fake = kit._load_fake_server()
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    with fake.FakeOpenAI() as server:
        model = OpenAIModel(client_args={"base_url": server.base_url, "api_key": "sk-fake",
                                         "max_retries": 0},
                            model_id="gpt-4o-mini", params={"temperature": 0.2, "seed": 7})
        agent = Agent(name="WeatherAgent", model=model, tools=[tool(f) for f in kit.plain_tools()],
                      system_prompt="You are a weather assistant.", callback_handler=None)
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": kit.TASK_ID}):
            agent("Weather and time in Paris, in Fahrenheit?")
    kit.write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter,
                      log_exporter)
