"""Model inputs: the attributes and events that carry what a model call was sent (the
user's messages), read only for transcripts (:mod:`ek_otel.ingest.transcript`).

OTel GenAI records the input in ``gen_ai.input.messages`` (or ``gen_ai.user.message`` log
events, the first GenAI conventions); OpenInference as flattened
``llm.input_messages.N.message.*`` attributes, Traceloop 0.5x as ``gen_ai.prompt.N.*``;
agent and root spans of many frameworks keep the run's input in ``input.value``.

Example:
    >>> INPUT_MESSAGES, "gen_ai.user.message" in USER_EVENTS
    ('gen_ai.input.messages', True)
"""

from __future__ import annotations

__all__ = ["INPUT_MESSAGES", "FLATTENED_INPUT_PREFIXES", "FLATTENED_MESSAGE_KEY", "USER_EVENTS",
           "USER_ROLES", "ROOT_INPUT_KEY", "EVENT_CONTENT_KEY", "TOOL_RESULT_BLOCKS"]

#: The OTel GenAI input messages (JSON: ``[{role, parts: [...]}]``).
INPUT_MESSAGES = "gen_ai.input.messages"
#: Flattened input messages: OpenInference, Traceloop 0.5x.
FLATTENED_INPUT_PREFIXES = ("llm.input_messages", "gen_ai.prompt")
#: OpenInference nests each flattened message under ``message``.
FLATTENED_MESSAGE_KEY = "message"
#: Log (or span) events holding one user message (the first GenAI conventions).
USER_EVENTS = frozenset({"gen_ai.user.message"})
#: The body (or attribute) key of such an event's text.
EVENT_CONTENT_KEY = "content"
#: The roles of the user's messages.
USER_ROLES = ("user", "human")
#: Content blocks that carry tool results in a user-role message (Anthropic ``tool_result``,
#: Bedrock ``toolResult``, Gemini ``functionResponse``): not the user's words.
TOOL_RESULT_BLOCKS = frozenset({"tool_result", "toolResult", "function_response", "functionResponse"})
#: Where a root or agent span keeps the run's input (OpenInference, many frameworks).
ROOT_INPUT_KEY = "input.value"
