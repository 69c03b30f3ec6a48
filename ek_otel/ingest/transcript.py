"""What a run did, in order: the transcript of one episode, read from its span tree.

The same conventions the episode builder reads (every name in
:mod:`ek_otel.ingest.semconv`, the message formats of :mod:`ek_otel.ingest.messages`):

- ``user``: each user message a model call was sent that no earlier call was sent
  (``gen_ai.input.messages``, flattened OpenInference/Traceloop input messages, user
  message events); when none was recorded, the root span's recorded input;
- ``model``: each model call (one per cluster of nested model spans, read from the span
  that recorded the most, as for steps): its text and the tool calls it asked for;
- ``tool``: each tool execution (an MCP server's span under the client's is one): its
  name, arguments and output;
- ``error``: a failed model call, tool execution or agent span;
- ``answer``: the episode's final answer (:attr:`Episode.output`).

Each entry has its span id, its start (milliseconds after the episode's first span) and
its duration. Strings longer than :data:`VALUE_CAP` characters are cut (the entry says how
many characters were left out), so a transcript's size stays bounded whatever a tool returns.

Example:
    >>> from ek_otel.ingest.episodes import build_episode
    >>> from ek_otel.ingest.records import SpanRecord
    >>> T = "ab" * 16
    >>> chat = SpanRecord(T, "0" * 15 + "1", name="chat m", start_ns=0, end_ns=2_000_000,
    ...     attributes={"gen_ai.operation.name": "chat", "gen_ai.input.messages":
    ...         '[{"role": "user", "parts": [{"type": "text", "content": "weather?"}]}]',
    ...         "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": '
    ...         '"tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Oslo"}}]}]'})
    >>> tool = SpanRecord(T, "0" * 15 + "2", name="execute_tool get_weather", start_ns=3_000_000,
    ...     end_ns=4_000_000, attributes={"gen_ai.operation.name": "execute_tool",
    ...     "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.result": "rain"})
    >>> [(e["kind"], e.get("text") or e.get("name")) for e in
    ...  build_episode([chat, tool], transcript=True).meta["transcript"]]
    [('user', 'weather?'), ('model', 'chat m'), ('tool', 'get_weather')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from . import semconv as sc
from .messages import parse_arguments, text_from_message, unflatten
from .model_calls import best_output
from .records import LogRecord
from .span_tree import Node, by_time
from .steps import tool_executions

__all__ = ["VALUE_CAP", "KINDS", "transcript_of", "cap_value"]

#: The longest string kept whole in a transcript (longer ones are cut, the rest counted).
VALUE_CAP = 4_000
#: The kinds of entry, in the words the page shows.
KINDS = ("user", "model", "tool", "error", "answer")


def cap_value(value: Any, cap: int = VALUE_CAP) -> Any:
    """``value`` with every string longer than ``cap`` cut, saying how much was left out.

    Example:
        >>> cap_value({"a": ["x" * 10]}, cap=4)
        {'a': ['xxxx… [6 more characters]']}
    """
    if isinstance(value, str):
        return value if len(value) <= cap else f"{value[:cap]}… [{len(value) - cap:,} more characters]"
    if isinstance(value, Mapping):
        return {str(k): cap_value(v, cap) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [cap_value(v, cap) for v in value]
    if isinstance(value, bytes):
        return cap_value(value.decode("utf-8", "replace"), cap)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return cap_value(str(value), cap)


def _messages(value: Any) -> list:
    parsed = sc.loads(value) if isinstance(value, (str, bytes)) else value
    if isinstance(parsed, Mapping):
        parsed = parsed.get("messages", [parsed])
    return list(parsed) if isinstance(parsed, list) else []


def user_texts(attributes: Mapping) -> list:
    """The text of each user message a model span was sent, in order."""
    messages: list = []
    if sc.INPUT_MESSAGES in attributes:
        messages = _messages(attributes[sc.INPUT_MESSAGES])
    if not messages:
        for prefix in sc.FLATTENED_INPUT_PREFIXES:
            found = unflatten(attributes, prefix)
            if isinstance(found, list) and found:
                messages = [m.get(sc.FLATTENED_MESSAGE_KEY, m) if isinstance(m, Mapping) else m
                            for m in found]
                break
    out = []
    for message in messages:
        if isinstance(message, Mapping) and str(message.get("role", "")).lower() in sc.USER_ROLES:
            text = text_from_message(message)
            if text and not _tool_results(message, text):
                out.append(text)
    return out


def _tool_results(message: Mapping, text: str) -> bool:
    """Whether a user-role message only carries tool results (Anthropic, Bedrock, Gemini)."""
    content = message.get("content", message.get("parts"))
    if isinstance(content, str):
        content = sc.loads(content) if content[:1] == "[" else None
    if not isinstance(content, list) or not content:
        parsed = sc.loads(text) if text[:1] == "[" else None
        content = parsed if isinstance(parsed, list) else None
    if not content:
        return False
    return all(isinstance(block, Mapping) and (block.get("type") in sc.TOOL_RESULT_BLOCKS
                                               or not sc.TOOL_RESULT_BLOCKS.isdisjoint(block))
               for block in content)


def _times(node: Node, origin: int) -> dict:
    span = node.span
    start = span.start_ns if isinstance(span.start_ns, int) and span.start_ns > 0 else origin
    end = span.end_ns if isinstance(span.end_ns, int) and span.end_ns >= start else start
    return {"span_id": span.span_id, "start_ms": round((start - origin) / 1e6, 3),
            "duration_ms": round((end - start) / 1e6, 3)}


def _entry(kind: str, times: dict, **fields: Any) -> dict:
    out = {"kind": kind, **times}
    out.update({k: cap_value(v) for k, v in fields.items() if v is not None and v != ()})
    return out


def user_events(logs: Sequence[LogRecord]) -> list:
    out = []
    for log in logs:
        if isinstance(log, LogRecord) and log.event_name in sc.USER_EVENTS:
            body = log.body
            text = body.get(sc.EVENT_CONTENT_KEY) if isinstance(body, Mapping) else body
            if isinstance(text, str) and text:
                out.append((log.time_ns, log.span_id, text))
    return out


def transcript_of(nodes: Mapping[str, Node], clusters: Mapping[str, list],
                  logs: Sequence[LogRecord] = (), *, answer: Optional[str] = None) -> list:
    """The transcript of one episode's span tree (JSON-ready dicts, in time order).

    Args:
        nodes: span id -> :class:`~ek_otel.ingest.span_tree.Node` (``build_tree``).
        clusters: the model calls (:func:`~ek_otel.ingest.model_calls.clusters_of`).
        logs: the episode's log records (user message events).
        answer: the episode's final answer.

    Example:
        >>> transcript_of({}, {}, answer="done")
        [{'kind': 'answer', 'span_id': None, 'start_ms': 0.0, 'duration_ms': 0.0, 'text': 'done'}]
    """
    ordered = by_time(nodes.values())
    starts = [n.span.start_ns for n in ordered if isinstance(n.span.start_ns, int) and n.span.start_ns > 0]
    origin = min(starts) if starts else 0
    timed: list = []  # (time ns, order, entry)
    seen_user: set = set()
    for members in clusters.values():
        top = members[0]
        times = _times(top, origin)
        start = top.span.start_ns or origin
        for member in members:
            for text in user_texts(member.span.attributes):
                if text not in seen_user:
                    seen_user.add(text)
                    timed.append((start, 0, _entry("user", dict(times, duration_ms=0.0), text=text)))
            break  # the outermost span was sent what its inner spans were sent
        output, holder = (top.output, top) if len(members) == 1 else best_output(members)
        model = sc.response_model_of(top.span.attributes) or sc.request_model_of(top.span.attributes)
        calls = [{"name": c.name, "args": c.args, "id": c.call_id} for c in output.calls]
        entry = _entry("model", dict(times, span_id=(holder or top).span_id), name=model or top.span.name,
                       text=output.text, calls=calls or None,
                       recorded=None if output else False)
        timed.append((start, 1, entry))
        for member in members:
            if member.error is not None:
                timed.append((start, 2, _entry("error", _times(member, origin), name=member.span.name,
                                               error=member.error)))
    for node in tool_executions(nodes):
        attributes = node.span.attributes
        captured, raw, parsed = sc.tool_args_parsed(attributes)
        args = parse_arguments(raw, parsed)[0] if captured else None
        timed.append((node.span.start_ns or origin, 1, _entry(
            "tool", _times(node, origin), name=sc.tool_name_of(node.span), args=args,
            id=sc.tool_call_id_of(attributes), output=sc.tool_result_of(attributes),
            error=node.error)))
    for node in ordered:
        if node.role not in (sc.MODEL, sc.TOOL) and node.error is not None:
            timed.append((node.span.end_ns or origin, 3, _entry(
                "error", _times(node, origin), name=node.span.name, error=node.error)))
    for time_ns, span_id, text in user_events(logs):
        if text not in seen_user:
            seen_user.add(text)
            timed.append((time_ns, 0, _entry("user", {"span_id": span_id or None,
                          "start_ms": round((time_ns - origin) / 1e6, 3) if time_ns else 0.0,
                          "duration_ms": 0.0}, text=text)))
    if not seen_user and ordered:
        root = ordered[0]
        value = root.span.attributes.get(sc.ROOT_INPUT_KEY)
        if isinstance(value, str) and value:
            timed.append((root.span.start_ns or origin, -1,
                          _entry("user", dict(_times(root, origin), duration_ms=0.0), text=value)))
    timed.sort(key=lambda t: (t[0], t[1]))
    out = [entry for _, _, entry in timed]
    if answer:
        last = max((n.span.end_ns for n in ordered if isinstance(n.span.end_ns, int)), default=origin)
        out.append(_entry("answer", {"span_id": ordered[0].span_id if ordered else None,
                                     "start_ms": round((last - origin) / 1e6, 3) if last else 0.0,
                                     "duration_ms": 0.0}, text=answer))
    return out
