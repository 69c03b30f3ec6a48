"""Tools run through MCP: a real MCP server and client from the ``mcp`` package.

The app is the corpus's chat loop (the ``openai`` client against the fake OpenAI server,
traced by OpenLLMetry's openai instrumentor for the model calls), except that every tool
call the model asks for is executed through an MCP client session on an MCP server (the
SDK's FastMCP/MCPServer with the three tools) over Streamable HTTP: the server's ASGI app
runs under uvicorn on a loopback port in the same process, so that the client's and the
server's spans, joined by the trace context the client sends in each request's ``_meta``,
are captured together. Each tool call is then seen from both sides:

- ``mcp-1.30.0-traceloop-0.62.4``: mcp 1.x (no telemetry of its own) with OpenLLMetry's
  MCP instrumentation (``opentelemetry-instrumentation-mcp``): a ``{tool}.tool`` span on
  the client (``traceloop.span.kind=tool``, the arguments in ``traceloop.entity.input``)
  and the server side's request handling.
- ``mcp-fastmcp-2.12.5-traceloop-0.62.4``: the server from the ``fastmcp`` package (on mcp
  1.x), which the same instrumentation traces on the server side too: ``mcp.server`` and,
  under it, a second ``{tool}.tool`` span, with the arguments;
- ``mcp-2.3.0-native``: mcp 2.x traces itself (OpenLLMetry's MCP instrumentation 0.62.4
  supports mcp 1.x only): a CLIENT span ``MCP send tools/call {tool}`` and a SERVER span
  ``tools/call {tool}`` (``gen_ai.operation.name=execute_tool``, ``gen_ai.tool.name``, no
  arguments), the server span a child of the client's through ``_meta`` trace context.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # the plug-ins' shared helpers
    sys.path.insert(0, str(Path(__file__).parent))

import json

from _common import ALL_READ, SDK, finish, kit_instrumentors, weather_functions
from _common import expected as common_expected
_CLIENT = ["openai==3.57.0", "httpx==0.28.1", "opentelemetry-instrumentation-openai==0.62.4"]

ENVIRONMENTS = {
    "mcp-1": SDK + _CLIENT + ["mcp==1.30.0", "opentelemetry-instrumentation-mcp==0.62.4"],
    "mcp-2": SDK + _CLIENT + ["mcp==2.3.0"],
    "mcp-fastmcp": SDK + _CLIENT + ["mcp==1.16.0", "fastmcp==2.12.5", "pydantic==2.11.9",
                                     "opentelemetry-instrumentation-mcp==0.62.4"],
}

SCENARIOS = {
    "mcp-1.30.0-traceloop-0.62.4": ("mcp-1", "mcp", ["traceloop_openai", "traceloop_mcp"], {}),
    # an MCP session's protocol traffic outside any run (each request a trace of its own:
    # initialize, tools/list, ping), then one run in the app's task span: one episode and
    # three traces that are not agent runs
    "mcp-1.30.0-traceloop-0.62.4-session": (
        "mcp-1", "mcp_session", ["traceloop_openai", "traceloop_mcp"], {}),
    "mcp-2.3.0-native-session": ("mcp-2", "mcp_session", ["traceloop_openai"], {}),
    "mcp-2.3.0-native": ("mcp-2", "mcp", ["traceloop_openai"], {}),
    "mcp-fastmcp-2.12.5-traceloop-0.62.4": (
        "mcp-fastmcp", "mcp", ["traceloop_openai", "traceloop_mcp"], {}),
}


EXPECT = {
    "mcp-1.30.0-traceloop-0.62.4": {
        "framework": "mcp", "mode": "mcp 1.x + opentelemetry-instrumentation-mcp",
        # the model calls (OpenLLMetry openai) have every call with its id and arguments;
        # each executed tool is seen on the client and on the server: one call each
        "args": True, "cached": True, "reasoning": True, "mcp_sides": True,
        "support": dict(ALL_READ), "fixes": {},
    },
    "mcp-fastmcp-2.12.5-traceloop-0.62.4": {
        "framework": "mcp",
        "mode": "FastMCP 2.x server, mcp 1.x client + opentelemetry-instrumentation-mcp",
        # the tool is a TOOL span twice: {tool}.tool on the client and, under the server's
        # mcp.server span (a child of the client's through _meta), {tool}.tool again with
        # the arguments: one execution, one step
        "args": True, "cached": True, "reasoning": True, "mcp_sides": True,
        "support": dict(ALL_READ), "fixes": {},
    },
    "mcp-2.3.0-native": {
        "framework": "mcp", "mode": "mcp 2.x own telemetry",
        "args": True, "cached": True, "reasoning": True, "mcp_sides": True,
        "support": dict(ALL_READ), "fixes": {},
    },
}

EXPECT["mcp-1.30.0-traceloop-0.62.4-session"] = dict(
    EXPECT["mcp-1.30.0-traceloop-0.62.4"],
    mode="mcp 1.x + opentelemetry-instrumentation-mcp, session traces outside the run",
    # (and the server's stream writer of the initialized notification: no method recorded)
    not_runs=["MCP initialize", "MCP protocol message", "MCP tools/list", "MCP ping"])
EXPECT["mcp-2.3.0-native-session"] = dict(
    EXPECT["mcp-2.3.0-native"], mode="mcp 2.x own telemetry, session traces outside the run",
    not_runs=["MCP server/discover", "MCP tools/list", "MCP tools/list"])
EXPECT = {scenario: finish({scenario: entry}, "MCP", version)[scenario]
          for (scenario, entry), version in zip(EXPECT.items(), ("1.30.0", "2.12.5", "2.3.0",
                                                                 "1.30.0", "2.3.0"))}


def expected(scenario, kit):
    """The default script's ground truth, and the scenario's metadata."""
    return common_expected(scenario, kit, EXPECT)


def _server(fake, major: int):
    if major == "fastmcp":
        from fastmcp import FastMCP as Server
    elif major == 1:
        from mcp.server.fastmcp import FastMCP as Server
    else:
        from mcp.server.mcpserver import MCPServer as Server
    server = Server("weather")
    for function in weather_functions(fake):
        server.tool()(function)
    return server


async def _chat_loop(fake, base_url: str, call_tool) -> str:
    """The corpus's chat loop, each requested call run by ``call_tool(name, args)``."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="sk-fake", max_retries=0)
    messages = [{"role": "system", "content": "You are a weather assistant."},
                {"role": "user", "content": "Weather and time in Paris, in Fahrenheit?"}]
    for _ in range(5):
        reply = await client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                                     tools=fake.CHAT_TOOLS, temperature=0.2,
                                                     seed=7)
        message = reply.choices[0].message.model_dump(exclude_none=True)
        messages.append(message)
        if not message.get("tool_calls"):
            return message["content"]
        for call in message["tool_calls"]:
            text = await call_tool(call["function"]["name"],
                                   json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    raise AssertionError("the script did not end")


def run_scenario(scenario, out, kit):
    """Inside the venv: the chat loop with MCP-executed tools, traced."""
    fake = kit._load_fake_server()
    instrumentors = SCENARIOS[scenario][2]
    major = {"mcp-1": 1, "mcp-2": 2, "mcp-fastmcp": "fastmcp"}[SCENARIOS[scenario][0]]

    def instrument(tracer_provider, logger_provider):
        kit._instrument(kit_instrumentors(instrumentors), tracer_provider, logger_provider)
        if "traceloop_mcp" in instrumentors:
            from opentelemetry.instrumentation.mcp import McpInstrumentor

            McpInstrumentor().instrument(tracer_provider=tracer_provider)

    if SCENARIOS[scenario][1] == "mcp_session":
        _run_session_scenario(scenario, out, kit, fake, major, instrument)
        return

    def run(base_url):
        server = _server(fake, major)
        app = server.http_app() if major == "fastmcp" else server.streamable_http_app()
        with _Served(app) as mcp_url:
            answer = asyncio.run(_session_loop(fake, base_url, mcp_url,
                                               2 if major == 2 else 1))
        assert answer == fake.DEFAULT_SCRIPT[-1].text, answer

    kit.run_framework(scenario, out, run, instrument)


def _run_session_scenario(scenario, out, kit, fake, major, instrument) -> None:
    """The session's protocol requests outside the app's task span (traces of their own),
    the run inside it, and one more ping after it."""
    from opentelemetry import trace

    tracer_provider, logger_provider, span_exporter, log_exporter = kit._providers()
    instrument(tracer_provider, logger_provider)
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)

    async def session_run(base_url: str, mcp_url: str) -> str:
        def in_task(call):
            async def run():
                with tracer.start_as_current_span("weather task",
                                                  attributes={"ek.task.id": kit.TASK_ID}):
                    return await _chat_loop(fake, base_url, call)
            return run()

        if major == 1:
            from mcp import ClientSession
            from mcp.client.streamable_http import streamablehttp_client

            async with streamablehttp_client(mcp_url) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.list_tools()
                    answer = await in_task(lambda name, args: _text(session.call_tool(name, args)))
                    await session.send_ping()
                    return answer
        from mcp import Client

        async with Client(mcp_url) as client:
            await client.list_tools()
            answer = await in_task(lambda name, args: _text(client.call_tool(name, args)))
            await client.list_tools()  # (the 2.x server answers ping with Method not found)
            return answer

    server = _server(fake, major)
    with kit._load_fake_server().FakeOpenAI() as model:
        with _Served(server.streamable_http_app()) as mcp_url:
            answer = asyncio.run(session_run(model.base_url, mcp_url))
    assert answer == fake.DEFAULT_SCRIPT[-1].text, answer
    kit.write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter,
                      log_exporter)


async def _session_loop(fake, base_url: str, mcp_url: str, major: int) -> str:
    """The chat loop with an MCP client session over Streamable HTTP."""
    if major == 1:
        from mcp import ClientSession
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(mcp_url) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await _chat_loop(fake, base_url, lambda name, args: _text(
                    session.call_tool(name, args)))
    from mcp import Client

    async with Client(mcp_url) as client:
        return await _chat_loop(fake, base_url, lambda name, args: _text(
            client.call_tool(name, args)))


class _Served:
    """The MCP server's ASGI app under uvicorn on a free loopback port, in a thread."""

    def __init__(self, app):
        import uvicorn

        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0,
                                                     log_level="warning", lifespan="on"))
        self._thread = None

    def __enter__(self) -> str:
        import threading
        import time

        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the MCP server did not start")
            time.sleep(0.05)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/mcp"

    def __exit__(self, *exc) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)


async def _text(pending) -> str:
    result = await pending
    assert not getattr(result, "isError", getattr(result, "is_error", False)), result
    return result.content[0].text
