"""CrewAI: one agent, one task, the corpus's three tools, traced by each of the two
crewai instrumentors alone (what each records at all).

The crew runs against the fake OpenAI server (``crewai.LLM`` with ``base_url``: CrewAI's
native OpenAI provider, with native function calling). CrewAI's own anonymous telemetry
and tracing are off (``CREWAI_DISABLE_TELEMETRY``, ``CREWAI_TRACING_ENABLED=false``): they
would export elsewhere, not to the app's tracer provider.

- ``crewai-...-openinference-1.1.21``: ``openinference-instrumentation-crewai`` alone;
- ``crewai-...-traceloop-0.62.4``: ``opentelemetry-instrumentation-crewai`` alone.

crewai 1.15 needs otlp-common 0.66b2, the json-file exporter pins 0.66b1 (it works with
0.66b2): the JSON exporter goes in afterwards, without dependencies (NO_DEPS).
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))

from _common import (ALL_READ, JSON_FILE_NO_DEPS, NOT_READ, SDK_NO_JSON, finish,
                     kit_instrumentors, weather_functions)
from _common import expected as common_expected

ENVIRONMENTS = {
    "crewai": SDK_NO_JSON + ["crewai==1.15.30", "openai==2.54.0",
                      "openinference-instrumentation-crewai==1.1.21",
                      "opentelemetry-instrumentation-crewai==0.62.4",
                      "openinference-instrumentation-openai==0.1.66"],
}
NO_DEPS = {"crewai": JSON_FILE_NO_DEPS}

_ENV = {"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_DISABLE_TRACKING": "true",
        "CREWAI_TRACING_ENABLED": "false"}
_PREFIX = "crewai-1.15.30"
SCENARIOS = {
    f"{_PREFIX}-openinference-1.1.21": ("crewai", "crewai", ["openinference_crewai"], _ENV),
    f"{_PREFIX}-traceloop-0.62.4": ("crewai", "crewai", ["traceloop_crewai"], _ENV),
    # the fix its gaps name: OpenInference's openai instrumentor beside its crewai one
    f"{_PREFIX}-openinference-1.1.21-and-client": (
        "crewai", "crewai", ["openinference_crewai", "openinference_openai"], _ENV),
}


_NO_MODEL_SPANS = ("the crewai instrumentors trace no model call: add an OpenAI (or LiteLLM) "
                   "instrumentor for per-call usage, requested calls and call ids")

EXPECT = {
    f"{_PREFIX}-openinference-1.1.21": {
        "framework": "crewai", "mode": "openinference-instrumentation-crewai",
        # TOOL spans with the arguments as JSON (input.value), no call id; no LLM span.
        # The call ids are only inside the AGENT span's output.value (the task's message
        # list, JSON): not read as calls (no model span requested them).
        "args": True, "call_ids": False, "no_model_spans": True,
        # the run's usage: the kickoff CHAIN span's output.value is the CrewOutput as JSON,
        # with token_usage {prompt_tokens, completion_tokens, cached_prompt_tokens,
        # reasoning_tokens}: read as an aggregate (no model span has any usage)
        "cached": True, "reasoning": True, "aggregate_usage": True,
        "agent": "WeatherAgent",
        "support": dict(ALL_READ, call_ids=NOT_READ),
        "fixes": {"call_ids": _NO_MODEL_SPANS},
    },
    f"{_PREFIX}-openinference-1.1.21-and-client": {
        "framework": "crewai",
        "mode": "openinference-instrumentation-crewai + openinference-instrumentation-openai",
        # every call requested on a client LLM span (ids, arguments, usage by kind); the
        # kickoff's token_usage repeats the run's totals, which count once
        "args": True, "cached": True, "reasoning": True, "agent": "WeatherAgent",
        "support": dict(ALL_READ),
        "fixes": {},
    },
    f"{_PREFIX}-traceloop-0.62.4": {
        "framework": "crewai", "mode": "opentelemetry-instrumentation-crewai",
        # crew/task/agent spans only: its LLM.call wrapper misses CrewAI 1.x's native
        # providers and it traces no tool. The tool calls are left only inside Python
        # reprs (crewai.crew.tasks_output = "[TaskOutput(... messages=[{'role': ...") and
        # the usage only as reprs (crewai.crew.token_usage "total_tokens=673 ...",
        # crewai.crew.usage_metrics "{'total_tokens': 673, ...}"): nothing is read from them
        "args": False, "calls_recorded": False, "no_model_spans": True, "no_usage": True,
        "cached": False, "reasoning": False, "agent": "WeatherAgent",
        "support": dict.fromkeys(ALL_READ, NOT_READ),
        "fixes": {kind: ("only in Python reprs (crewai.crew.tasks_output, "
                         "crewai.crew.token_usage), never read: use "
                         "openinference-instrumentation-crewai, or add an OpenAI instrumentor")
                  for kind in ALL_READ},
    },
}

EXPECT = finish(EXPECT, "CrewAI", "1.15.30")


def expected(scenario, kit):
    """The default script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT)


def run_scenario(scenario, out, kit):
    """Inside the venv: kick off the crew once, traced, and write the records."""
    fake = kit._load_fake_server()
    instrumentors = SCENARIOS[scenario][2]

    def instrument(tracer_provider, logger_provider):
        kit._instrument(kit_instrumentors(instrumentors), tracer_provider, logger_provider)
        if "openinference_crewai" in instrumentors:
            from openinference.instrumentation.crewai import CrewAIInstrumentor

            CrewAIInstrumentor().instrument(tracer_provider=tracer_provider)
        if "traceloop_crewai" in instrumentors:
            from opentelemetry.instrumentation.crewai import CrewAIInstrumentor

            CrewAIInstrumentor().instrument(tracer_provider=tracer_provider)

    def run(base_url):
        from crewai import LLM, Agent, Crew, Task
        from crewai.tools import tool

        llm = LLM(model="gpt-4o-mini", base_url=base_url, api_key="sk-fake",
                  temperature=0.2, seed=7, max_retries=0)
        agent = Agent(role="WeatherAgent", goal="Answer weather questions.",
                      backstory="You are a weather assistant.", tools=weather_functions(fake, wrap=tool), llm=llm,
                      max_iter=5, verbose=False)
        task = Task(description="Weather and time in Paris, in Fahrenheit?",
                    expected_output="The weather and the time.", agent=agent)
        result = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
        assert str(result) == fake.DEFAULT_SCRIPT[-1].text, str(result)

    kit.run_framework(scenario, out, run, instrument)
