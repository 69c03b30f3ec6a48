"""Semantic Kernel (Python): its own GenAI spans and log events.

A kernel with the corpus's three tools as one plugin (``Weather``) and an
``OpenAIChatCompletion`` service against the fake OpenAI server; automatic function calling
(``FunctionChoiceBehavior.Auto()``) runs the tool loop. Semantic Kernel names a plugin's
functions ``Plugin-function`` for the model, so the server's script calls
``Weather-get_weather`` etc. (``renamed_script``): the names the model and the spans use.

Semantic Kernel traces only when ``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS``
is true: a ``chat.completions`` span per model call (usage, response id, finish reason)
and an ``execute_tool`` span per function. With ``..._DIAGNOSTICS_SENSITIVE`` the messages
go out as Python log records (``event.name`` ``gen_ai.choice`` etc., captured with the
SDK's ``LoggingHandler`` as Semantic Kernel's docs do) and the tool spans get
``gen_ai.tool.call.arguments``/``result``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated  # evaluated by Semantic Kernel in this module's globals

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))

from _common import ALL_READ, NOT_READ, NOT_RECORDED, SDK, finish
from _common import expected as common_expected

ENVIRONMENTS = {
    "semantic-kernel": SDK + ["openai==3.57.0", "httpx==0.28.1", "semantic-kernel==1.45.0"],
}

_DIAGNOSTICS = "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS"
_SENSITIVE = "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"
_PREFIX = "semantic-kernel-1.45.0"
SCENARIOS = {
    f"{_PREFIX}-sensitive": ("semantic-kernel", "semantic_kernel", [],
                             {_DIAGNOSTICS: "true", _SENSITIVE: "true"}),
    f"{_PREFIX}-no_sensitive": ("semantic-kernel", "semantic_kernel", [], {_DIAGNOSTICS: "true"}),
    # get_streaming_chat_message_content (Semantic Kernel asks for the usage chunk itself)
    f"{_PREFIX}-sensitive-stream": ("semantic-kernel", "semantic_kernel_stream", [],
                                    {_DIAGNOSTICS: "true", _SENSITIVE: "true"}),
    # a ChatCompletionAgent (its invoke_agent span around the same chat and tool spans)
    f"{_PREFIX}-agent-sensitive": ("semantic-kernel", "semantic_kernel_agent", [],
                                   {_DIAGNOSTICS: "true", _SENSITIVE: "true"}),
}

# The spans have gen_ai.usage.input_tokens/output_tokens only; the cache and reasoning
# counts are left only in an INFO log line holding the openai CompletionUsage's Python repr
# ("OpenAI usage: CompletionUsage(...)"), which is not read (no guessing from reprs).
_TOKEN_DETAILS_GAP = ("Semantic Kernel's spans record input/output tokens only (the details "
                      "only in a Python repr in an INFO log line): add an OpenAI client "
                      "instrumentor for the cache and reasoning counts")

EXPECT = {
    f"{_PREFIX}-sensitive": {
        "framework": "semantic-kernel", "mode": "diagnostics on, sensitive on",
        # the requested calls in gen_ai.choice log events; the execute_tool spans carry the
        # call id and gen_ai.tool.call.arguments
        "args": True, "cached": False, "reasoning": False,
        "model": "gpt-4o-mini",  # no response model: gen_ai.request.model only
        "support": dict(ALL_READ, cached_tokens=NOT_READ, reasoning_tokens=NOT_READ),
        "fixes": {"cached_tokens": _TOKEN_DETAILS_GAP, "reasoning_tokens": _TOKEN_DETAILS_GAP},
    },
    f"{_PREFIX}-no_sensitive": {
        "framework": "semantic-kernel", "mode": "diagnostics on, sensitive off",
        # execute_tool spans still name each function and its call id, without arguments
        "args": False, "tool_names": True, "call_ids": True,
        "cached": False, "reasoning": False, "model": "gpt-4o-mini",
        "support": dict(ALL_READ, arguments=NOT_RECORDED, cached_tokens=NOT_READ,
                        reasoning_tokens=NOT_READ),
        # (the arguments are also in an INFO log line's free text: not read)
        "fixes": {"arguments": f"{_SENSITIVE}=true",
                  "cached_tokens": _TOKEN_DETAILS_GAP, "reasoning_tokens": _TOKEN_DETAILS_GAP},
    },
}
EXPECT[f"{_PREFIX}-sensitive-stream"] = dict(
    EXPECT[f"{_PREFIX}-sensitive"], mode="diagnostics on, sensitive on, streaming")
EXPECT[f"{_PREFIX}-agent-sensitive"] = dict(
    EXPECT[f"{_PREFIX}-sensitive"], mode="ChatCompletionAgent, diagnostics and sensitive on",
    agent="WeatherAgent")


def _script(fake):
    return fake.named_script("semantic_kernel")  # the plugin's functions: Weather-get_time...

EXPECT = finish(EXPECT, "Semantic Kernel", "1.45.0")


def expected(scenario, kit):
    """The renamed script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT, script="semantic_kernel")


def _plugin(fake):
    from semantic_kernel.functions import kernel_function

    class Weather:
        @kernel_function(description="Current weather in a city.")
        def get_weather(self, city: Annotated[str, "The city."],
                        unit: Annotated[str, "celsius or fahrenheit"] = "celsius") -> str:
            return fake.tool_result("get_weather", {"city": city, "unit": unit})

        @kernel_function(description="Local time in a time zone.")
        def get_time(self, timezone: Annotated[str, "An IANA time zone."]) -> str:
            return fake.tool_result("get_time", {"timezone": timezone})

        @kernel_function(description="Convert a temperature.")
        def convert_temperature(self, value: Annotated[float, "The temperature."],
                                to: Annotated[str, "The unit to convert to."]) -> str:
            return fake.tool_result("convert_temperature", {"value": value, "to": to})

    return Weather()


def run_scenario(scenario, out, kit):
    """Inside the venv: one chat with automatic function calling, traced."""
    fake = kit._load_fake_server()
    app = SCENARIOS[scenario][1]

    def instrument(_tracer_provider, logger_provider):
        import logging

        from opentelemetry.sdk._logs import LoggingHandler

        handler = LoggingHandler(logger_provider=logger_provider)
        handler.addFilter(logging.Filter("semantic_kernel"))
        sk_logger = logging.getLogger("semantic_kernel")
        sk_logger.addHandler(handler)
        sk_logger.setLevel(logging.INFO)

    def run(base_url):
        from openai import AsyncOpenAI
        from semantic_kernel import Kernel
        from semantic_kernel.connectors.ai.function_choice_behavior import (
            FunctionChoiceBehavior)
        from semantic_kernel.connectors.ai.open_ai import (OpenAIChatCompletion,
                                                           OpenAIChatPromptExecutionSettings)
        from semantic_kernel.contents import ChatHistory

        async def agent_main():
            from semantic_kernel.agents import ChatCompletionAgent
            from semantic_kernel.functions import KernelArguments

            client = AsyncOpenAI(base_url=base_url, api_key="sk-fake", max_retries=0)
            settings = OpenAIChatPromptExecutionSettings(
                temperature=0.2, seed=7, function_choice_behavior=FunctionChoiceBehavior.Auto())
            agent = ChatCompletionAgent(
                service=OpenAIChatCompletion(ai_model_id="gpt-4o-mini", async_client=client),
                name="WeatherAgent", description="A weather assistant.",
                instructions="You are a weather assistant.", plugins=[_plugin(fake)],
                arguments=KernelArguments(settings=settings))
            # (the plugin's name: its class name, Weather)
            response = await agent.get_response(
                messages="Weather and time in Paris, in Fahrenheit?")
            return response.content

        async def main():
            if app == "semantic_kernel_agent":
                return await agent_main()
            kernel = Kernel()
            kernel.add_plugin(_plugin(fake), plugin_name="Weather")
            client = AsyncOpenAI(base_url=base_url, api_key="sk-fake", max_retries=0)
            service = OpenAIChatCompletion(ai_model_id="gpt-4o-mini", async_client=client)
            kernel.add_service(service)
            settings = OpenAIChatPromptExecutionSettings(
                temperature=0.2, seed=7, function_choice_behavior=FunctionChoiceBehavior.Auto())
            history = ChatHistory(system_message="You are a weather assistant.")
            history.add_user_message("Weather and time in Paris, in Fahrenheit?")
            if app == "semantic_kernel_stream":
                chunks = [chunk async for chunk in service.get_streaming_chat_message_content(
                    history, settings, kernel=kernel)]
                return "".join(str(chunk) for chunk in chunks if chunk is not None)
            return await service.get_chat_message_content(history, settings, kernel=kernel)

        answer = asyncio.run(main())
        assert str(answer) == fake.DEFAULT_SCRIPT[-1].text, answer

    kit.run_framework(scenario, out, run, instrument, server=fake.FakeOpenAI(script=_script(fake)))
