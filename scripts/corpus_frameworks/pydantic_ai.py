"""pydantic-ai's own OpenTelemetry spans: ``agent.instrument = InstrumentationSettings(...)``
(pydantic-ai 1.x: ``Agent(instrument=...)``; 2.x has only the property and the
``Instrumentation`` capability).

A pydantic-ai ``Agent`` with the three pretend tools runs the fake OpenAI server's script
through ``OpenAIChatModel`` (Chat Completions). pydantic-ai traces itself (scope
``pydantic-ai``): an ``invoke_agent WeatherAgent`` span (older: ``agent run``), a ``chat
gpt-4o-mini`` span per model request and an ``execute_tool <name>`` span per tool call
(with ``gen_ai.tool.call.id``), all children of the agent span.

Modes that change the attributes (read from pydantic_ai/models/instrumented.py, 2.68.0):

- ``version`` 2..6 (the data format, not the package version): 2 puts messages in
  ``gen_ai.input.messages``/``gen_ai.output.messages`` and ``pydantic_ai.all_messages`` on
  the agent span; 3 adds thinking parts; 4 multimodal parts; 5 deferrals are no errors
  (the default); 6 tool results under ``role="tool"``. All five are covered.
- ``include_content``: off drops messages and tool arguments and results; tool names,
  call ids (``gen_ai.tool.call.id`` on each tool span) and usage stay.
- ``use_aggregated_usage_attribute_names``: on (the default) writes the run's totals on
  the agent span as ``gen_ai.aggregated_usage.*``; off writes them as plain
  ``gen_ai.usage.*``, beside the per-call ``gen_ai.usage.*`` of each chat span: a naive sum
  counts every token twice.

Usage: ``gen_ai.usage.input_tokens``/``output_tokens``, ``gen_ai.usage.cache_read.input_tokens``
(cached) and ``gen_ai.usage.details.reasoning_tokens`` (reasoning; the details also repeat
``cache_read_tokens``).
"""

from __future__ import annotations

from pathlib import Path

VERSION = "2.68.0"
_SDK = ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
        "opentelemetry-exporter-otlp-json-file==0.66b1"]

ENVIRONMENTS: dict = {
    "pydantic-ai": _SDK + ["httpx==0.28.1", "openai==3.57.0", f"pydantic-ai-slim[openai]=={VERSION}"],
}

FRAMEWORK = "pydantic-ai"
_FORMATS = (2, 3, 4, 5, 6)


def _name(version: int, content: bool, aggregated: bool = True) -> str:
    name = f"pydantic-ai-{VERSION}-v{version}"
    if not content:
        name += "-no_content"
    if not aggregated:
        name += "-plain_usage_names"
    return name


#: scenario -> (environment, app, instrumentors, extra environment); the app is
#: "pydantic_ai:<version>:<include_content>:<use_aggregated_usage_attribute_names>".
SCENARIOS: dict = {}
for _v in _FORMATS:
    for _content in (True, False):
        SCENARIOS[_name(_v, _content)] = ("pydantic-ai", f"pydantic_ai:{_v}:{int(_content)}:1", [], {})
# the run totals under the plain gen_ai.usage.* names on the agent span, beside each call's
SCENARIOS[_name(5, True, aggregated=False)] = ("pydantic-ai", "pydantic_ai:5:1:0", [], {})
# streamed model requests (agent.run_stream_events: stream=True with include_usage)
SCENARIOS[_name(5, True) + "-stream"] = ("pydantic-ai", "pydantic_ai:5:1:1:stream", [], {})

_ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
             "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
             "reasoning_tokens": "read"}


def _expect(version: int, content: bool, aggregated: bool = True) -> dict:
    setting = f"InstrumentationSettings(version={version}, include_content={content}"
    setting += ")" if aggregated else ", use_aggregated_usage_attribute_names=False)"
    entry = {
        # cached: gen_ai.usage.cache_read.input_tokens; reasoning: gen_ai.usage.details.
        # reasoning_tokens, on each chat span, content or not
        "args": content, "cached": True, "reasoning": True,
        "framework": FRAMEWORK, "framework_version": VERSION, "mode": setting,
        "support": dict(_ALL_READ),
        "fixes": {},
        "notes": ["the agent span repeats the run's token totals as "
                  + ("gen_ai.aggregated_usage.*" if aggregated else
                     "plain gen_ai.usage.* (the names of each chat span's own usage)")],
    }
    if not content:
        # include_content=False: no messages and no tool arguments or results anywhere; the
        # execute_tool spans still name the tool and carry gen_ai.tool.call.id
        entry["support"]["arguments"] = "not_recorded"
        entry["fixes"]["arguments"] = "InstrumentationSettings(include_content=True)"
        entry["tool_names"] = True
    return entry


EXPECT: dict = {}
for _v in _FORMATS:
    for _content in (True, False):
        EXPECT[_name(_v, _content)] = _expect(_v, _content)
EXPECT[_name(5, True, aggregated=False)] = _expect(5, True, aggregated=False)
EXPECT[_name(5, True) + "-stream"] = dict(
    _expect(5, True), mode="InstrumentationSettings(version=5, include_content=True), "
                          "agent.run_stream_events()")


def _capture():
    """scripts/corpus_frameworks/_capture.py (loaded by path, as regen_corpus loads plug-ins)."""
    import importlib.util

    path = Path(__file__).with_name("_capture.py")
    spec = importlib.util.spec_from_file_location("ek_corpus_fw_capture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tools(fake):
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather in a city."""
        return fake.tool_result("get_weather", {"city": city, "unit": unit})

    def get_time(timezone: str) -> str:
        """Local time in a time zone."""
        return fake.tool_result("get_time", {"timezone": timezone})

    def convert_temperature(value: float, to: str) -> str:
        """Convert a temperature."""
        return fake.tool_result("convert_temperature", {"value": value, "to": to})

    return [get_weather, get_time, convert_temperature]


def run_scenario(scenario: str, out: Path, kit) -> None:
    """Inside the venv: the agent against the fake server, spans written to ``out``."""
    import warnings

    from opentelemetry import trace
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    _env, app, _instr, _extra = SCENARIOS[scenario]
    _, version, content, aggregated, *how = app.split(":")
    tracer_provider, logger_provider, span_exporter, _logs = kit._providers()
    fake = kit._load_fake_server()
    with warnings.catch_warnings():  # versions 2-4 are deprecated (still supported)
        warnings.simplefilter("ignore")
        settings = InstrumentationSettings(
            tracer_provider=tracer_provider, version=int(version),
            include_content=bool(int(content)),
            use_aggregated_usage_attribute_names=bool(int(aggregated)))
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    with fake.FakeOpenAI() as server:
        model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(
            base_url=server.base_url, api_key="sk-fake"))
        agent = Agent(model, name="WeatherAgent", instructions="You are a weather assistant.",
                      tools=_tools(fake), model_settings={"temperature": 0.2, "seed": 7})
        agent.instrument = settings  # 2.x: the Agent(instrument=...) argument is gone
        prompt = "Weather and time in Paris, in Fahrenheit?"
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": kit.TASK_ID}):
            if how == ["stream"]:
                import asyncio

                async def stream() -> None:
                    async with agent.run_stream_events(prompt) as events:
                        async for _event in events:
                            pass

                asyncio.run(stream())
            else:
                agent.run_sync(prompt)
    _capture().write_outputs(out, kit, tracer_provider, logger_provider, span_exporter, _logs,
                             scenario)
