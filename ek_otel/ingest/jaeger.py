"""Jaeger JSON (what Jaeger's UI downloads and its HTTP API answers) read as OTLP JSON.

Shapes, found from the content: ``{"data": [trace, ...]}`` (the API, a UI download), one
trace ``{"traceID", "spans", "processes"}``, or a list of spans that carry their ``process``
(Jaeger's anonymizer). Each span becomes an OTLP span:

- ``traceID`` / ``spanID`` (hex, possibly shorter than 16 / 8 bytes: 64-bit trace ids) are
  left-padded with zeros;
- the parent is the first ``CHILD_OF`` reference within the same trace; every other
  reference (``FOLLOWS_FROM``, another trace's span) is a link;
- ``startTime`` and ``duration`` are microseconds;
- ``tags`` are attributes (``string``, ``bool``, ``int64``, ``float64``, ``binary``), except
  what Jaeger's OTLP translator wrote for OTLP fields: ``span.kind``, ``otel.status_code`` /
  ``otel.status_description`` (and ``error=true``), ``otel.scope.name`` /
  ``otel.scope.version`` (older: ``otel.library.*``), ``w3c.tracestate``;
- ``logs`` are span events, named by their ``event`` field;
- the span's process (``processes[processID]``, or its own ``process``) is its resource:
  ``service.name`` and the process tags.

Example:
    >>> doc = {"data": [{"traceID": "1", "spans": [{"traceID": "1", "spanID": "2",
    ...     "operationName": "chat", "startTime": 1, "duration": 2, "processID": "p1",
    ...     "tags": [{"key": "gen_ai.operation.name", "type": "string", "value": "chat"}]}],
    ...     "processes": {"p1": {"serviceName": "svc", "tags": []}}}]}
    >>> is_jaeger(doc)
    True
    >>> span = jaeger_to_otlp(doc)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    >>> span["traceId"], span["startTimeUnixNano"], span["endTimeUnixNano"]
    ('00000000000000000000000000000001', '1000', '3000')
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

__all__ = ["is_jaeger", "jaeger_to_otlp"]

_KINDS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
_STATUS = {"OK": 1, "ERROR": 2}
_SCOPE_NAME = ("otel.scope.name", "otel.library.name")
_SCOPE_VERSION = ("otel.scope.version", "otel.library.version")
_TRANSLATED = frozenset({"span.kind", "otel.status_code", "otel.status_description",
                         "w3c.tracestate", *_SCOPE_NAME, *_SCOPE_VERSION})


def _is_trace(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("spans"), list) and (
        "traceID" in value or "processes" in value)


def _is_span(value: Any) -> bool:
    return isinstance(value, Mapping) and "spanID" in value and "operationName" in value


def is_jaeger(document: Any) -> bool:
    """Whether a parsed JSON document is Jaeger JSON (see the module doc).

    Example:
        >>> is_jaeger({"resourceSpans": []}), is_jaeger([{"traceID": "1", "spanID": "2",
        ...     "operationName": "x"}])
        (False, True)
    """
    if isinstance(document, Mapping):
        data = document.get("data")
        if isinstance(data, list) and "resourceSpans" not in document:
            return bool(data) and all(_is_trace(t) for t in data) or (
                not data and "errors" in document)
        return _is_trace(document)
    if isinstance(document, list):
        return bool(document) and all(_is_span(s) for s in document)
    return False


def _hex(value: Any, digits: int) -> str:
    text = str(value or "").strip().lower()
    return text.rjust(digits, "0") if text else ""


def _value(tag: Mapping) -> dict:
    """A Jaeger tag's value as an OTLP-JSON AnyValue."""
    kind = str(tag.get("type") or "string").lower()
    value = tag.get("value")
    if kind == "bool":
        return {"boolValue": value if isinstance(value, bool) else str(value).lower() == "true"}
    if kind == "int64":
        try:
            return {"intValue": str(int(value))}
        except (TypeError, ValueError):
            return {"stringValue": str(value)}
    if kind == "float64":
        try:
            return {"doubleValue": float(value)}
        except (TypeError, ValueError):
            return {"stringValue": str(value)}
    if kind == "binary":
        text = value if isinstance(value, str) else ""
        try:
            base64.b64decode(text, validate=True)
            return {"bytesValue": text}
        except ValueError:
            return {"stringValue": text}
    return {"stringValue": value if isinstance(value, str) else str(value)}


def _attributes(tags: Any) -> list:
    return [{"key": str(tag.get("key")), "value": _value(tag)}
            for tag in tags or () if isinstance(tag, Mapping) and tag.get("key") is not None]


def _tag(tags: Any, names: tuple) -> Any:
    for tag in tags or ():
        if isinstance(tag, Mapping) and tag.get("key") in names:
            return tag.get("value")
    return None


def _micros(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _span(span: Mapping) -> dict:
    trace_id = _hex(span.get("traceID"), 32)
    tags = span.get("tags") or []
    parent = ""
    links = []
    for ref in span.get("references") or ():
        if not isinstance(ref, Mapping):
            continue
        ref_trace, ref_span = _hex(ref.get("traceID"), 32), _hex(ref.get("spanID"), 16)
        if not parent and ref.get("refType", "CHILD_OF") == "CHILD_OF" and ref_trace == trace_id:
            parent = ref_span
        else:
            links.append({"traceId": ref_trace, "spanId": ref_span, "attributes": [
                {"key": "jaeger.ref_type", "value": {"stringValue": str(ref.get("refType"))}}]})
    start = _micros(span.get("startTime")) * 1000
    out = {
        "traceId": trace_id,
        "spanId": _hex(span.get("spanID"), 16),
        "name": str(span.get("operationName") or ""),
        "kind": _KINDS.get(str(_tag(tags, ("span.kind",)) or "").lower(), 0),
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + _micros(span.get("duration")) * 1000),
        "attributes": _attributes(t for t in tags if isinstance(t, Mapping)
                                  and t.get("key") not in _TRANSLATED),
        "events": [_event(log) for log in span.get("logs") or () if isinstance(log, Mapping)],
        "links": links,
    }
    if parent:
        out["parentSpanId"] = parent
    status = str(_tag(tags, ("otel.status_code",)) or "").upper()
    error = _tag(tags, ("error",))
    code = _STATUS.get(status) or (2 if error is True or str(error).lower() == "true" else 0)
    if code:
        out["status"] = {"code": code, "message": str(_tag(tags, ("otel.status_description",))
                                                     or "")}
    state = _tag(tags, ("w3c.tracestate",))
    if state:
        out["traceState"] = str(state)
    return out


def _event(log: Mapping) -> dict:
    fields = [f for f in log.get("fields") or () if isinstance(f, Mapping)]
    name = next((str(f.get("value")) for f in fields if f.get("key") == "event"), "log")
    return {"timeUnixNano": str(_micros(log.get("timestamp")) * 1000), "name": name,
            "attributes": _attributes(f for f in fields if f.get("key") != "event")}


def _process_resource(process: Any) -> dict:
    process = process if isinstance(process, Mapping) else {}
    attributes = _attributes(process.get("tags"))
    service = process.get("serviceName")
    if service is not None and not any(a["key"] == "service.name" for a in attributes):
        attributes.insert(0, {"key": "service.name", "value": {"stringValue": str(service)}})
    return {"attributes": attributes}


def _traces(document: Any) -> list:
    if isinstance(document, list):  # spans with their own process
        return [{"spans": document, "processes": {}}]
    if isinstance(document.get("data"), list):
        return document["data"]
    return [document]


def jaeger_to_otlp(document: Any) -> dict:
    """The OTLP-JSON ``{"resourceSpans": [...]}`` of a Jaeger JSON document: one resource
    per process, one scope per ``otel.scope.name`` (see the module doc).

    Example:
        >>> doc = [{"traceID": "a1", "spanID": "b2", "operationName": "x", "startTime": 5,
        ...         "duration": 1, "process": {"serviceName": "s", "tags": []},
        ...         "tags": [{"key": "span.kind", "type": "string", "value": "client"}]}]
        >>> rs = jaeger_to_otlp(doc)["resourceSpans"][0]
        >>> rs["resource"]["attributes"][0]["value"], rs["scopeSpans"][0]["spans"][0]["kind"]
        ({'stringValue': 's'}, 3)
    """
    groups: dict = {}  # (trace index, process key) -> (resource, {scope: spans})
    for index, trace in enumerate(_traces(document)):
        if not isinstance(trace, Mapping):
            continue
        processes = trace.get("processes") if isinstance(trace.get("processes"), Mapping) else {}
        for span in trace.get("spans") or ():
            if not isinstance(span, Mapping):
                continue
            if isinstance(span.get("process"), Mapping):
                key, process = ("inline", repr(sorted(span["process"].items(), key=str))), span["process"]
            else:
                key = ("id", str(span.get("processID")))
                process = processes.get(span.get("processID"))
            resource, scopes = groups.setdefault((index, key), (_process_resource(process), {}))
            tags = span.get("tags") or []
            scope = (str(_tag(tags, _SCOPE_NAME) or ""), str(_tag(tags, _SCOPE_VERSION) or ""))
            scopes.setdefault(scope, []).append(_span(span))
    return {"resourceSpans": [
        {"resource": resource, "scopeSpans": [
            {"scope": {"name": name, "version": version}, "spans": spans}
            for (name, version), spans in scopes.items()]}
        for resource, scopes in groups.values()]}
