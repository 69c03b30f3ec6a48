"""Decoded telemetry records: what the readers produce and the episode builder consumes.

These are plain frozen dataclasses with Python values (no protobuf objects), so that the
semantic-convention mapping can be tested with hand-written records and the readers can be
tested without it.

Ids are lowercase hex strings (32 chars for a trace, 16 for a span); ``""`` means absent.
Attribute values are already converted from ``AnyValue``: str, bool, int, float, bytes,
list, or dict.

Example:
    >>> s = SpanRecord(trace_id="0" * 31 + "1", span_id="0" * 15 + "2", name="chat gpt-4o",
    ...                attributes={"gen_ai.operation.name": "chat"})
    >>> s.is_root, s.attributes["gen_ai.operation.name"], s.duration_s
    (True, 'chat', 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.fastinit import fast_init

__all__ = [
    "STATUS_UNSET",
    "STATUS_OK",
    "STATUS_ERROR",
    "EVENT_NAME_ATTRIBUTE",
    "SpanEvent",
    "SpanLink",
    "SpanRecord",
    "LogRecord",
    "Origin",
]

STATUS_UNSET = 0
STATUS_OK = 1
STATUS_ERROR = 2

#: The attribute a log record names its event with when its ``event_name`` field is empty
#: (the older way; both decoders read it into :attr:`LogRecord.event_name`).
EVENT_NAME_ATTRIBUTE = "event.name"


@fast_init
@dataclass(frozen=True)
class Origin:
    """Where a record was read from: a file and line (or frame), or a request.

    Example:
        >>> str(Origin("dump.jsonl", 12))
        'dump.jsonl:12'
    """

    source: str = ""
    line: Optional[int] = None

    def __str__(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source


@fast_init
@dataclass(frozen=True)
class SpanEvent:
    """An event attached to a span (``exception``, legacy ``gen_ai.content.*``, ...)."""

    name: str
    time_ns: int = 0
    attributes: Mapping[str, Any] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True)
class SpanLink:
    """A link from a span to another span."""

    trace_id: str
    span_id: str
    attributes: Mapping[str, Any] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True)
class SpanRecord:
    """One decoded span, with its resource and instrumentation scope flattened in.

    ``kind`` is the OTLP SpanKind number (0 unspecified, 1 internal, 2 server, 3 client,
    4 producer, 5 consumer). ``status_code`` is 0 unset, 1 ok, 2 error.
    """

    trace_id: str
    span_id: str
    parent_span_id: str = ""
    name: str = ""
    kind: int = 0
    start_ns: int = 0
    end_ns: int = 0
    status_code: int = STATUS_UNSET
    status_message: str = ""
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: tuple = ()
    links: tuple = ()
    resource: Mapping[str, Any] = field(default_factory=dict)
    scope_name: str = ""
    scope_version: str = ""
    origin: Optional[Origin] = None

    @property
    def is_root(self) -> bool:
        """True when the span names no parent (a missing parent is handled by assembly)."""
        return not self.parent_span_id

    @property
    def duration_s(self) -> float:
        """The span's duration in seconds (0.0 when a timestamp is missing)."""
        if self.start_ns and self.end_ns and self.end_ns >= self.start_ns:
            return (self.end_ns - self.start_ns) / 1e9
        return 0.0


@fast_init
@dataclass(frozen=True)
class LogRecord:
    """One decoded log record; GenAI events (``gen_ai.choice``, ...) arrive as these.

    ``event_name`` is the record's ``event_name`` field, or else its ``event.name`` attribute.
    """

    trace_id: str = ""
    span_id: str = ""
    time_ns: int = 0
    event_name: str = ""
    body: Any = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    resource: Mapping[str, Any] = field(default_factory=dict)
    scope_name: str = ""
    scope_version: str = ""
    severity_number: int = 0
    origin: Optional[Origin] = None
