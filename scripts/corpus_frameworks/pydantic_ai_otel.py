"""pydantic-ai's own OpenTelemetry spans: ``agent.instrument = InstrumentationSettings(...)``
(pydantic-ai 1.x: ``Agent(instrument=...)``; 2.x has only the property and the
``Instrumentation`` capability).

A pydantic-ai ``Agent`` with the three pretend tools runs the fake OpenAI server's script
through ``OpenAIChatModel`` (Chat Completions). pydantic-ai traces itself (scope
``pydantic-ai``): an ``invoke_agent WeatherAgent`` span (older: ``agent run``), a ``chat
gpt-4o-mini`` span per model request and an ``execute_tool <name>`` span per tool call
(with ``gen_ai.tool.call.id``), all children of the agent span.

Modes that change the attributes (read from pydantic_ai/models/instrumented.py, 2.68.0
and 1.107.10):

- ``version`` (the data format, not the package version), 2..6 in 2.68.0: 2 puts messages
  in ``gen_ai.input.messages``/``gen_ai.output.messages`` and ``pydantic_ai.all_messages``
  on the agent span; 3 adds thinking parts; 4 multimodal parts; 5 deferrals are no errors
  (the default); 6 tool results under ``role="tool"``. All five are covered. 1.x also has
  format 1: the messages as ``gen_ai.*.message``/``gen_ai.choice`` events, in an
  ``events`` JSON attribute of each chat span (``event_mode="attributes"``) or as OTel log
  records (``event_mode="logs"``): both covered, with 1.x's ``Agent(instrument=...)``.
- ``include_content``: off drops texts, tool arguments and results; tool names, call ids
  (``gen_ai.tool.call.id`` on each tool span, the ``tool_call`` parts) and usage stay.
- ``use_aggregated_usage_attribute_names``: on (the 2.x default) writes the run's totals on
  the agent span as ``gen_ai.aggregated_usage.*``; off (the 1.x default) as plain
  ``gen_ai.usage.*``, beside the per-call ``gen_ai.usage.*`` of each chat span: a naive sum
  counts every token twice.
- ``agent.run_stream_events()``: streamed model requests.

Usage: ``gen_ai.usage.input_tokens``/``output_tokens``, ``gen_ai.usage.cache_read.input_tokens``
(cached) and ``gen_ai.usage.details.reasoning_tokens`` (reasoning; the details also repeat
``cache_read_tokens``).
"""

from __future__ import annotations

from pathlib import Path

VERSION = "2.68.0"
#: the last 1.x release: ``Agent(instrument=...)`` and format version 1 (messages as events)
VERSION_1 = "1.107.10"
_SDK = ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
        "opentelemetry-exporter-otlp-json-file==0.66b1"]

ENVIRONMENTS: dict = {
    "pydantic-ai": _SDK + ["httpx==0.28.1", "openai==3.57.0",
                           f"pydantic-ai-slim[openai]=={VERSION}"],
    "pydantic-ai-1": _SDK + ["httpx==0.28.1", "openai==3.57.0",
                             f"pydantic-ai-slim[openai]=={VERSION_1}"],
}

FRAMEWORK = "pydantic-ai"


def _name(release: str, version: int, content: bool = True, suffix: str = "") -> str:
    return (f"pydantic-ai-{release}-v{version}" + ("" if content else "-no_content")
            + (f"-{suffix}" if suffix else ""))


#: scenario -> how it runs: release, InstrumentationSettings keywords, and the run method
RUNS: dict = {}
for _v in (2, 3, 4, 5, 6):  # every format version 2.68.0 accepts
    for _content in (True, False):
        RUNS[_name(VERSION, _v, _content)] = (VERSION, {"version": _v,
                                                        "include_content": _content}, "run")
# the run totals under the plain gen_ai.usage.* names on the agent span, beside each call's
RUNS[_name(VERSION, 5, suffix="plain_usage_names")] = (
    VERSION, {"version": 5, "use_aggregated_usage_attribute_names": False}, "run")
# streamed model requests (agent.run_stream_events: stream=True with include_usage)
RUNS[_name(VERSION, 5, suffix="stream")] = (VERSION, {"version": 5}, "stream")
# 1.x: format version 1 keeps the messages as gen_ai.* events, in an "events" JSON
# attribute of each chat span (event_mode="attributes") or as OTel log records ("logs")
RUNS[_name(VERSION_1, 1, suffix="attributes")] = (
    VERSION_1, {"version": 1, "event_mode": "attributes"}, "run")
RUNS[_name(VERSION_1, 1, suffix="logs")] = (VERSION_1, {"version": 1, "event_mode": "logs"},
                                           "run")
RUNS[_name(VERSION_1, 1, False, suffix="attributes")] = (
    VERSION_1, {"version": 1, "event_mode": "attributes", "include_content": False}, "run")
RUNS[_name(VERSION_1, 2)] = (VERSION_1, {"version": 2}, "run")

#: scenario -> (environment, app, instrumentors, extra environment)
SCENARIOS: dict = {
    name: ("pydantic-ai" if release == VERSION else "pydantic-ai-1", "pydantic_ai", [], {})
    for name, (release, _settings, _how) in RUNS.items()}

_ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
             "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
             "reasoning_tokens": "read"}


def _expect(release: str, settings: dict, how: str) -> dict:
    content = settings.get("include_content", True)
    # the default changed: False in 1.x (plain gen_ai.usage.* on the agent span), True in 2.x
    aggregated = settings.get("use_aggregated_usage_attribute_names", release != VERSION_1)
    mode = "InstrumentationSettings(" + ", ".join(
        f"{k}={v!r}" for k, v in settings.items()) + ")"
    if how == "stream":
        mode += ", agent.run_stream_events()"
    entry = {
        # cached: gen_ai.usage.cache_read.input_tokens; reasoning: gen_ai.usage.details.
        # reasoning_tokens, on each chat span, content or not
        "args": content, "cached": True, "reasoning": True,
        "framework": FRAMEWORK, "framework_version": release, "mode": mode,
        "support": dict(_ALL_READ),
        "fixes": {},
        "agent_usage_prefix": "gen_ai.aggregated_usage." if aggregated else "gen_ai.usage.",
        "notes": ["the agent span repeats the run's token totals as "
                  + ("gen_ai.aggregated_usage.*" if aggregated else
                     "plain gen_ai.usage.* (the names of each chat span's own usage)")],
    }
    if not content:
        # include_content=False: no texts and no tool arguments or results anywhere; the
        # answers keep their tool_call parts (name, id) and the execute_tool spans name the
        # tool and carry gen_ai.tool.call.id
        entry["support"]["arguments"] = "not_recorded"
        entry["fixes"]["arguments"] = "InstrumentationSettings(include_content=True)"
        entry["tool_names"] = True
    return entry


EXPECT: dict = {name: _expect(*run) for name, run in RUNS.items()}




def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: the agent against the fake server, spans written to ``out``."""
    import warnings

    from opentelemetry import trace
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    release, settings, how = RUNS[scenario]
    tracer_provider, logger_provider, span_exporter, log_exporter = kit._providers()
    fake = kit._load_fake_server()
    if settings.get("event_mode") == "logs":
        settings = dict(settings, logger_provider=logger_provider)
    with warnings.catch_warnings():  # old format versions are deprecated (still supported)
        warnings.simplefilter("ignore")
        instrumentation = InstrumentationSettings(tracer_provider=tracer_provider, **settings)
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    with fake.FakeOpenAI() as server:
        model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(
            base_url=server.base_url, api_key="sk-fake"))
        kwargs = {"instrument": instrumentation} if release == VERSION_1 else {}
        agent = Agent(model, name="WeatherAgent", instructions="You are a weather assistant.",
                      tools=kit.plain_tools(), model_settings={"temperature": 0.2, "seed": 7},
                      **kwargs)
        if release != VERSION_1:
            agent.instrument = instrumentation  # 2.x has no Agent(instrument=...) argument
        prompt = "Weather and time in Paris, in Fahrenheit?"
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": kit.TASK_ID}):
            if how == "stream":
                import asyncio

                async def stream() -> None:
                    async with agent.run_stream_events(prompt) as events:
                        async for _event in events:
                            pass

                asyncio.run(stream())
            else:
                agent.run_sync(prompt)
    kit.write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter,
                      log_exporter)
