"""Episodes from spans: one trace's (or one conversation's) records become an Episode.

The rules (``shared/design.md``, "Episodes from spans"), as implemented here:

**Span tree.** A span whose parent is not among the records is a root (Langfuse exports
point at parents they never send). The episode's root span is the earliest-starting root;
``latency_s`` is its duration (summed over traces when a conversation spans several), or,
when that root's own parent is missing, the extent of all the spans of its trace.

**Steps** come from executed-tool spans (``execute_tool``, OpenInference TOOL, Traceloop
tool, Logfire ``Function:``, Langfuse tool observations) and from the tool calls models
requested (every format in :mod:`ek_otel.ingest.messages`, on spans, span events and log
events). A requested call that was then executed is **one** step: joined by tool-call id,
else by name and order (agent instrumentors leave the id off their tool spans). Parallel
calls in one answer are separate steps. Steps are ordered by time: a requested call at the
end of its model call, an unrequested execution at its start; parallel calls keep their
order. Arguments: the model's requested arguments, else the executed span's; when neither
was captured the step keeps its tool name with ``args={}`` and ``args_captured=False``.
A failed tool span (status ERROR, ``error.type``, an ``exception`` event, Langfuse level
ERROR) sets ``Step.error``. Each step records its nearest agent ancestor (``invoke_agent``,
OpenInference AGENT, Traceloop agent, ...) as ``agent``/``agent_span_id``.

**One model call, several spans.** An agent instrumentor and a client instrumentor report
the same call twice (the client span nested under the agent's model span). Nested model
spans form one *cluster*; its answer is read from the span that recorded the most (the
deepest on a tie), so calls are never counted twice. Requested calls with the same id are
one call.

**Tokens** are counted on leaf model-call spans (no model-call descendant) and deduplicated
by ``gen_ai.response.id``. A cluster whose leaves carry no usage falls back to its deepest
model span with usage. When no model span carries usage at all, the outermost aggregate
spans with usage (``invoke_agent``, Logfire's task span) are used instead, never summed
with their descendants. A failed leaf model call followed by another model call counts as
one ``Cost.retries``.

**Task id**: the first of ``task_id_keys`` found on the root span, then on its resource
(see :data:`~ek_otel.ingest.semconv.DEFAULT_TASK_ID_KEYS`); ``""`` when none. A
JSON-encoded string (Langfuse metadata: ``'"t1"'``) is decoded.

**Run provenance**: ``model`` is the response model of the first model call (else its
request model); ``temperature`` and ``seed`` are the first requested values; ``scaffold``
is the outermost agent's name, else the resource's ``service.name`` (what identifies the
harness across runs). **Provenance**: trace and root span ids, conversation (or session)
id, ``service.name``/``service.version``, the outermost agent's name, the instrumentation
scope names, the span count, and ``args_captured=False`` when any step lacks arguments or
a model asked for tools whose calls were not captured at all (``meta["uncaptured_tool_calls"]``),
or a model call's answer was not recorded at all, so that it may hide calls
(``meta["unrecorded_model_outputs"]``: Gemini says STOP even when it calls tools). A span
without content counts for nothing when another span with the same response id recorded
that answer (the anthropic SDK's own span beside an instrumentor's).

**Bad spans** never crash a build: a span that cannot be read is counted
(``meta["bad_spans"]``), reported to the :class:`~ek_otel.ingest.bad_input.BadInputReport`
when one is given, and skipped. A span whose parent is missing is read as a root and
reported (reason :data:`MISSING_PARENT`).

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> T = "ab" * 16
    >>> root = SpanRecord(T, "0" * 15 + "1", name="invoke_agent Helper", start_ns=1, end_ns=9_000_000_001,
    ...     attributes={"gen_ai.operation.name": "invoke_agent", "ek.task.id": "t1"})
    >>> chat = SpanRecord(T, "0" * 15 + "2", "0" * 15 + "1", "chat m", start_ns=2, end_ns=3,
    ...     attributes={"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10,
    ...                 "gen_ai.usage.output_tokens": 2, "gen_ai.output.messages":
    ...                 '[{"role":"assistant","parts":[{"type":"tool_call","id":"c1",'
    ...                 '"name":"search","arguments":{"q":"cats"}}]}]'})
    >>> tool = SpanRecord(T, "0" * 15 + "3", "0" * 15 + "1", "execute_tool search", start_ns=4,
    ...     end_ns=5, attributes={"gen_ai.operation.name": "execute_tool"})
    >>> e = build_episode([root, chat, tool])
    >>> e.task_id, e.calls, e.trajectory[0].agent, e.cost.input_tokens, e.cost.latency_s
    ('t1', (('search', {'q': 'cats'}),), 'Helper', 10, 9.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Optional

from ..core.episode import Cost, Episode, Provenance, RunProvenance, Step, Trajectory
from . import semconv as sc
from .bad_input import BAD_ATTRIBUTE, MALFORMED_RECORD, BadInputReport
from .messages import (
    EMPTY_OUTPUT,
    ModelOutput,
    RequestedCall,
    flattened_output,
    output_of_messages,
    parse_arguments,
)
from .records import LogRecord, SpanRecord

__all__ = [
    "DEFAULT_TASK_ID_KEYS",
    "MISSING_PARENT",
    "GROUP_BY_TRACE",
    "GROUP_BY_CONVERSATION",
    "GROUP_BY_SESSION",
    "GROUP_BY_CHOICES",
    "build_episode",
    "build_episodes",
    "model_output_of_span",
    "model_output_of_log",
]

DEFAULT_TASK_ID_KEYS = sc.DEFAULT_TASK_ID_KEYS

#: Bad-input reason: a span whose parent is not among the records (Langfuse points at parents
#: it never exports; a lost batch does the same). The span is read as a root, and reported.
MISSING_PARENT = "missing parent"

GROUP_BY_TRACE = "trace"
GROUP_BY_CONVERSATION = "conversation"
GROUP_BY_SESSION = "session"
GROUP_BY_CHOICES = (GROUP_BY_TRACE, GROUP_BY_CONVERSATION, GROUP_BY_SESSION)

#: Log events that carry a model's answer (``gen_ai.client.inference.operation.details``
#: carries ``gen_ai.output.messages`` among its attributes or in its body).
OUTPUT_EVENTS = frozenset({"gen_ai.choice", "gen_ai.client.inference.operation.details"})
#: Log/span events that repeat earlier assistant turns (input history; used for call ids
#: not seen in any output).
HISTORY_EVENTS = frozenset({"gen_ai.assistant.message"})
#: Legacy span events of the first GenAI conventions.
LEGACY_COMPLETION_EVENT = "gen_ai.content.completion"

_ANSWER_EVENTS = OUTPUT_EVENTS | HISTORY_EVENTS
_TOOL_FINISH_REASONS = frozenset({"tool_calls", "tool_call", "function_call", "tool_use"})


# ---------------------------------------------------------------------------
# Reading one model answer from a span or a log record
# ---------------------------------------------------------------------------


def model_output_of_span(span: SpanRecord) -> ModelOutput:
    """The answer a model-call span recorded, from the first source that has one.

    Sources, in order: ``gen_ai.output.messages``; OpenInference
    ``llm.output_messages.*``; Traceloop 0.5x ``gen_ai.completion.*``; the legacy
    ``gen_ai.content.completion`` and ``gen_ai.choice`` span events; Langfuse
    ``langfuse.observation.output``; OpenInference's raw ``output.value`` response;
    Logfire's ``response`` object and ``output`` messages.

    Example:
        >>> s = SpanRecord("a" * 32, "b" * 16, attributes={
        ...     "llm.output_messages.0.message.role": "assistant",
        ...     "llm.output_messages.0.message.content": "done"})
        >>> model_output_of_span(s).text
        'done'
    """
    attributes = span.attributes
    empty = None  # an answer recorded with neither text nor calls: the last resort
    if "gen_ai.output.messages" in attributes:
        output = output_of_messages(attributes["gen_ai.output.messages"])
        if output:
            if output.calls or output.text is not None:
                return output
            # litellm 1.110: "parts": [] for tool calls, which it writes as
            # gen_ai.completion.N.function_call.* instead
            empty = output
    for prefix in ("llm.output_messages", "gen_ai.completion"):
        output = flattened_output(attributes, prefix)
        if output:
            return output
    for event in span.events or ():
        name = getattr(event, "name", "")
        ev = getattr(event, "attributes", {}) or {}
        if name == LEGACY_COMPLETION_EVENT:
            output = output_of_messages(ev.get("gen_ai.completion"))
            if output:
                return output
        if name == "gen_ai.choice":
            output = _choice_output(ev.get("message", ev), ev)
            if output:
                return output
    for key in ("langfuse.observation.output", "output.value", "response", "output",
                "ai.response.toolCalls"):
        if key in attributes:
            output = output_of_messages(attributes[key])
            if output:
                return output
    output = _other_output(attributes)
    return output if output or empty is None else empty


def _other_output(attributes: Mapping) -> ModelOutput:
    """Less common carriers: a JSON ``events`` list (Logfire/Pydantic AI), Google ADK's
    ``gcp.vertex.agent.llm_response``, the Vercel AI SDK's ``ai.response.text``."""
    events = sc.json_value(attributes.get("events"))
    if isinstance(events, list):
        choices = [e for e in events if isinstance(e, Mapping)
                   and e.get("event.name") == "gen_ai.choice"]
        calls: list = []
        texts: list = []
        for event in choices:
            output = _choice_output(event.get("message", event), event)
            for call in output.calls:
                calls.append(RequestedCall(call.name, call.args, call.call_id,
                                           call.args_captured, len(calls)))
            if output.text:
                texts.append(output.text)
        if choices:
            return ModelOutput(tuple(calls), "\n".join(texts) or None, True)
    response = sc.json_value(attributes.get("gcp.vertex.agent.llm_response"))
    if isinstance(response, Mapping) and isinstance(response.get("content"), Mapping):
        output = output_of_messages([response["content"]])
        if output:
            return output
    text = attributes.get("ai.response.text")
    if isinstance(text, str) and text:
        return ModelOutput((), text, True)
    return EMPTY_OUTPUT


def _choice_output(message: Any, event_body: Any) -> ModelOutput:
    message = sc.json_value(message)  # span-event attributes hold it as a JSON string
    if isinstance(message, list):  # Bedrock-style content blocks (Strands)
        message = {"role": "assistant", "content": message}
    if isinstance(message, Mapping):
        message = dict(message)
        message.setdefault("role", "assistant")
        if isinstance(event_body, Mapping) and "tool_calls" in event_body:
            message.setdefault("tool_calls", event_body["tool_calls"])
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
    """
    name = log.event_name
    body = sc.json_value(log.body)
    if name == "gen_ai.choice":
        message = body.get("message", body) if isinstance(body, Mapping) else None
        return _choice_output(message, body)
    if name == "gen_ai.client.inference.operation.details":
        for holder in (log.attributes, body):
            if isinstance(holder, Mapping) and "gen_ai.output.messages" in holder:
                output = output_of_messages(holder["gen_ai.output.messages"])
                if output:
                    return output
        return EMPTY_OUTPUT
    if name in HISTORY_EVENTS and isinstance(body, Mapping):
        message = dict(body)
        message["role"] = "assistant"
        return output_of_messages([message])
    return EMPTY_OUTPUT


# ---------------------------------------------------------------------------
# Per-span facts (the only place a span is read; a span that fails here is bad)
# ---------------------------------------------------------------------------


#: ``_Node.agent`` before :func:`_nearest_agent` computed it.
_UNKNOWN: Any = object()


@dataclass(eq=False, slots=True)  # identity semantics: nodes are compared with ``is``
class _Node:
    span: SpanRecord
    role: str
    parent: Optional["_Node"] = None
    children: list = field(default_factory=list)
    usage: Optional[sc.Usage] = None
    response_id: Optional[str] = None
    error: Optional[str] = None
    output: ModelOutput = EMPTY_OUTPUT
    finish_reasons: tuple = ()
    depth: int = 0
    order: tuple = ()  # (start, depth, span id): the sort key of :func:`_by_time`
    agent: Any = _UNKNOWN  # the nearest agent ancestor (:func:`_nearest_agent`), once known
    named_agent: Optional[bool] = None  # :func:`_has_named_agent`, once known

    @property
    def span_id(self) -> str:
        return self.span.span_id

    def ancestors(self) -> Iterator["_Node"]:
        # nodes and span ids are one to one (``_tree`` keeps one node per span id)
        node, seen = self.parent, {self}
        while node is not None and node not in seen:
            seen.add(node)
            yield node
            node = node.parent


def _finish_reasons(attributes: Mapping) -> tuple:
    value = attributes.get("gen_ai.response.finish_reasons", attributes.get("llm.finish_reason"))
    if value is None:  # the anthropic SDK's own spans (2.x): only its stop reason
        value = attributes.get("anthropic.message.stop_reason")
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    return ()


def _read_span(span: Any, logs_by_span: Mapping) -> _Node:
    if type(span) is not SpanRecord and not isinstance(span, SpanRecord):
        raise TypeError(f"not a SpanRecord: {type(span).__name__}")
    if not isinstance(span.span_id, str) or not span.span_id:
        raise ValueError("span has no span id")
    if type(span.attributes) is not dict and not isinstance(span.attributes, Mapping):
        raise TypeError("span attributes are not a mapping")
    if not isinstance(span.start_ns, int) or not isinstance(span.end_ns, int):
        raise TypeError("span timestamps are not integers")
    role = sc.span_role(span)
    node = _Node(span=span, role=role, error=sc.error_of(span))
    if role == sc.MODEL:
        node.usage = sc.usage_of(span.attributes)
        node.response_id = sc.response_id_of(span.attributes)
        node.finish_reasons = _finish_reasons(span.attributes)
        output = model_output_of_span(span)
        if not output:
            output = _output_of_logs(logs_by_span.get(span.span_id, ()))
        node.output = output
    return node


def _output_of_logs(logs: Sequence[LogRecord]) -> ModelOutput:
    calls: list = []
    texts: list = []
    found = False
    for log in sorted(logs, key=lambda r: r.time_ns):
        if log.event_name not in OUTPUT_EVENTS:
            continue
        output = model_output_of_log(log)
        if not output:
            continue
        found = True
        for call in output.calls:
            calls.append(RequestedCall(call.name, call.args, call.call_id, call.args_captured,
                                       len(calls)))
        if output.text:
            texts.append(output.text)
    return ModelOutput(tuple(calls), "\n".join(texts) or None, found)


# ---------------------------------------------------------------------------
# Building one episode
# ---------------------------------------------------------------------------


@dataclass(slots=True)  # private and never changed (not frozen: faster to make)
class _Requested:
    call: RequestedCall
    time_ns: int
    node: Optional[_Node]


def _tree(spans: Sequence[Any], logs: Sequence[LogRecord],
          report: Optional[BadInputReport]) -> tuple:
    logs_by_span: dict = {}
    for log in logs:
        if isinstance(log, LogRecord) and log.span_id:
            logs_by_span.setdefault(log.span_id, []).append(log)
    nodes: dict = {}
    bad = 0
    for span in spans:
        try:
            node = _read_span(span, logs_by_span)
        except Exception as exc:  # noqa: BLE001 - a bad span is reported and skipped
            bad += 1
            if report is not None:
                origin = getattr(span, "origin", None)
                sid = getattr(span, "span_id", "?")
                report.add(MALFORMED_RECORD, f"span {sid!r} skipped: {exc}", origin)
            continue
        nodes.setdefault(node.span_id, node)
        if report is not None and node.role == sc.MODEL:
            for key in sc.unreadable_token_counts(span.attributes):
                report.add(BAD_ATTRIBUTE, f"span {node.span_id}: {key!r} is not a token count "
                           f"({span.attributes[key]!r}); ignored", getattr(span, "origin", None))
    orphans: dict = {}
    for node in nodes.values():
        parent = nodes.get(node.span.parent_span_id) if node.span.parent_span_id else None
        if parent is not None and parent is not node:
            node.parent = parent
            parent.children.append(node)
        elif node.span.parent_span_id:
            orphans.setdefault((node.span.trace_id, node.span.parent_span_id), []).append(node)
    if report is not None:
        _report_missing_parents(orphans, report)
    limit = len(nodes)  # more ancestors than nodes: a parent cycle (malformed input)
    for node in nodes.values():
        depth = 0
        parent = node.parent
        while parent is not None and depth <= limit:
            depth += 1
            parent = parent.parent
        if depth > limit:
            depth = sum(1 for _ in node.ancestors())
        node.depth = depth
        node.order = (node.span.start_ns, depth, node.span.span_id)
    return nodes, bad


def _report_missing_parents(orphans: Mapping, report: BadInputReport) -> None:
    """One case per missing parent (Langfuse hangs every generation on one unexported span)."""
    for (_, parent_id), children in orphans.items():
        first = min(children, key=lambda n: (n.span.start_ns, n.span_id))
        what = (f"span {first.span_id} {first.span.name!r}" if len(children) == 1
                else f"{len(children)} spans (first {first.span_id} {first.span.name!r})")
        report.add(MISSING_PARENT, f"{what}: parent {parent_id} is not among the spans; "
                   f"read as {'a root' if len(children) == 1 else 'roots'}",
                   getattr(first.span, "origin", None))


def _by_time(nodes: Iterable[_Node]) -> list:
    return sorted(nodes, key=_ORDER)


_ORDER = attrgetter("order")  # (start, depth, span id), set by _tree


def _roots(nodes: Mapping) -> list:
    """One root per trace: the earliest-starting span without a (present) parent."""
    roots: dict = {}
    for node in _by_time(n for n in nodes.values() if n.parent is None):
        roots.setdefault(node.span.trace_id, node)
    return sorted(roots.values(), key=lambda n: (n.span.start_ns, n.span_id))


def _clusters(nodes: Mapping) -> dict:
    """Model spans grouped by their outermost model-span ancestor (one model call each)."""
    clusters: dict = {}
    for node in _by_time(nodes.values()):
        if node.role != sc.MODEL:
            continue
        top = node
        for ancestor in node.ancestors():
            if ancestor.role == sc.MODEL:
                top = ancestor
        clusters.setdefault(top.span_id, []).append(node)
    return clusters


def _is_leaf_model(node: _Node, members: Sequence[_Node]) -> bool:
    return not any(other is not node and any(a is node for a in other.ancestors())
                   for other in members)


def _usage(nodes: Mapping, clusters: Mapping) -> tuple:
    """``(usage, retries)`` per the leaf/dedup/aggregate rules."""
    counted: list = []
    leaves: list = []
    for members in clusters.values():
        if len(members) == 1:  # one span for one model call: its own leaf
            cluster_leaves = members
        else:
            cluster_leaves = [n for n in members if _is_leaf_model(n, members)]
        leaves.extend(cluster_leaves)
        with_usage = [n for n in cluster_leaves if n.usage is not None]
        if not with_usage:
            fallback = [n for n in members if n.usage is not None]
            with_usage = sorted(fallback, key=lambda n: -n.depth)[:1]
        counted.extend(with_usage)
    if not counted:
        for node in nodes.values():  # aggregate spans are read only when needed
            if node.role in (sc.AGENT, sc.OTHER):
                node.usage = sc.usage_of(node.span.attributes)
                node.response_id = sc.response_id_of(node.span.attributes)
        aggregates = [n for n in nodes.values() if n.usage is not None and n.role != sc.TOOL]
        counted = [n for n in aggregates
                   if not any(a.usage is not None for a in n.ancestors())]
    total = sc.Usage()
    seen_responses: set = set()
    for node in _by_time(counted):
        if node.response_id:
            if node.response_id in seen_responses:
                continue
            seen_responses.add(node.response_id)
        total = total + node.usage
    leaves = _by_time(leaves)
    # a failed model call is a retry when another model call came after it
    retries = sum(1 for node in leaves[:-1] if node.error is not None)
    return total, retries


def _best_output(members: Sequence[_Node]) -> tuple:
    """The most complete answer among a cluster's spans, and the span it came from."""
    best, best_node, best_key = EMPTY_OUTPUT, None, None
    for node in members:
        output = node.output
        if not output:
            continue
        key = (sum(1 for c in output.calls if c.args_captured), len(output.calls),
               bool(output.text), node.depth)
        if best_key is None or key > best_key:
            best, best_node, best_key = output, node, key
    return best, best_node


def _requested_calls(clusters: Mapping, logs: Sequence[LogRecord], nodes: Mapping) -> tuple:
    """Every requested call (deduplicated by id), the final text, the uncaptured-call count,
    and the count of model calls that recorded no answer at all (no text, no calls)."""
    answers: list = []  # (time, output, node)
    unanswered: list = []  # clusters that asked for tools without recording the calls
    silent: list = []  # clusters that recorded no answer: tool calls may hide there
    answered_ids: set = set()
    for members in clusters.values():
        top = members[0]
        if len(members) == 1:  # the common case: one span for one model call
            output = top.output
            node = top if output else None
            end = top.span.end_ns or top.span.start_ns
        else:
            output, node = _best_output(members)
            end = max(n.span.end_ns or n.span.start_ns for n in members)
        asked_for_tools = any(r in _TOOL_FINISH_REASONS for n in members for r in n.finish_reasons)
        if output and (output.calls or output.text is not None or not asked_for_tools):
            answers.append((end, output, node or top))
            answered_ids.update(n.response_id for n in members if n.response_id)
        elif asked_for_tools:  # no answer, or one without the calls it says it made
            unanswered.append(members)
        else:  # e.g. Gemini: finish reason STOP even when it calls tools
            silent.append(members)
    # a content-less span of a call that another span (same response id) recorded in full,
    # e.g. the anthropic SDK's own span beside an instrumentor's sibling span, hides nothing
    uncaptured = sum(1 for members in unanswered
                     if not any(n.response_id in answered_ids for n in members))
    unrecorded = sum(1 for members in silent
                     if not any(n.response_id in answered_ids for n in members))
    for log in logs:  # answers in log events that no model span holds
        if not isinstance(log, LogRecord) or log.event_name not in OUTPUT_EVENTS:
            continue
        holder = nodes.get(log.span_id)
        if holder is not None and holder.role == sc.MODEL:
            continue
        output = model_output_of_log(log)
        if output:
            answers.append((log.time_ns, output, holder))
    answers.sort(key=lambda a: a[0])
    requested: list = []
    seen_ids: set = set()
    final_text = None
    for time_ns, output, node in answers:
        for call in output.calls:
            if call.call_id:
                if call.call_id in seen_ids:
                    continue
                seen_ids.add(call.call_id)
            requested.append(_Requested(call, time_ns, node))
        if output.text:
            final_text = output.text
    history = [log for log in logs if isinstance(log, LogRecord)
               and log.event_name in HISTORY_EVENTS]
    for log in sorted(history, key=lambda r: r.time_ns):
        for call in model_output_of_log(log).calls:
            if call.call_id and call.call_id not in seen_ids:
                seen_ids.add(call.call_id)
                requested.append(_Requested(call, log.time_ns, nodes.get(log.span_id)))
    return requested, final_text, uncaptured, unrecorded


def _distinct_calls(clusters: Mapping) -> int:
    """Model calls: clusters, those sharing a response id (sibling spans of two packages for
    one call) counted once."""
    ids: set = set()
    count = 0
    for members in clusters.values():
        found = {n.response_id for n in members if n.response_id}
        if not found or found.isdisjoint(ids):
            count += 1
        ids |= found
    return count


def _nearest_agent(node: Optional[_Node]) -> Optional[_Node]:
    """The nearest agent ancestor, preferring one that names its agent in an attribute."""
    if node is None:
        return None
    agent = node.agent
    if agent is _UNKNOWN:
        agents = [a for a in node.ancestors() if a.role == sc.AGENT]
        named = [a for a in agents if _has_named_agent(a)]
        agent = node.agent = (named or agents or [None])[0]
    return agent


def _agent_of(node: Optional[_Node]) -> tuple:
    """``(agent, agent_span_id)`` of a step: its nearest agent's name and span id."""
    agent = _nearest_agent(node)
    if agent is None:
        return None, None
    return sc.agent_name_of(agent.span), agent.span.span_id


def _executed_args(attributes: Mapping) -> tuple:
    """``(args, captured)`` as the executed-tool span recorded them."""
    captured, raw, parsed = sc.tool_args_parsed(attributes)
    return parse_arguments(raw, parsed) if captured else ({}, False)


def _merge_steps(requested: list, tools: list) -> list:
    """Join executed tools to requested calls (by id, else name and order); make steps."""
    unmatched = list(range(len(requested)))
    by_id = {r.call.call_id: i for i, r in enumerate(requested) if r.call.call_id}
    timed: list = []
    for node in tools:
        span = node.span
        attributes = span.attributes
        call_id = sc.tool_call_id_of(attributes)
        match = by_id.get(call_id) if call_id else None
        if match is not None and match not in unmatched:
            match = None
        name = None  # the executed tool's name: needed unless joined by id
        if match is None:
            name = sc.tool_name_of(span)
            same_name = [i for i in unmatched if requested[i].call.name == name]
            agent = _nearest_agent(node)
            same_agent = [i for i in same_name if _nearest_agent(requested[i].node) is agent]
            pool = same_agent or same_name  # in multi-agent traces, the tool's own agent first
            before = [i for i in pool if requested[i].time_ns <= node.span.start_ns]
            candidates = before or pool
            match = candidates[0] if candidates else None
        observation = sc.tool_result_of(attributes)
        agent, agent_span_id = _agent_of(node)
        if match is not None:
            unmatched.remove(match)
            req = requested[match]
            call = req.call
            args, args_captured = call.args, call.args_captured
            if not args_captured:  # the executed span's arguments, when it recorded them
                exec_args, exec_captured = _executed_args(attributes)
                if exec_captured:
                    args, args_captured = exec_args, True
            step = Step(call.name, args, observation, node.error, call.call_id or call_id,
                        span.span_id, agent, agent_span_id, args_captured)
            timed.append(((req.time_ns, call.index), step))
        else:
            exec_args, exec_captured = _executed_args(attributes)
            step = Step(name, exec_args, observation, node.error, call_id, span.span_id,
                        agent, agent_span_id, exec_captured)
            timed.append(((span.start_ns, 0), step))
    for i in unmatched:
        req = requested[i]
        call = req.call
        span_id = req.node.span_id if req.node is not None else None
        step = Step(call.name, call.args, None, None, call.call_id, span_id,
                    *_agent_of(req.node), call.args_captured)
        timed.append(((req.time_ns, call.index), step))
    timed.sort(key=lambda t: t[0])
    return [step for _, step in timed]


def _task_id(root: Optional[_Node], roots: Sequence[_Node], keys: Sequence[str]) -> str:
    keys = tuple(keys)
    for node in roots:
        for holder in (node.span.attributes, node.span.resource):
            if isinstance(holder, Mapping):
                value = sc.first_value(holder, keys)
                if isinstance(value, str):
                    value = sc.json_value(value)  # Langfuse JSON-encodes metadata values
                if value is not None and not isinstance(value, (dict, list, bytes)):
                    return str(value)
    return ""


def _latency(root: _Node, nodes: Mapping) -> float:
    """The root span's duration; when the root's own parent is missing from the export
    (Langfuse), the extent of every span of its trace instead."""
    if not root.span.parent_span_id:
        return root.span.duration_s
    same_trace = [n.span for n in nodes.values() if n.span.trace_id == root.span.trace_id
                  and n.span.start_ns and n.span.end_ns]
    if not same_trace:
        return 0.0
    start = min(s.start_ns for s in same_trace)
    end = max(s.end_ns for s in same_trace)
    return (end - start) / 1e9 if end > start else 0.0


def _root_end_ns(root: Optional[_Node]) -> int:
    """The root span's end (Unix ns), or its start when it has no valid end; 0 without one."""
    if root is None:
        return 0
    end, start = root.span.end_ns, root.span.start_ns
    if isinstance(end, int) and end > 0 and (not isinstance(start, int) or end >= start):
        return end
    return start if isinstance(start, int) and start > 0 else 0


def _first(nodes: Sequence[_Node], read) -> Any:
    for node in nodes:
        value = read(node.span.attributes)
        if value is not None:
            return value
    return None


def _has_named_agent(node: _Node) -> bool:
    named = node.named_agent
    if named is None:
        named = node.named_agent = sc.first_value(node.span.attributes,
                                                  sc.AGENT_NAME_KEYS) is not None
    return named


def _outermost_agent(nodes: Mapping) -> Optional[_Node]:
    """The outermost agent span, preferring one that names its agent in an attribute
    (a workflow wrapper such as the Agents SDK's ``Agent workflow`` names none)."""
    agents = [n for n in nodes.values() if n.role == sc.AGENT]
    named = [n for n in agents if _has_named_agent(n)]
    if not (named or agents):
        return None
    return min(named or agents, key=lambda n: (n.depth, n.span.start_ns))


def _root_output(root: Optional[_Node]) -> Optional[str]:
    if root is None:
        return None
    output = model_output_of_span(root.span)
    if output.text:
        return output.text
    value = root.span.attributes.get("output.value")
    return value if isinstance(value, str) and value else None


def build_episode(
    spans: Sequence[SpanRecord],
    logs: Sequence[LogRecord] = (),
    *,
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    source: str = "",
    report: Optional[BadInputReport] = None,
) -> Episode:
    """Build the :class:`Episode` of one trace's (or one conversation's) records.

    Args:
        spans: The spans of the trace(s); order does not matter.
        logs: GenAI log events of the same trace(s) (linked to spans by span id).
        task_id_keys: Attribute keys tried, in order, for the task id.
        source: Where the records came from (kept in ``Provenance.source``).
        report: Where unreadable spans are reported (they are skipped either way).

    Example:
        >>> s = SpanRecord("c" * 32, "d" * 16, name="chat m", attributes={
        ...     "gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"]})
        >>> e = build_episode([s])
        >>> e.calls, e.provenance.args_captured, e.meta["uncaptured_tool_calls"]
        ((), False, 1)
    """
    nodes, bad = _tree(spans, logs, report)
    roots = _roots(nodes)
    root = roots[0] if roots else None
    clusters = _clusters(nodes)
    usage, retries = _usage(nodes, clusters)
    requested, final_text, uncaptured, unrecorded = _requested_calls(clusters, logs, nodes)
    tools = _by_time(n for n in nodes.values() if n.role == sc.TOOL)
    steps = _merge_steps(requested, tools)

    model_nodes = _by_time(n for members in clusters.values() for n in members)
    leaves_first = sorted(model_nodes, key=lambda n: (n.span.start_ns, -n.depth))
    model = _first(leaves_first, sc.response_model_of) or _first(leaves_first, sc.request_model_of)
    agent = _outermost_agent(nodes)
    agent_name = sc.agent_name_of(agent.span) if agent is not None else None
    resource = root.span.resource if root is not None else {}
    if not isinstance(resource, Mapping):
        resource = {}
    service_name = sc.first_value(resource, (sc.SERVICE_NAME,))
    service_version = sc.first_value(resource, (sc.SERVICE_VERSION,))
    all_by_time = _by_time(nodes.values())
    conversation = _first(all_by_time, sc.conversation_id_of) or _first(
        all_by_time, sc.session_id_of)
    trace_ids = list(dict.fromkeys(n.span.trace_id for n in roots))
    if not trace_ids:
        trace_ids = list(dict.fromkeys(
            log.trace_id for log in logs if isinstance(log, LogRecord) and log.trace_id))
    # a model answer that no span recorded (content capture off) may hide tool calls
    args_captured = (all(s.args_captured for s in steps) and uncaptured == 0
                     and unrecorded == 0)

    cost = Cost(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        retries=retries,
        latency_s=sum(_latency(root, nodes) for root in roots),
    )
    run = RunProvenance(
        seed=_first(leaves_first, sc.seed_of),
        temperature=_first(leaves_first, sc.temperature_of),
        model=model or "",
        scaffold=agent_name or (str(service_name) if service_name is not None else ""),
    )
    provenance = Provenance(
        source=source,
        trace_id=trace_ids[0] if trace_ids else "",
        root_span_id=root.span_id if root is not None else "",
        conversation_id=conversation,
        service_name=str(service_name) if service_name is not None else None,
        service_version=str(service_version) if service_version is not None else None,
        agent_name=agent_name,
        instrumentation=tuple(sorted({n.span.scope_name for n in nodes.values()
                                      if n.span.scope_name})),
        span_count=len(nodes),
        args_captured=args_captured,
        root_end_ns=_root_end_ns(root),
    )
    meta = {
        "trace_ids": trace_ids,
        "bad_spans": bad,
        "model_calls": _distinct_calls(clusters),
        # model calls that no model span gave a token count (the package recorded none):
        # unless an aggregate span's total covers them, the Cost is short by their tokens
        "model_calls_without_usage": sum(
            1 for members in clusters.values() if all(n.usage is None for n in members)),
        "uncaptured_tool_calls": uncaptured,
        "unrecorded_model_outputs": unrecorded,
    }
    return Episode(
        task_id=_task_id(root, roots, task_id_keys),
        trajectory=Trajectory(steps),
        output=final_text if final_text is not None else _root_output(root),
        cost=cost,
        run=run,
        provenance=provenance,
        meta=meta,
    )


# ---------------------------------------------------------------------------
# Many episodes
# ---------------------------------------------------------------------------


def _group_key(spans: Sequence[Any], group_by: str) -> Optional[str]:
    read = sc.conversation_id_of if group_by == GROUP_BY_CONVERSATION else sc.session_id_of
    ordered = sorted((s for s in spans if isinstance(s, SpanRecord)
                      and isinstance(s.attributes, Mapping)),
                     key=lambda s: s.start_ns if isinstance(s.start_ns, int) else 0)
    for span in ordered:
        value = read(span.attributes)
        if value:
            return value
    return None


def build_episodes(
    groups: Iterable[Any],
    *,
    group_by: str = GROUP_BY_TRACE,
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    source: str = "",
    report: Optional[BadInputReport] = None,
) -> Iterator[Episode]:
    """Episodes from trace groups (anything with ``spans`` and ``logs``, e.g. ``TraceGroup``).

    ``group_by="trace"`` yields one episode per group as it comes. ``"conversation"`` merges
    the traces that share ``gen_ai.conversation.id``, and ``"session"`` those that share
    ``session.id`` (or a Traceloop/Langfuse session property); traces without one stay
    episodes of their own. Merged episodes come last, in order of first appearance.

    Example:
        >>> from types import SimpleNamespace as G
        >>> def span(t, s, conv):
        ...     return SpanRecord(t * 32, s * 16, name="chat m", attributes={
        ...         "gen_ai.operation.name": "chat", "gen_ai.conversation.id": conv})
        >>> groups = [G(spans=[span("a", "1", "c1")], logs=[]),
        ...           G(spans=[span("b", "2", "c1")], logs=[])]
        >>> [len(e.meta["trace_ids"]) for e in build_episodes(groups, group_by="conversation")]
        [2]
        >>> len(list(build_episodes(groups)))
        2
    """
    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"group_by must be one of {GROUP_BY_CHOICES}, not {group_by!r}")
    merged: dict = {}
    for group in groups:
        spans = list(getattr(group, "spans", ()) or ())
        logs = list(getattr(group, "logs", ()) or ())
        if not spans and not any(getattr(log, "event_name", "") in _ANSWER_EVENTS
                                 for log in logs):
            continue  # log records with no span and no model answer: nothing to build
        key = _group_key(spans, group_by) if group_by != GROUP_BY_TRACE else None
        if key is None:
            episode = build_episode(spans, logs, task_id_keys=task_id_keys, source=source,
                                    report=report)
            if getattr(group, "late", False):
                episode.meta["late"] = True  # a revision: records that came after closing
            yield episode
            continue
        bucket = merged.setdefault(key, ([], []))
        bucket[0].extend(spans)
        bucket[1].extend(logs)
    for spans, logs in merged.values():
        yield build_episode(spans, logs, task_id_keys=task_id_keys, source=source,
                            report=report)
