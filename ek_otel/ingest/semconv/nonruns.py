"""Traces that are not agent runs: the one rule, and what such a trace is named.

A trace with **no model call, no tool call, no agent span and no task id** is not an agent
run: it is never scored against a task (``score`` lists it as unmatched, ``episodes`` and
``doctor`` count it apart). Most such traces in the field are an MCP client's protocol
traffic outside any run: ``initialize``, ``ping``, ``tools/list`` (each a trace of its own
when no span is current), which are named after their MCP methods.

The MCP method of a span is read from ``mcp.method.name`` (the OTel MCP conventions, the
``mcp`` SDK's own telemetry), from OpenLLMetry's ``{method}.mcp`` span names and its
``traceloop.entity.input`` request (``{"method": ...}``), and from ``MCP send {method}`` /
``MCP request: {method}`` span names (the ``mcp`` SDK's client side, Logfire).

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> ping = SpanRecord("a" * 32, "b" * 16, name="MCP send ping",
    ...                   attributes={"mcp.method.name": "ping"})
    >>> not_a_run_kind([ping], model_calls=0, tool_calls=0, agents=0, task_id="")
    'MCP ping'
    >>> not_a_run_kind([ping], model_calls=1, tool_calls=0, agents=0, task_id="") is None
    True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from .values import attributes_of, json_value, text_or_empty

__all__ = ["NOT_AN_AGENT_RUN", "NO_RUN_ACTIVITY", "MCP_MESSAGE", "MCP_METHOD",
           "mcp_method_of", "not_a_run_kind"]

#: What such a trace is called everywhere (the unmatched reason starts with it).
NOT_AN_AGENT_RUN = "not an agent run"
#: The kind of a non-run that is not MCP protocol traffic.
NO_RUN_ACTIVITY = "no model call, tool call or agent"
#: The OTel MCP conventions' method attribute (also the ``mcp`` SDK's own telemetry).
MCP_METHOD = "mcp.method.name"

#: The kind of a non-run made of an MCP instrumentation's spans that name no method
#: (OpenLLMetry's server-side ``ResponseStreamWriter`` of a notification).
MCP_MESSAGE = "MCP protocol message"
_MCP_SCOPES = ("opentelemetry.instrumentation.mcp", "mcp-python-sdk", "mcp.")
_MCP_ATTRIBUTE_PREFIX = "mcp."
_TRACELOOP_INPUT = "traceloop.entity.input"
_MCP_NAME_PREFIXES = ("MCP send ", "MCP request: ", "MCP handle ")
_TRACELOOP_MCP_SUFFIX = ".mcp"


def mcp_method_of(span: Any) -> Optional[str]:
    """The MCP method a span is about, or None when it is no MCP request.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> mcp_method_of(SpanRecord("a" * 32, "b" * 16, name="initialize.mcp"))
        'initialize'
        >>> mcp_method_of(SpanRecord("a" * 32, "b" * 16, name="MCP send tools/list"))
        'tools/list'
        >>> mcp_method_of(SpanRecord("a" * 32, "b" * 16, name="chat gpt-4o")) is None
        True
    """
    attributes = attributes_of(span)
    if attributes is None:
        return None
    method = text_or_empty(attributes.get(MCP_METHOD))
    if method:
        return method
    name = getattr(span, "name", "") or ""
    for prefix in _MCP_NAME_PREFIXES:
        if name.startswith(prefix):
            rest = name[len(prefix):].strip()
            return rest.split(" ", 1)[0] or None
    if name.endswith(_TRACELOOP_MCP_SUFFIX) and len(name) > len(_TRACELOOP_MCP_SUFFIX):
        request = json_value(attributes.get(_TRACELOOP_INPUT))
        if isinstance(request, dict) and isinstance(request.get("method"), str):
            return request["method"] or None
        return name[: -len(_TRACELOOP_MCP_SUFFIX)]
    return None


def not_a_run_kind(spans: Iterable[Any], *, model_calls: int, tool_calls: int, agents: int,
                   task_id: str) -> Optional[str]:
    """None for an agent run; else what the trace is: ``"MCP initialize, tools/list"`` for
    MCP protocol traffic (its methods in order of first appearance), :data:`MCP_MESSAGE`
    for an MCP instrumentation's spans that name no method, else :data:`NO_RUN_ACTIVITY`.

    A trace is a run when it has a model call (or a recorded model answer), a tool call
    (executed or requested), an agent span, or a task id.

    Example:
        >>> not_a_run_kind([], model_calls=0, tool_calls=0, agents=0, task_id="")
        'no model call, tool call or agent'
        >>> not_a_run_kind([], model_calls=0, tool_calls=0, agents=0, task_id="t1") is None
        True
    """
    if model_calls or tool_calls or agents or task_id:
        return None
    methods: dict = {}
    spans = sorted(spans, key=lambda s: getattr(s, "start_ns", 0) or 0)
    for span in spans:
        method = mcp_method_of(span)
        if method:
            methods.setdefault(method, None)
    if methods:  # (a lone client-side tools/call, its server untraced, is named so too)
        return "MCP " + ", ".join(methods)
    if spans and all(_is_mcp_span(span) for span in spans):
        return MCP_MESSAGE  # an MCP instrumentation's spans that name no method
    return NO_RUN_ACTIVITY


def _is_mcp_span(span: Any) -> bool:
    scope = getattr(span, "scope_name", "") or ""
    if scope.startswith(_MCP_SCOPES):
        return True
    attributes = attributes_of(span) or {}
    return any(type(k) is str and k.startswith(_MCP_ATTRIBUTE_PREFIX) for k in attributes)
