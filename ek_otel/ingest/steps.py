"""Steps: the tool calls models asked for, joined to the tool executions that ran them.

A requested call that was then executed is **one** step: joined by tool-call id, else by
name and order (a hosted call, run by the model provider, is never joined to a tool of the
application: it is a step of its own, ``hosted``, its result the one the answer carries; a
tool span with the hosted call's own id is that call as the SDK saw the provider run it, as
the Vercel AI SDK 7 records provider-executed tools, and adds its result and error to the
hosted step) (agent instrumentors leave the id off their tool spans; in multi-agent
traces the tool's own agent is tried first). Steps are ordered by time: a requested call
at the end of its model call, an unrequested execution at its start.

Example:
    >>> merge_steps([], [])
    []
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Optional

from ..core.episode import Step
from . import semconv as sc
from .requested_calls import parse_arguments
from .span_tree import Node, by_time, nearest_above, nearest_agent

__all__ = ["merge_steps", "tool_executions"]


def tool_executions(nodes) -> list:
    """The executed-tool spans that are executions of their own, in time order.

    A tool span inside another tool span of the same tool is the same execution seen from
    the other side of a call: an MCP server's span (FastMCP under OpenLLMetry's MCP
    instrumentation) under the client's, joined by the trace context the request carries.

    Example:
        >>> from ek_otel.ingest.span_tree import build_tree
        >>> from ek_otel.ingest.records import SpanRecord
        >>> T = "ab" * 16
        >>> client = SpanRecord(T, "0" * 15 + "1", name="get_time.tool", start_ns=1, end_ns=9,
        ...     attributes={"traceloop.span.kind": "tool", "traceloop.entity.name": "get_time"})
        >>> server = SpanRecord(T, "0" * 15 + "2", "0" * 15 + "1", "get_time.tool", start_ns=2,
        ...     end_ns=8, attributes={"traceloop.span.kind": "tool",
        ...                           "traceloop.entity.name": "get_time"})
        >>> nodes, _ = build_tree([client, server], [], None)
        >>> [n.span_id for n in tool_executions(nodes)] == [client.span_id]
        True
    """
    tools = [n for n in nodes.values() if n.role == sc.TOOL]
    if not tools:
        return []
    outer_tool = nearest_above(nodes, lambda a: a.role == sc.TOOL)
    executions = []
    for node in tools:
        outer = outer_tool[node]
        if outer is None or sc.tool_name_of(outer.span) != sc.tool_name_of(node.span):
            executions.append(node)
    return by_time(executions)


def _agent_of(node: Optional[Node], known: dict) -> tuple:
    """``(agent, agent_span_id)`` of a step: its nearest agent's name and span id (read once
    per agent: ``known`` maps agent nodes to them)."""
    agent = nearest_agent(node)
    if agent is None:
        return None, None
    found = known.get(agent)
    if found is None:
        found = known[agent] = (sc.agent_name_of(agent.span), agent.span.span_id)
    return found


def _executed_args(attributes: Mapping) -> tuple:
    """``(args, captured)`` as the executed-tool span recorded them."""
    captured, raw, parsed = sc.tool_args_parsed(attributes)
    return parse_arguments(raw, parsed) if captured else ({}, False)


_FIRST = itemgetter(0)


def merge_steps(requested: list, tools: list) -> list:
    """Join executed tools to requested calls (by id, else name and order); make steps."""
    # a hosted call (the provider ran it) is never joined to a tool span of the application
    unmatched = [i for i, r in enumerate(requested) if not r.call.hosted]
    hosted = [i for i, r in enumerate(requested) if r.call.hosted]
    by_id = {r.call.call_id: i for i, r in enumerate(requested)
             if r.call.call_id and not r.call.hosted}
    hosted_by_id = {requested[i].call.call_id: i for i in hosted if requested[i].call.call_id}
    observed: dict = {}  # hosted call -> the tool span that saw the provider run it
    timed: list = []
    agents: dict = {}  # agent node -> (name, span id)
    for node in tools:
        span = node.span
        attributes = span.attributes
        call_id = sc.tool_call_id_of(attributes)
        match = by_id.get(call_id) if call_id else None
        if match is not None and match not in unmatched:
            match = None
        if match is None and call_id in hosted_by_id and hosted_by_id[call_id] not in observed:
            observed[hosted_by_id[call_id]] = node
            continue
        name = None  # the executed tool's name: needed unless joined by id
        if match is None:
            name = sc.tool_name_of(span)
            same_name = [i for i in unmatched if requested[i].call.name == name]
            agent = nearest_agent(node)
            same_agent = [i for i in same_name if nearest_agent(requested[i].node) is agent]
            pool = same_agent or same_name  # in multi-agent traces, the tool's own agent first
            before = [i for i in pool if requested[i].time_ns <= node.span.start_ns]
            candidates = before or pool
            match = candidates[0] if candidates else None
        observation = sc.tool_result_of(attributes)
        agent, agent_span_id = _agent_of(node, agents)
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
    for i in sorted(unmatched + hosted):
        req = requested[i]
        call = req.call
        span_id = req.node.span_id if req.node is not None else None
        result, error = call.result, None
        seen = observed.get(i)
        if seen is not None:  # the provider's run of a hosted call, as the SDK recorded it
            if result is None:
                result = sc.tool_result_of(seen.span.attributes)
            error = seen.error
        step = Step(call.name, call.args, result, error, call.call_id, span_id,
                    *_agent_of(req.node, agents), call.args_captured, call.hosted)
        timed.append(((req.time_ns, call.index), step))
    timed.sort(key=_FIRST)
    return [step for _, step in timed]
