"""AutoGen AgentChat: its own tracing (autogen-core's GenAI spans), alone and with an OpenAI
client instrumentor.

An ``AssistantAgent`` with the corpus's three tools and an ``OpenAIChatCompletionClient``
against the fake OpenAI server; ``max_tool_iterations=5`` lets it loop until the model
answers in text (the default, 1, stops after the first tool round).

AutoGen traces an ``invoke_agent`` span per run and an ``execute_tool`` span per tool call
(name and call id, no arguments or result); its model client traces nothing, so neither
the requested calls nor any usage is on a span. AutoGen's docs pair it with an OpenAI
instrumentor for the model calls: the ``and-client`` mode adds OpenLLMetry's
(``opentelemetry-instrumentation-openai``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))


from _common import (ALL_READ, NOT_RECORDED, READ, SDK, finish, kit_instrumentors,
                     weather_functions)
from _common import expected as common_expected

ENVIRONMENTS = {
    "autogen": SDK + ["openai==3.57.0", "httpx==0.28.1", "autogen-agentchat==0.7.5",
                       "autogen-core==0.7.5", "autogen-ext[openai]==0.7.5",
                       "opentelemetry-instrumentation-openai==0.62.4"],
}

_PREFIX = "autogen-agentchat-0.7.5"
SCENARIOS = {
    f"{_PREFIX}": ("autogen", "autogen", [], {}),
    f"{_PREFIX}-and-client": ("autogen", "autogen", ["traceloop_openai"], {}),
    # the agent in a RoundRobinGroupChat team (autogen-core's runtime traces its messages)
    f"{_PREFIX}-team-and-client": ("autogen", "autogen_team", ["traceloop_openai"], {}),
}

_CLIENT_FIX = ("AutoGen traces no model call: add an OpenAI instrumentor "
               "(opentelemetry-instrumentation-openai or openinference-instrumentation-openai)")

EXPECT = {
    f"{_PREFIX}": {
        "framework": "autogen", "mode": "AgentChat AssistantAgent, own tracing only",
        # execute_tool spans: gen_ai.tool.name and gen_ai.tool.call.id, nothing else; no
        # model span at all, so no usage and no requested call
        "args": False, "tool_names": True, "call_ids": True, "no_usage": True,
        "no_model_spans": True, "cached": False, "reasoning": False,
        "support": dict(dict.fromkeys(ALL_READ, NOT_RECORDED), tool_names=READ,
                        call_ids=READ),
        "fixes": {kind: _CLIENT_FIX for kind in ("arguments", "input_tokens", "output_tokens",
                                                  "cached_tokens", "reasoning_tokens")},
    },
    f"{_PREFIX}-and-client": {
        "framework": "autogen",
        "mode": "AgentChat AssistantAgent + opentelemetry-instrumentation-openai",
        "args": True, "cached": True, "reasoning": True,
        "support": dict(ALL_READ),
        "fixes": {},
    },
}
EXPECT[f"{_PREFIX}-team-and-client"] = dict(
    EXPECT[f"{_PREFIX}-and-client"], agent="WeatherAgent",
    mode="AgentChat RoundRobinGroupChat + opentelemetry-instrumentation-openai")

EXPECT = finish(EXPECT, "AutoGen", "0.7.5")


def expected(scenario, kit):
    """The default script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT)


def run_scenario(scenario, out, kit):
    """Inside the venv: run the agent once, traced, and write the records."""
    fake = kit._load_fake_server()
    instrumentors = SCENARIOS[scenario][2]

    def instrument(tracer_provider, logger_provider):
        kit._instrument(kit_instrumentors(instrumentors), tracer_provider, logger_provider)

    def run(base_url):
        from autogen_agentchat.agents import AssistantAgent
        from autogen_ext.models.openai import OpenAIChatCompletionClient

        async def main():
            client = OpenAIChatCompletionClient(model="gpt-4o-mini", base_url=base_url,
                                                api_key="sk-fake", temperature=0.2, seed=7,
                                                max_retries=0)
            agent = AssistantAgent("WeatherAgent", model_client=client,
                                   tools=weather_functions(fake),
                                   description="A weather assistant.",
                                   system_message="You are a weather assistant.",
                                   max_tool_iterations=5)
            runner = agent
            if SCENARIOS[scenario][1] == "autogen_team":
                from autogen_agentchat.conditions import MaxMessageTermination
                from autogen_agentchat.teams import RoundRobinGroupChat

                runner = RoundRobinGroupChat([agent], termination_condition=(
                    MaxMessageTermination(2)))
            result = await runner.run(task="Weather and time in Paris, in Fahrenheit?")
            await client.close()
            return result.messages[-1].content

        answer = asyncio.run(main())
        assert answer == fake.DEFAULT_SCRIPT[-1].text, answer

    kit.run_framework(scenario, out, run, instrument)
