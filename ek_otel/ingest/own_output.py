"""The one rule that tells ek-otel's own output from the traces it scores.

Scores written back are spans and log records *in the evaluated trace*: read again from a
dump, or received again through a Collector, they would look like late spans and re-score
the run forever. Everything ek-otel writes carries the resource ``service.name="ek-otel"``
and the instrumentation scope ``ek_otel.emit`` (:mod:`~ek_otel.emit.encode`), so the
decision is made **once per instrumentation scope**: the records of a scope are ours when
its scope name is :data:`~ek_otel.core.identity.SCOPE_NAME` or its resource's
``service.name`` is :data:`~ek_otel.core.identity.SERVICE_NAME`.

- :func:`is_own_output` is the rule; ``ek-otel score`` applies it to each decoded record
  (records carry their resource and scope).
- :func:`drop_own_output` applies it to a request body (protobuf or OTLP JSON, camelCase or
  snake_case keys), as ``ek-otel serve`` receives it: the scopes that are ours are removed
  before the body is split and stored. A protobuf body is read at the wire level down to the
  scope names only (spans are skipped, not decoded), and is re-encoded only when it held
  output of ours.

Example:
    >>> is_own_output({"service.name": "ek-otel"}), is_own_output({"service.name": "agent"})
    (True, False)
    >>> is_own_output({}, "ek_otel.emit")
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.identity import SCOPE_NAME, SERVICE_NAME
from .wire import length_delimited_fields as _fields

__all__ = ["is_own_output", "drop_own_output"]


def is_own_output(resource: Mapping[str, Any], scope_name: str = "") -> bool:
    """True for the records of a scope that ek-otel itself wrote (see the module doc).

    Example:
        >>> is_own_output({"service.name": "agent"}, "openinference.instrumentation")
        False
    """
    return scope_name == SCOPE_NAME or resource.get("service.name") == SERVICE_NAME


def drop_own_output(signal: str, body: bytes, fmt: str) -> bytes:
    """``body`` (an ``Export{Trace,Logs}ServiceRequest``; ``signal`` ``"traces"`` or
    ``"logs"``, ``fmt`` ``"protobuf"`` or ``"json"``) without ek-otel's own scopes.

    The same body object comes back when nothing in it is ours; a body that cannot be read
    comes back as it is (the decoder that follows reports it).

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> req = ExportTraceServiceRequest()
        >>> for service in ("agent", "ek-otel"):
        ...     rs = req.resource_spans.add()
        ...     kv = rs.resource.attributes.add()
        ...     kv.key, kv.value.string_value = "service.name", service
        ...     rs.scope_spans.add().scope.name = "x"
        >>> out = ExportTraceServiceRequest.FromString(
        ...     drop_own_output("traces", req.SerializeToString(), "protobuf"))
        >>> [r.resource.attributes[0].value.string_value for r in out.resource_spans]
        ['agent']
        >>> body = (b'{"resource_spans": [{"resource": {}, "scope_spans": [{"scope": '
        ...         b'{"name": "ek_otel.emit"}}, {"scope": {"name": "agent"}}]}]}')
        >>> json.loads(drop_own_output("traces", body, "json"))
        {'resource_spans': [{'resource': {}, 'scope_spans': [{'scope': {'name': 'agent'}}]}]}
        >>> drop_own_output("traces", b"not json", "json")
        b'not json'
    """
    if fmt == "protobuf":
        return _drop_pb(signal, body)
    return _drop_json(signal, body)


# -- protobuf ----------------------------------------------------------------------------------

def _string_at(data: bytes, start: int, end: int, number: int) -> str:
    for field, a, b in _fields(data, start, end):
        if field == number:
            return data[a:b].decode("utf-8", "replace")
    return ""


def _service_name(data: bytes, start: int, end: int) -> str:
    """``service.name`` of a ``Resource`` (attributes: field 1, ``KeyValue`` key 1 value 2,
    ``AnyValue.string_value`` 1)."""
    for field, a, b in _fields(data, start, end):
        if field == 1 and _string_at(data, a, b, 1) == "service.name":
            for number, va, vb in _fields(data, a, b):
                if number == 2:
                    return _string_at(data, va, vb, 1)
    return ""


def _scope_name_pb(data: bytes, start: int, end: int) -> str:
    """The scope name of a ``Scope{Spans,Logs}`` (its scope: field 1, written first by every
    encoder, so the spans after it are not walked)."""
    for field, a, b in _fields(data, start, end):
        if field == 1:
            return _string_at(data, a, b, 1)
    return ""


def _own_scopes_pb(body: bytes) -> set:
    """``(resource index, scope index)`` of the scopes that are ours, read at the wire level
    (``Resource{Spans,Logs}``: resource 1, scope batches 2; a scope batch's scope: 1, its
    name: 1)."""
    own: set = set()
    for r_index, (field, start, end) in enumerate(
            f for f in _fields(body, 0, len(body)) if f[0] == 1):
        service = ""
        scopes = []
        for number, a, b in _fields(body, start, end):
            if number == 1:
                service = _service_name(body, a, b)
            elif number == 2:
                scopes.append(_scope_name_pb(body, a, b))
        for s_index, scope_name in enumerate(scopes):
            if is_own_output({"service.name": service}, scope_name):
                own.add((r_index, s_index))
    return own


def _drop_pb(signal: str, body: bytes) -> bytes:
    try:
        own = _own_scopes_pb(body)
    except ValueError:  # not a well-formed message: the decoder reports it
        return body
    if not own:
        return body
    from ..errors import DecodeError
    from .otlp import parse_logs_request, parse_trace_request

    try:
        request = parse_trace_request(body) if signal == "traces" else parse_logs_request(body)
    except DecodeError:
        return body
    batches = request.resource_spans if signal == "traces" else request.resource_logs
    out = type(request)()
    target = out.resource_spans if signal == "traces" else out.resource_logs
    for r_index, batch in enumerate(batches):
        scopes = batch.scope_spans if signal == "traces" else batch.scope_logs
        kept = [scope for s_index, scope in enumerate(scopes) if (r_index, s_index) not in own]
        if len(scopes) and not kept:
            continue
        copy = target.add()
        copy.CopyFrom(batch)
        copy_scopes = copy.scope_spans if signal == "traces" else copy.scope_logs
        del copy_scopes[:]
        for scope in kept:
            copy_scopes.add().CopyFrom(scope)
    return out.SerializeToString()


# -- OTLP JSON ---------------------------------------------------------------------------------

def _get(obj: Any, camel: str, snake: str) -> Any:
    if not isinstance(obj, dict):
        return None
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _json_service_name(resource: Any) -> str:
    for kv in _get(resource, "attributes", "attributes") or ():
        if isinstance(kv, dict) and kv.get("key") == "service.name":
            value = _get(kv.get("value"), "stringValue", "string_value")
            return value if isinstance(value, str) else ""
    return ""


def _drop_json(signal: str, body: bytes) -> bytes:
    from ..errors import DecodeError
    from .otlp import parse_json

    try:
        data = parse_json(body)
    except DecodeError:
        return body
    camel, snake = (("resourceSpans", "resource_spans") if signal == "traces"
                    else ("resourceLogs", "resource_logs"))
    scope_camel, scope_snake = (("scopeSpans", "scope_spans") if signal == "traces"
                                else ("scopeLogs", "scope_logs"))
    if not isinstance(data, dict):
        return body
    batches_key = camel if camel in data else snake
    batches = data.get(batches_key)
    if not isinstance(batches, list):
        return body
    changed = False
    kept_batches = []
    for batch in batches:
        scopes_key = scope_camel if isinstance(batch, dict) and scope_camel in batch else scope_snake
        scopes = batch.get(scopes_key) if isinstance(batch, dict) else None
        if not isinstance(scopes, list):
            kept_batches.append(batch)
            continue
        service = _json_service_name(batch.get("resource"))
        kept = [scope for scope in scopes
                if not is_own_output({"service.name": service},
                                     _scope_name(scope))]
        if len(kept) != len(scopes):
            changed = True
            if not kept:
                continue
            batch = {**batch, scopes_key: kept}
        kept_batches.append(batch)
    if not changed:
        return body
    return json.dumps({**data, batches_key: kept_batches}).encode()


def _scope_name(scope: Any) -> str:
    name = _get(_get(scope, "scope", "scope"), "name", "name")
    return name if isinstance(name, str) else ""
