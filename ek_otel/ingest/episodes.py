"""Episodes from spans: one trace's (or one conversation's) records become an Episode.

The rules, as implemented here (the span tree in :mod:`~ek_otel.ingest.span_tree`, model
calls and tokens in :mod:`~ek_otel.ingest.model_calls`, steps in
:mod:`~ek_otel.ingest.steps`, every attribute name in :mod:`~ek_otel.ingest.semconv`):

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
OpenInference AGENT, Traceloop agent, ...) as ``agent``/``agent_span_id``. A tool span
inside another tool span of the same tool is the same execution seen from the other side
of a call (an MCP server's span under the client's): one step.

**One model call, several spans.** An agent instrumentor and a client instrumentor report
the same call twice (the client span nested under the agent's model span). Nested model
spans form one *cluster*; its answer is read from the span that recorded the most (the
deepest on a tie), so calls are never counted twice. Requested calls with the same id are
one call.

**Tokens** are counted on leaf model-call spans (no model-call descendant) and deduplicated
by ``gen_ai.response.id``. A cluster whose leaves carry no usage falls back to its deepest
model span with usage. When no model span carries usage at all, the outermost aggregate
spans with usage (``invoke_agent``, Logfire's task span, a recorded run total such as
CrewAI's ``token_usage``) are used instead, never summed with their descendants. A failed
leaf model call followed by another model call counts as one ``Cost.retries``.

**Task id**: the first of ``task_id_keys`` found on the root span, then on its resource
(see :data:`~ek_otel.ingest.semconv.DEFAULT_TASK_ID_KEYS`); ``""`` when none. A
JSON-encoded string (Langfuse metadata: ``'"t1"'``) is decoded.

**Not an agent run**: a trace with no model call (nor recorded answer), no step, no agent
span and no task id (an MCP client's ``initialize``, ``ping`` or ``tools/list`` outside any
run) gets ``meta["not_an_agent_run"]``, what it is (:func:`~ek_otel.ingest.semconv.not_a_run_kind`):
it is never scored against a task.

**Answer**: the text of the last model answer; else the root span's recorded output; else
the outermost agent's, when it is plain text (smolagents ends a run in its ``final_answer``
tool and records the answer on its agent span).

**Run provenance**: ``model`` is the response model of the first model call, read from its
innermost span (else its request model); ``temperature`` and ``seed`` are the first
requested values; ``scaffold`` is the outermost agent's name, else the resource's
``service.name`` (what identifies the harness across runs). **Provenance**: trace and root span ids, conversation (or session)
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
reported (reason :data:`~ek_otel.ingest.span_tree.MISSING_PARENT`).

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
from typing import Any, Optional

from ..core.episode import Cost, Episode, Provenance, RunProvenance, Trajectory
from . import semconv as sc
from .bad_input import BadInputReport
from .model_calls import clusters_of, distinct_calls, requested_calls, usage_of_clusters
from .model_output import model_output_of_span
from .records import LogRecord, SpanRecord
from .requests import first_user_message, tool_definitions
from .span_tree import MISSING_PARENT, Node, build_tree, by_time, outermost_agent, release_tree, roots_of
from .steps import merge_steps, tool_executions
from .turns import USER_TURNS, steps_with_turns

__all__ = [
    "DEFAULT_TASK_ID_KEYS",
    "UNTRACED_MODEL_CALLS",
    "task_id_on",
    "MISSING_PARENT",
    "GROUP_BY_TRACE",
    "GROUP_BY_CONVERSATION",
    "GROUP_BY_SESSION",
    "GROUP_BY_CHOICES",
    "NOT_A_RUN",
    "is_agent_run",
    "build_episode",
    "build_episodes",
]

DEFAULT_TASK_ID_KEYS = sc.DEFAULT_TASK_ID_KEYS

GROUP_BY_TRACE = "trace"
GROUP_BY_CONVERSATION = "conversation"
GROUP_BY_SESSION = "session"
GROUP_BY_CHOICES = (GROUP_BY_TRACE, GROUP_BY_CONVERSATION, GROUP_BY_SESSION)

#: ``Episode.meta`` key of a trace that is not an agent run (see
#: :mod:`ek_otel.ingest.semconv.nonruns`): what it is, e.g. ``"MCP initialize"``.
NOT_A_RUN = "not_an_agent_run"
#: ``Episode.meta`` key of a run that used tokens or gave an answer while no model-call span
#: is traced (an agent span's totals, a workflow's output): model calls were made, how many
#: is unknown; ``meta["model_calls"]`` counts the traced ones (0).
UNTRACED_MODEL_CALLS = "untraced_model_calls"


def is_agent_run(episode: Any) -> bool:
    """False for an episode built from a trace that is not an agent run (``meta``
    :data:`NOT_A_RUN`): no model call, tool call, agent or task id.

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> is_agent_run(Episode("t")), is_agent_run(Episode("", meta={NOT_A_RUN: "MCP ping"}))
        (True, False)
    """
    meta = getattr(episode, "meta", None)
    return not (isinstance(meta, Mapping) and meta.get(NOT_A_RUN))


# ---------------------------------------------------------------------------
# One episode
# ---------------------------------------------------------------------------


def build_episode(
    spans: Sequence[SpanRecord],
    logs: Sequence[LogRecord] = (),
    *,
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    source: str = "",
    report: Optional[BadInputReport] = None,
    read_request: bool = False,
    transcript: bool = False,
) -> Episode:
    """Build the :class:`Episode` of one trace's (or one conversation's) records.

    Args:
        spans: The spans of the trace(s); order does not matter.
        logs: GenAI log events of the same trace(s) (linked to spans by span id).
        task_id_keys: Attribute keys tried, in order, for the task id.
        source: Where the records came from (kept in ``Provenance.source``).
        report: Where unreadable spans are reported (they are skipped either way).
        read_request: Also read what the run was asked (:mod:`ek_otel.ingest.requests`):
            ``meta["input"]`` (the first user message, or None) and ``meta["tools"]`` (the
            tool definitions), for ``gold from-traces`` and ``--link-by input``.
        transcript: Also read what the run did, in order (``meta["transcript"]``:
            :func:`~ek_otel.ingest.transcript.transcript_of`); off by default (it costs).

    Example:
        >>> s = SpanRecord("c" * 32, "d" * 16, name="chat m", attributes={
        ...     "gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["tool_calls"]})
        >>> e = build_episode([s])
        >>> e.calls, e.provenance.args_captured, e.meta["uncaptured_tool_calls"]
        ((), False, 1)
    """
    sc.take_value_notes()  # repairs of an earlier build that reported none
    request = ({"input": first_user_message(spans, logs), "tools": tool_definitions(spans)}
               if read_request else None)
    nodes, bad = build_tree(spans, logs, report)
    roots = roots_of(nodes)
    root = roots[0] if roots else None
    all_by_time = by_time(nodes.values())
    clusters = clusters_of(nodes, all_by_time)
    usage, retries = usage_of_clusters(nodes, clusters)
    requested, final_text, uncaptured, unrecorded = requested_calls(clusters, logs, nodes)
    steps, user_turns = steps_with_turns(merge_steps(requested, tool_executions(nodes)), nodes,
                                         clusters, logs)
    agent = outermost_agent(nodes)
    agent_name = sc.agent_name_of(agent.span) if agent is not None else None
    service_name, service_version = _service(root)
    trace_ids = _trace_ids(roots, logs)
    # a model answer that no span recorded (content capture off) may hide tool calls
    args_captured = all(s.args_captured for s in steps) and uncaptured == 0 and unrecorded == 0
    provenance = Provenance(
        source=source,
        trace_id=trace_ids[0] if trace_ids else "",
        root_span_id=root.span_id if root is not None else "",
        conversation_id=_conversation_id(all_by_time),
        service_name=service_name,
        service_version=service_version,
        agent_name=agent_name,
        instrumentation=tuple(sorted({n.span.scope_name for n in nodes.values() if n.span.scope_name})),
        span_count=len(nodes),
        args_captured=args_captured,
        root_end_ns=_root_end_ns(root),
    )
    task_id = _task_id(roots, task_id_keys)
    without_usage = _calls_without_usage(clusters)
    meta = _meta(trace_ids, bad, clusters, uncaptured, unrecorded, without_usage)
    output = final_text if final_text is not None else (_root_output(root) or _agent_output(agent))
    # a run is any trace with a model, tool or agent signal: tokens and an answer included
    not_a_run = sc.not_a_run_kind(
        (n.span for n in nodes.values()),
        model_calls=meta["model_calls"] + (final_text is not None) + unrecorded + uncaptured
        + (usage.input_tokens + usage.output_tokens > 0) + (output is not None),
        tool_calls=len(steps), agents=sum(1 for n in nodes.values() if n.role == sc.AGENT),
        task_id=task_id)
    if user_turns > 1:  # only then: the meta of other runs keeps its bytes
        meta[USER_TURNS] = user_turns
    if not_a_run is not None:
        meta[NOT_A_RUN] = not_a_run
    elif not meta["model_calls"] and not unrecorded and not uncaptured and (
            usage.input_tokens + usage.output_tokens > 0 or output is not None):
        meta[UNTRACED_MODEL_CALLS] = True  # tokens or an answer, and no model span
    episode = Episode(
        task_id=task_id,
        trajectory=Trajectory(steps),
        output=output,
        cost=_cost(usage, retries, roots, nodes, _uncounted_calls(clusters, nodes, without_usage)),
        run=_run(clusters, agent_name or service_name or ""),
        provenance=provenance,
        meta=meta,
    )
    if request is not None:
        episode.meta.update(request)
    if transcript:
        from .transcript import transcript_of

        episode.meta["transcript"] = transcript_of(nodes, clusters, logs, answer=episode.output)
    release_tree(nodes)
    _report_value_repairs(root, provenance.trace_id, report)
    return episode


def _report_value_repairs(root: Optional[Node], trace_id: str, report: Optional[BadInputReport]) -> None:
    """One case per kind of repair made to JSON read from the trace's attribute strings
    (nesting cut, lone surrogates replaced: :func:`~ek_otel.ingest.semconv.loads`)."""
    notes = sc.take_value_notes()
    if report is None:
        return
    origin = getattr(root.span, "origin", None) if root is not None else None
    for reason, detail in notes:
        report.add(reason, f"trace {trace_id}: {detail}", origin)


def _service(root: Optional[Node]) -> tuple:
    """``(service.name, service.version)`` of the root span's resource, as strings or None."""
    resource = root.span.resource if root is not None else {}
    if type(resource) is not dict and not isinstance(resource, Mapping):
        resource = {}
    name = sc.first_value(resource, (sc.SERVICE_NAME,))
    version = sc.first_value(resource, (sc.SERVICE_VERSION,))
    return (str(name) if name is not None else None, str(version) if version is not None else None)


def _trace_ids(roots: Sequence[Node], logs: Sequence[LogRecord]) -> list:
    """The trace ids of the roots, else of the log records, in order of first appearance."""
    trace_ids = list(dict.fromkeys(n.span.trace_id for n in roots))
    if not trace_ids:
        trace_ids = list(dict.fromkeys(
            log.trace_id for log in logs if isinstance(log, LogRecord) and log.trace_id))
    return trace_ids


def _conversation_id(all_by_time: Sequence[Node]) -> Optional[str]:
    """The first conversation id of the spans in time order, else the first session id."""
    return _first(all_by_time, sc.conversation_id_of) or _first(all_by_time, sc.session_id_of)


def _cost(usage: sc.Usage, retries: int, roots: Sequence[Node], nodes: Mapping,
          uncounted: int = 0) -> Cost:
    return Cost(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        retries=retries,
        latency_s=sum(_latency(root, nodes) for root in roots),
        calls_without_usage=uncounted,
    )


def _uncounted_calls(clusters: Mapping, nodes: Mapping, without: int) -> int:
    """The model calls whose tokens the Cost lacks: those without usage, unless no call had
    any and an aggregate span's total (``usage_of_clusters``' fallback) covers them all
    (``without``: :func:`_calls_without_usage`, counted once for the meta too)."""
    if without and without == len(clusters) and any(
            n.usage is not None for n in nodes.values() if n.role in (sc.AGENT, sc.OTHER)):
        return 0
    return without


def _run(clusters: Mapping, scaffold: str) -> RunProvenance:
    """The model (response model of the first model call, else its request model), and the
    first requested seed and temperature, read leaf spans first."""
    # model calls in time order; within one (an agent's span around a client's), the
    # innermost span first: it saw the request and the response closest to the wire
    # (clusters_of gives the clusters in the time order of their first span)
    leaves_first = [n for members in clusters.values()
                    for n in (members if len(members) == 1
                              else sorted(members, key=lambda n: (-n.depth, n.order)))]
    model = _first(leaves_first, sc.response_model_of) or _first(leaves_first, sc.request_model_of)
    return RunProvenance(
        seed=_first(leaves_first, sc.seed_of),
        temperature=_first(leaves_first, sc.temperature_of),
        model=model or "",
        scaffold=scaffold,
    )


def _meta(trace_ids: list, bad: int, clusters: Mapping, uncaptured: int, unrecorded: int,
          without_usage: int) -> dict:
    return {
        "trace_ids": trace_ids,
        "bad_spans": bad,
        "model_calls": distinct_calls(clusters),
        # model calls that no model span gave a token count (the package recorded none):
        # unless an aggregate span's total covers them, the Cost is short by their tokens
        "model_calls_without_usage": without_usage,
        "uncaptured_tool_calls": uncaptured,
        "unrecorded_model_outputs": unrecorded,
    }


def _calls_without_usage(clusters: Mapping) -> int:
    count = 0
    for members in clusters.values():
        if len(members) == 1:  # the common case, without a generator
            node = members[0]
            if node.usage is None and not node.error:
                count += 1
            continue
        if all(node.error for node in members):
            continue  # a failed call: nothing billed for a span to show
        for node in members:
            if node.usage is not None:
                break
        else:
            count += 1
    return count


def _task_id(roots: Sequence[Node], keys: Sequence[str]) -> str:
    """The first of ``keys`` found on a root span, then on its resource; ``""`` when none.
    A task id on a span below the root is not read (a protocol's own task ids sit there:
    kagent's A2A ``task_id``); doctor names where one is (:func:`task_id_below_root`)."""
    keys = tuple(keys)
    for node in roots:
        value = task_id_on(node.span, keys)
        if value:
            return value
    return ""


def task_id_on(span: Any, keys: Sequence[str]) -> str:
    """The first of ``keys`` on a span's attributes, then on its resource; ``""`` when none.

    Example:
        >>> task_id_on(SpanRecord("a" * 32, "b" * 16, attributes={"ek.task.id": "t1"}),
        ...            ("ek.task.id",))
        't1'
    """
    keys = tuple(keys)
    for holder in (span.attributes, span.resource):
        if type(holder) is dict or isinstance(holder, Mapping):
            value = sc.first_value(holder, keys)
            if isinstance(value, str):
                value = sc.json_value(value)  # Langfuse JSON-encodes metadata values
            if value is not None and not isinstance(value, (dict, list, bytes)):
                return str(value)
    return ""


def _latency(root: Node, nodes: Mapping) -> float:
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


def _root_end_ns(root: Optional[Node]) -> int:
    """The root span's end (Unix ns), or its start when it has no valid end; 0 without one."""
    if root is None:
        return 0
    end, start = root.span.end_ns, root.span.start_ns
    if isinstance(end, int) and end > 0 and (not isinstance(start, int) or end >= start):
        return end
    return start if isinstance(start, int) and start > 0 else 0


def _first(nodes: Sequence[Node], read) -> Any:
    """The first value ``read`` finds in the attributes of ``nodes``."""
    for node in nodes:
        value = read(node.span.attributes)
        if value is not None:
            return value
    return None


def _root_output(root: Optional[Node]) -> Optional[str]:
    """The answer text the root span recorded (when no model answer had text)."""
    if root is None or root.role == sc.TOOL:  # a tool's result is no answer of the run
        return None
    output = model_output_of_span(root.span)
    if output.text:
        return output.text
    if output.calls:  # a model call's answer of calls only: its raw response is no text
        return None
    value = root.span.attributes.get(sc.ROOT_OUTPUT_KEY)
    if isinstance(value, str) and value:
        return value
    return sc.workflow_output_of(root.span.attributes)


def _agent_output(agent: Optional[Node]) -> Optional[str]:
    """The outermost agent's answer, when it recorded one as plain text (smolagents, whose
    run ends in its ``final_answer`` tool, records the answer on its agent span only); a
    recorded object (JSON) is not an answer."""
    if agent is None:
        return None
    value = agent.span.attributes.get(sc.ROOT_OUTPUT_KEY)
    if isinstance(value, str) and value and isinstance(sc.json_value(value), str):
        return value
    return None


# ---------------------------------------------------------------------------
# Many episodes
# ---------------------------------------------------------------------------


def _group_key(spans: Sequence[Any], group_by: str) -> Optional[str]:
    """The conversation or session id of a trace's earliest span that has one."""
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
    read_request: bool = False,
    transcripts: bool = False,
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
        if not spans and not any(getattr(log, "event_name", "") in sc.ANSWER_EVENTS
                                 for log in logs):
            continue  # log records with no span and no model answer: nothing to build
        key = _group_key(spans, group_by) if group_by != GROUP_BY_TRACE else None
        if key is None:
            episode = build_episode(spans, logs, task_id_keys=task_id_keys, source=source,
                                    report=report, read_request=read_request, transcript=transcripts)
            if getattr(group, "late", False):
                episode.meta["late"] = True  # a revision: records that came after closing
            yield episode
            continue
        bucket = merged.setdefault(key, ([], []))
        bucket[0].extend(spans)
        bucket[1].extend(logs)
    for spans, logs in merged.values():
        yield build_episode(spans, logs, task_id_keys=task_id_keys, source=source,
                            report=report, read_request=read_request, transcript=transcripts)
