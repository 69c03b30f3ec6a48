"""smolagents ``ToolCallingAgent`` traced by OpenInference's smolagents instrumentor.

The agent runs against the fake OpenAI server (``OpenAIModel``, Chat Completions) with the
corpus's three tools. smolagents ends a run only through its own ``final_answer`` tool, so
the server's last turn is a ``final_answer`` call (``final_answer_script``) instead of a
text answer: same response ids and usage, one more requested call, which the package
records as any other (a framework-internal tool: ``internal_tools``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))

from _common import ALL_READ, NOT_RECORDED, SDK, finish, kit_instrumentors, weather_functions
from _common import expected as common_expected

ENVIRONMENTS = {
    "smolagents": SDK + ["openai==3.57.0", "httpx==0.28.1", "smolagents==1.26.0",
                          "openinference-instrumentation-smolagents==0.1.43",
                          "openinference-instrumentation-openai==0.1.66"],
}

SCENARIOS = {
    "smolagents-1.26.0-openinference-0.1.43": ("smolagents", "smolagents", ["smolagents"], {}),
    # + OpenInference's openai instrumentor: a client LLM span under each smolagents LLM span
    "smolagents-1.26.0-openinference-0.1.43-and-client": (
        "smolagents", "smolagents", ["smolagents", "openinference_openai"], {}),
    # ToolCallingAgent(stream_outputs=True): OpenAIModel.generate_stream
    "smolagents-1.26.0-openinference-0.1.43-stream": (
        "smolagents", "smolagents_stream", ["smolagents"], {}),
}

_CLIENT_FIX = ("add OpenInference's openai instrumentor "
               "(openinference-instrumentation-openai): its client spans carry them")

EXPECT = {
    "smolagents-1.26.0-openinference-0.1.43": {
        "framework": "smolagents",
        "mode": "ToolCallingAgent + openinference-instrumentation-smolagents",
        # LLM spans carry llm.output_messages.*.tool_calls with ids and JSON arguments; the
        # TOOL spans repeat the arguments as input.value {"args": [], "kwargs": {...}}
        "args": True,
        # smolagents' own LLM spans record prompt/completion/total only (from its
        # TokenUsage): no cache or reasoning detail, no response id or model
        "cached": False, "reasoning": False,
        "model": "gpt-4o-mini",  # llm.model_name is the model id asked for
        # The AGENT span repeats the run's totals (llm.token_count.*): counted once
        "agent_totals": True,
        "internal_tools": ["final_answer"],
        "support": dict(ALL_READ, cached_tokens=NOT_RECORDED, reasoning_tokens=NOT_RECORDED),
        "fixes": {"cached_tokens": _CLIENT_FIX, "reasoning_tokens": _CLIENT_FIX},
    },
    "smolagents-1.26.0-openinference-0.1.43-and-client": {
        "framework": "smolagents",
        "mode": "ToolCallingAgent + openinference-instrumentation-smolagents + -openai",
        # each model call twice: smolagents' LLM span and, nested in it, the client's
        # (with the cache and reasoning details): one call, its usage once
        "args": True, "cached": True, "reasoning": True,
        "agent_totals": True, "nested_client": True,
        "internal_tools": ["final_answer"],
        "support": dict(ALL_READ),
        "fixes": {},
    },
}
# the same, streamed (OpenAIModel.generate_stream)
EXPECT["smolagents-1.26.0-openinference-0.1.43-stream"] = dict(
    EXPECT["smolagents-1.26.0-openinference-0.1.43"],
    mode="ToolCallingAgent(stream_outputs=True) + openinference-instrumentation-smolagents")

EXPECT = finish(EXPECT, "smolagents", "1.26.0")


def expected(scenario, kit):
    """The final_answer script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT, script="final_answer")


def run_scenario(scenario, out, kit):
    """Inside the venv: run the agent once, traced, and write the records."""
    fake = kit._load_fake_server()

    instrumentors = SCENARIOS[scenario][2]

    def instrument(tracer_provider, logger_provider):
        from openinference.instrumentation.smolagents import SmolagentsInstrumentor

        SmolagentsInstrumentor().instrument(tracer_provider=tracer_provider)
        kit._instrument(kit_instrumentors(instrumentors), tracer_provider, logger_provider)

    def run(base_url):
        from smolagents import OpenAIModel, ToolCallingAgent, tool

        model = OpenAIModel(model_id="gpt-4o-mini", api_base=base_url, api_key="sk-fake",
                            temperature=0.2, client_kwargs={"max_retries": 0})
        agent = ToolCallingAgent(tools=weather_functions(fake, wrap=tool), model=model, name="WeatherAgent",
                                 description="A weather assistant.", max_steps=5,
                                 verbosity_level=0,
                                 stream_outputs=SCENARIOS[scenario][1] == "smolagents_stream")
        answer = agent.run("Weather and time in Paris, in Fahrenheit?")
        assert answer == fake.DEFAULT_SCRIPT[-1].text, answer

    kit.run_framework(scenario, out, run, instrument,
                      server=fake.FakeOpenAI(script=fake.named_script("final_answer")))
