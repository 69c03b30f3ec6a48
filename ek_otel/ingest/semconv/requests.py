"""Model requests: the attributes and events that carry what a model call was *asked*:
its input messages (the user's request) and the tool definitions it was given.

ek-otel scores calls, so it reads requests only where a reader needs them: ``ek-otel gold
from-traces`` (a task's ``input`` and ``tools``) and ``--link-by input`` (an episode linked
to the task whose input is its first user message). :mod:`ek_otel.ingest.requests` reads
them in the order given here.

Example:
    >>> INPUT_MESSAGES in INPUT_MESSAGE_KEYS, TOOL_DEFINITIONS in TOOL_LIST_KEYS
    (True, True)
"""

from __future__ import annotations

__all__ = [
    "INPUT_MESSAGES",
    "INPUT_MESSAGE_KEYS",
    "FLATTENED_INPUT_PREFIXES",
    "REQUEST_BODY_KEYS",
    "USER_MESSAGE_EVENT",
    "USER_ROLES",
    "TOOL_DEFINITIONS",
    "TOOL_LIST_KEYS",
    "OPENINFERENCE_TOOLS_PREFIX",
    "OPENINFERENCE_TOOL_SCHEMA",
    "TRACELOOP_FUNCTIONS_PREFIX",
    "TOOL_SCHEMA_KEYS",
    "PYDANTIC_REQUEST_PARAMETERS",
    "PYDANTIC_FUNCTION_TOOLS",
]

#: The request as a list of messages (OTel GenAI).
INPUT_MESSAGES = "gen_ai.input.messages"
#: Attributes holding the input messages as one JSON list, tried in this order: OTel GenAI,
#: the Vercel AI SDK, pydantic-ai's whole history, Logfire's Agents-SDK spans.
INPUT_MESSAGE_KEYS = (INPUT_MESSAGES, "ai.prompt.messages", "pydantic_ai.all_messages",
                      "raw_input")
#: Flattened input messages: OpenInference ``llm.input_messages.N.message.*``, Traceloop
#: ``gen_ai.prompt.N.*``.
FLATTENED_INPUT_PREFIXES = ("llm.input_messages", "gen_ai.prompt")
#: Attributes holding a whole request as JSON (OpenInference's ``input.value``: the request
#: body, ``{"messages": [...], "tools": [...]}``, or a message list; Google ADK's request:
#: ``{"contents": [...], "config": {"tools": [{"function_declarations": [...]}]}}``; MLflow's
#: span inputs).
REQUEST_BODY_KEYS = ("input.value", "gcp.vertex.agent.llm_request", "mlflow.spanInputs")
#: The log event of one user message (the GenAI events conventions), body ``{"content": ...}``.
USER_MESSAGE_EVENT = "gen_ai.user.message"
#: The roles of a person's message.
USER_ROLES = ("user", "human")

#: The tool definitions a model call was given (OTel GenAI), a JSON list.
TOOL_DEFINITIONS = "gen_ai.tool.definitions"
#: Attributes holding the tool definitions as one list, tried in this order: OTel GenAI,
#: the Vercel AI SDK (a list of JSON strings), MLflow, LiteLLM's OpenAI tools (Python repr).
TOOL_LIST_KEYS = (TOOL_DEFINITIONS, "ai.prompt.tools", "mlflow.chat.tools", "llm.openai.tools")
#: OpenInference: ``llm.tools.N.tool.json_schema``, each a JSON tool definition.
OPENINFERENCE_TOOLS_PREFIX = "llm.tools"
OPENINFERENCE_TOOL_SCHEMA = ("tool", "json_schema")
#: OpenLLMetry: ``llm.request.functions.N.name``/``description``/``parameters`` (Anthropic:
#: ``input_schema``).
TRACELOOP_FUNCTIONS_PREFIX = "llm.request.functions"
#: Where a tool definition keeps its JSON schema, by convention: OpenAI ``parameters``,
#: the Vercel AI SDK ``inputSchema``, Anthropic ``input_schema``, pydantic-ai
#: ``parameters_json_schema``, Gemini ``parameters_json_schema``/``parameters``.
TOOL_SCHEMA_KEYS = ("parameters", "inputSchema", "input_schema", "parameters_json_schema")
#: pydantic-ai's request parameters (JSON), whose ``function_tools`` are the definitions.
PYDANTIC_REQUEST_PARAMETERS = "model_request_parameters"
PYDANTIC_FUNCTION_TOOLS = "function_tools"
