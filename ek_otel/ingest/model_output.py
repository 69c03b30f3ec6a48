"""A model's answer (tool calls and text) as a span or a GenAI log event recorded it.

Where each convention puts the answer is named in :mod:`ek_otel.ingest.semconv.outputs`;
the message formats are read by :mod:`ek_otel.ingest.messages`.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> s = SpanRecord("a" * 32, "b" * 16, attributes={"gen_ai.output.messages":
    ...     '[{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]'})
    >>> model_output_of_span(s).text
    'hi'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from . import semconv as sc
from .messages import (EMPTY_OUTPUT, HOSTED_MARKERS, ModelOutput, call_from_entry,
                       flattened_output, output_of_chunks, output_of_messages)
from .records import LogRecord, SpanRecord

__all__ = ["model_output_of_span", "model_output_of_log", "output_of_logs",
           "output_of_related_spans"]


def model_output_of_span(span: SpanRecord) -> ModelOutput:
    """The answer a model-call span recorded, from the first source that has one.

    Sources, in order: ``gen_ai.output.messages``; OpenInference
    ``llm.output_messages.*``; Traceloop 0.5x ``gen_ai.completion.*``; the legacy
    ``gen_ai.content.completion`` (messages, or OpenLit's plain text; OpenLit's "Function
    called with tools" is no answer) and ``gen_ai.choice`` span events, and the
    ``gen_ai.client.inference.operation.details`` span event's ``gen_ai.output.messages``
    (Strands); the streamed chunks MLflow keeps as span events (its own rebuilt answer of a
    streamed call lacks the tool calls); Langfuse ``langfuse.observation.output``;
    OpenInference's raw ``output.value`` response; Logfire's ``response`` object and
    ``output`` messages; MLflow's response object.

    Example:
        >>> s = SpanRecord("a" * 32, "b" * 16, attributes={
        ...     "llm.output_messages.0.message.role": "assistant",
        ...     "llm.output_messages.0.message.content": "done"})
        >>> model_output_of_span(s).text
        'done'
        >>> from ek_otel.ingest.records import SpanEvent
        >>> openlit = SpanRecord("a" * 32, "b" * 16, events=(SpanEvent("gen_ai.content.completion",
        ...     attributes={"gen_ai.completion": "It is 18 C in Paris."}),))
        >>> model_output_of_span(openlit).text
        'It is 18 C in Paris.'
    """
    attributes = span.attributes
    empty = None  # an answer recorded with neither text nor calls: the last resort
    if sc.OUTPUT_MESSAGES in attributes:
        output = output_of_messages(attributes[sc.OUTPUT_MESSAGES])
        if output:
            if output.calls or output.text is not None:
                return output
            # litellm 1.110: "parts": [] for tool calls, which it writes as
            # gen_ai.completion.N.function_call.* instead
            empty = output
    for prefix in sc.FLATTENED_OUTPUT_PREFIXES:
        output = flattened_output(attributes, prefix)
        if output:
            # OpenInference flattens hosted calls into ordinary tool calls (or drops them):
            # its raw response says what they were
            return _raw_with_hosted_calls(attributes) or output
    chunks = []
    for event in span.events or ():
        name = getattr(event, "name", "")
        ev = getattr(event, "attributes", {}) or {}
        if name.startswith(sc.MLFLOW_CHUNK_EVENT_PREFIX):
            chunks.append(ev.get(sc.MLFLOW_CHUNK_VALUE))
            continue
        if name == sc.LEGACY_COMPLETION_EVENT:
            completion = ev.get(sc.LEGACY_COMPLETION_ATTRIBUTE)
            output = output_of_messages(completion)
            if output:
                return output
            if _plain_completion(completion):  # OpenLit: the answer as plain text
                return ModelOutput((), completion, True)
        if name == sc.CHOICE_EVENT:
            output = _choice_output(ev.get(sc.CHOICE_MESSAGE, ev), ev)
            if output:
                return output
        if name == sc.INFERENCE_DETAILS_EVENT and sc.OUTPUT_MESSAGES in ev:
            # Strands with gen_ai_latest_experimental: the messages as span events
            output = output_of_messages(ev[sc.OUTPUT_MESSAGES])
            if output:
                return output
    if chunks:
        output = output_of_chunks(chunks)
        if output.calls or output.text:
            return output
    if sc.LEGACY_COMPLETION_ATTRIBUTE in attributes:  # the same, as a span attribute
        output = _completion_attribute(attributes[sc.LEGACY_COMPLETION_ATTRIBUTE])
        if output:
            return output
    for key in sc.OUTPUT_VALUE_KEYS:
        if key in attributes:
            output = output_of_messages(attributes[key])
            if output:
                return output
    output = _other_output(attributes)
    return output if output or empty is None else empty


def _completion_attribute(value: Any) -> ModelOutput:
    """The deprecated GenAI ``gen_ai.completion`` span attribute: messages, a
    ``{"text": ...}`` object, or plain text.

    Example:
        >>> _completion_attribute('{"text": "It is rainy.", "finish_reason": "stop"}').text
        'It is rainy.'
        >>> [c.name for c in _completion_attribute(
        ...     '[{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]').calls]
        ['f']
    """
    output = output_of_messages(value)
    if output.calls or output.text is not None:
        return output
    parsed = sc.json_value(value)
    if isinstance(parsed, Mapping) and type(parsed.get("text")) is str and parsed["text"]:
        return ModelOutput((), parsed["text"], True)
    if isinstance(parsed, list) and parsed and all(
            isinstance(block, Mapping) and "role" not in block for block in parsed):
        # the content blocks of one answer (Strands 0.x: Bedrock Converse ``text`` and
        # ``toolUse`` blocks), the message around them left out
        output = output_of_messages([{"role": "assistant", "content": parsed}])
        if output.calls or output.text is not None:
            return output
    if _plain_completion(value):
        return ModelOutput((), value, True)
    return EMPTY_OUTPUT


def _plain_completion(value: Any) -> bool:
    """A completion recorded as plain text (OpenLit), not JSON, and not OpenLit's stand-in
    for an answer it did not record."""
    return (type(value) is str and bool(value.strip())
            and value != sc.OPENLIT_TOOLS_PLACEHOLDER and sc.json_value(value) is value)


def _raw_with_hosted_calls(attributes: Mapping) -> Optional[ModelOutput]:
    """The answer of the raw recorded response (``output.value``) when it holds hosted
    calls, else None (the raw text is searched before it is parsed)."""
    for key in sc.OUTPUT_VALUE_KEYS:
        raw = attributes.get(key)
        if type(raw) is str and any(marker in raw for marker in HOSTED_MARKERS):
            output = output_of_messages(raw)
            if any(call.hosted for call in output.calls):
                return output
    return None


def output_of_related_spans(children: Sequence[SpanRecord],
                            parent: Optional[SpanRecord]) -> ModelOutput:
    """The answer of a model call recorded by the spans around its own, for a model span
    that recorded none: Mastra's ``model_chunk`` child spans (the requested tool calls, in
    time order), else the raw provider response its ``model_step`` parent keeps.

    Example:
        >>> chunk = SpanRecord("a" * 32, "c" * 16, start_ns=2, attributes={
        ...     "mastra.span.type": "model_chunk", "mastra.model_chunk.output":
        ...     '{"toolName": "f", "toolCallId": "c1", "toolInput": {"q": 1}}'})
        >>> [(c.name, dict(c.args), c.call_id) for c in output_of_related_spans([chunk], None).calls]
        [('f', {'q': 1}, 'c1')]
    """
    calls: list = []
    for chunk in sorted(children, key=lambda s: (s.start_ns, s.span_id)):
        attributes = chunk.attributes
        if attributes.get(sc.MASTRA_SPAN_TYPE) != sc.MASTRA_CHUNK:
            continue
        output = sc.json_value(attributes.get(sc.MASTRA_CHUNK_OUTPUT))
        if isinstance(output, Mapping):
            call = call_from_entry(output, len(calls))
            if call is not None:
                calls.append(call)
    if calls:
        return ModelOutput(tuple(calls), None, True)
    if parent is not None and parent.attributes.get(sc.MASTRA_SPAN_TYPE) == sc.MASTRA_STEP:
        return output_of_messages(parent.attributes.get(sc.MASTRA_RESPONSE_BODY))
    return EMPTY_OUTPUT


def _other_output(attributes: Mapping) -> ModelOutput:
    """Less common carriers: a JSON ``events`` list (Logfire/Pydantic AI), Google ADK's
    ``gcp.vertex.agent.llm_response``, the Vercel AI SDK's ``ai.response.text`` (and
    ``ai.response.object``, the JSON text of a ``generateObject``/``streamObject`` answer)."""
    events = sc.json_value(attributes.get(sc.EVENTS_JSON))
    if isinstance(events, list):
        choices = [e for e in events if isinstance(e, Mapping) and _is_choice(e)]
        calls: list = []
        texts: list = []
        for event in choices:
            output = _choice_output(event.get(sc.CHOICE_MESSAGE, event), event)
            for call in output.calls:
                calls.append(call.at(len(calls)))
            if output.text:
                texts.append(output.text)
        if choices:
            return ModelOutput(tuple(calls), "\n".join(texts) or None, True)
        answer = _events_answer(events)
        if answer:
            return answer
    response = sc.json_value(attributes.get(sc.VERTEX_LLM_RESPONSE))
    content = response.get(sc.VERTEX_RESPONSE_CONTENT) if isinstance(response, Mapping) else None
    if isinstance(content, Mapping):
        output = output_of_messages([content])
        if output:
            return output
    for key in (sc.AI_RESPONSE_TEXT, sc.AI_RESPONSE_OBJECT):
        text = attributes.get(key)
        if isinstance(text, str) and text:
            return ModelOutput((), text, True)
    return EMPTY_OUTPUT


def _is_choice(event: Mapping) -> bool:
    """A choice of a JSON ``events`` list: named ``gen_ai.choice``, or (Logfire's
    google-genai events, whose bodies carry no name) unnamed with ``index`` and
    ``finish_reason``."""
    name = event.get(sc.EVENT_NAME_KEY)
    if name is None:
        return sc.LOGFIRE_CHOICE_KEYS <= event.keys()
    return name == sc.CHOICE_EVENT


def _events_answer(events: list) -> ModelOutput:
    """The answer of a JSON ``events`` list without choices (Logfire's OpenAI Agents
    integration: the conversation as events, the answer's items after the last input
    message): assistant messages, and ``gen_ai.unknown`` items (hosted calls) by their
    ``data``.

    Example:
        >>> _events_answer([{"event.name": "gen_ai.user.message", "content": "q"},
        ...     {"event.name": "gen_ai.unknown", "data": {"type": "web_search_call",
        ...      "id": "ws_1", "action": {"type": "search", "query": "q"}}},
        ...     {"event.name": "gen_ai.assistant.message", "content": "a"}]).text
        'a'
    """
    items: list = []
    for event in events:
        if not isinstance(event, Mapping):
            continue
        name = event.get(sc.EVENT_NAME_KEY)
        if name in sc.EVENT_INPUT_NAMES:
            items = []  # an input message: what came before was history
        elif name in sc.HISTORY_EVENTS:
            items.append({key: value for key, value in event.items()
                          if key != sc.EVENT_NAME_KEY})
        elif name == sc.UNKNOWN_EVENT and isinstance(event.get("data"), Mapping):
            items.append(event["data"])
    return output_of_messages(items) if items else EMPTY_OUTPUT


def _choice_output(message: Any, event_body: Any) -> ModelOutput:
    message = sc.json_value(message)  # span-event attributes hold it as a JSON string
    if isinstance(message, list):  # Bedrock-style content blocks (Strands)
        message = {"role": "assistant", "content": message}
    if isinstance(message, Mapping):
        content = message.get("content")
        if isinstance(content, Mapping) and isinstance(content.get("parts"), list):
            # google-genai instrumentor before 1.x: {"index", "content": <a Gemini Content>}
            message = {"role": "assistant", "parts": content["parts"]}
        elif (isinstance(content, list) and content
              and all(type(p) is str or (isinstance(p, Mapping) and "type" not in p)
                      for p in content)):
            # Logfire's form of those Gemini parts: a text part as its text, others whole
            message = {"role": "assistant",
                       "parts": [{"text": p} if type(p) is str else p for p in content]}
        message = dict(message)
        message.setdefault("role", "assistant")
        if isinstance(event_body, Mapping) and sc.CHOICE_TOOL_CALLS in event_body:
            message.setdefault(sc.CHOICE_TOOL_CALLS, event_body[sc.CHOICE_TOOL_CALLS])
        return output_of_messages([message])
    return EMPTY_OUTPUT


def model_output_of_log(log: LogRecord) -> ModelOutput:
    """The answer a GenAI log event carries (``gen_ai.choice``, the inference details event).

    Example:
        >>> log = LogRecord(event_name="gen_ai.choice", body={"index": 0, "message": {
        ...     "tool_calls": [{"id": "c", "type": "function",
        ...                     "function": {"name": "f", "arguments": "{}"}}]}})
        >>> [(c.call_id, c.name) for c in model_output_of_log(log).calls]
        [('c', 'f')]
        >>> model_output_of_log(LogRecord(event_name="gen_ai.choice", body={"index": 0,
        ...     "content": {"role": "model", "parts": [{"text": "done", "function_call": None}]},
        ...     "finish_reason": "STOP"})).text  # google-genai's instrumentor before 1.x
        'done'
    """
    name = log.event_name
    body = sc.json_value(log.body)
    if name == sc.CHOICE_EVENT:
        message = body.get(sc.CHOICE_MESSAGE, body) if isinstance(body, Mapping) else None
        return _choice_output(message, body)
    if name == sc.INFERENCE_DETAILS_EVENT:
        for holder in (log.attributes, body):
            if isinstance(holder, Mapping) and sc.OUTPUT_MESSAGES in holder:
                output = output_of_messages(holder[sc.OUTPUT_MESSAGES])
                if output:
                    return output
        return EMPTY_OUTPUT
    if name in sc.HISTORY_EVENTS and isinstance(body, Mapping):
        message = dict(body)
        message["role"] = "assistant"
        return output_of_messages([message])
    return EMPTY_OUTPUT


def output_of_logs(logs: Sequence[LogRecord]) -> ModelOutput:
    """The answers of a model call's output log events, in time order, as one answer.

    Example:
        >>> output_of_logs([LogRecord(event_name="gen_ai.choice", time_ns=1,
        ...                           body={"message": {"content": "done"}})]).text
        'done'
    """
    calls: list = []
    texts: list = []
    found = False
    for log in sorted(logs, key=lambda r: r.time_ns):
        if log.event_name not in sc.OUTPUT_EVENTS:
            continue
        output = model_output_of_log(log)
        if not output:
            continue
        found = True
        for call in output.calls:
            calls.append(call.at(len(calls)))
        if output.text:
            texts.append(output.text)
    return ModelOutput(tuple(calls), "\n".join(texts) or None, found)
