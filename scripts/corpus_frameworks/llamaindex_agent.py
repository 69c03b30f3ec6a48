"""LlamaIndex ``FunctionAgent`` traced by OpenInference's llama-index instrumentor.

The agent (an agent workflow) runs against the fake OpenAI server through
``llama_index.llms.openai.OpenAI`` with the corpus's three tools, in three modes:

- ``plain``: ``FunctionAgent(streaming=False)``: one chat completion per turn;
- ``stream``: the default (``streaming=True``): streamed completions WITHOUT usage, as
  LlamaIndex asks for them (no ``stream_options``); the server, like the real API, then
  sends no usage chunk (``FakeOpenAI(stream_usage="requested")``);
- ``stream-usage``: streaming with ``additional_kwargs={"stream_options":
  {"include_usage": True}}``, the setting that gives streamed calls their usage.

llama-index-llms-openai 0.8.3 needs openai<3: the environment has openai 2.x.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))


from _common import ALL_READ, NOT_RECORDED, SDK, finish, weather_functions
from _common import expected as common_expected

ENVIRONMENTS = {
    "llamaindex": SDK + ["openai==2.54.0", "httpx==0.28.1", "llama-index-core==0.14.25",
                          "llama-index-llms-openai==0.8.3",
                          "openinference-instrumentation-llama-index==4.6.1"],
}

_PREFIX = "llamaindex-0.14.25-openinference-4.6.1"
SCENARIOS = {
    f"{_PREFIX}-plain": ("llamaindex", "function_agent", ["llama_index"], {}),
    f"{_PREFIX}-stream": ("llamaindex", "function_agent_stream", ["llama_index"], {}),
    f"{_PREFIX}-stream-usage": ("llamaindex", "function_agent_stream_usage",
                                ["llama_index"], {}),
}

_USAGE_FIX = ('streaming without usage: pass additional_kwargs={"stream_options": '
              '{"include_usage": True}} to llama_index.llms.openai.OpenAI (or streaming=False)')

#: llm.model_name is the model LlamaIndex was configured with (no response model recorded)
_MODEL = "gpt-4o-mini"

EXPECT = {
    f"{_PREFIX}-plain": {
        "framework": "llamaindex", "mode": "FunctionAgent, streaming=False",
        "model": _MODEL, "args": True, "cached": True, "reasoning": True,
        "support": dict(ALL_READ), "fixes": {},
    },
    f"{_PREFIX}-stream": {
        "framework": "llamaindex", "mode": "FunctionAgent, streaming (default), no usage",
        # LlamaIndex does not ask for usage when it streams: the API sends none, and no
        # span has a token count (the episode says so: model_calls_without_usage)
        "model": _MODEL, "args": True, "cached": False, "reasoning": False,
        "no_usage": True,
        "support": dict(ALL_READ, input_tokens=NOT_RECORDED, output_tokens=NOT_RECORDED,
                        cached_tokens=NOT_RECORDED, reasoning_tokens=NOT_RECORDED),
        "fixes": {kind: _USAGE_FIX for kind in ("input_tokens", "output_tokens",
                                                "cached_tokens", "reasoning_tokens")},
    },
    f"{_PREFIX}-stream-usage": {
        "framework": "llamaindex",
        "mode": "FunctionAgent, streaming with stream_options.include_usage",
        "model": _MODEL, "args": True, "cached": True, "reasoning": True,
        "support": dict(ALL_READ), "fixes": {},
    },
}

EXPECT = finish(EXPECT, "LlamaIndex", "0.14.25")


def expected(scenario, kit):
    """The default script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT)


def _tools(fake):
    from llama_index.core.tools import FunctionTool

    return weather_functions(fake, wrap=FunctionTool.from_defaults)


def run_scenario(scenario, out, kit):
    """Inside the venv: run the agent once, traced, and write the records."""
    fake = kit._load_fake_server()
    app = SCENARIOS[scenario][1]

    def instrument(tracer_provider, _logger_provider):
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

        LlamaIndexInstrumentor().instrument(tracer_provider=tracer_provider)

    def run(base_url):
        from llama_index.core.agent.workflow import FunctionAgent
        from llama_index.llms.openai import OpenAI

        extra = ({"stream_options": {"include_usage": True}}
                 if app == "function_agent_stream_usage" else {})
        llm = OpenAI(model="gpt-4o-mini", api_base=base_url, api_key="sk-fake",
                     temperature=0.2, max_retries=0, additional_kwargs=extra)
        agent = FunctionAgent(name="WeatherAgent", description="A weather assistant.",
                              system_prompt="You are a weather assistant.",
                              tools=_tools(fake), llm=llm,
                              streaming=app != "function_agent")

        async def main():
            return await agent.run(user_msg="Weather and time in Paris, in Fahrenheit?")

        answer = asyncio.run(main())
        assert str(answer) == fake.DEFAULT_SCRIPT[-1].text, answer

    kit.run_framework(scenario, out, run, instrument,
                      server=fake.FakeOpenAI(stream_usage="requested"))
