"""What an OTLP body is: its format (protobuf or JSON) and its signal (traces or logs).

The one table of content types (:data:`CONTENT_TYPES`) serves the receivers (the
``Content-Type`` header) and the decoder (a format given by name or content type). When
nothing says, the content does: :func:`content_kind` reads the first bytes of a dump or a
body, and :func:`is_logs_protobuf` reads from the wire whether a protobuf request holds
spans or log records.

Example:
    >>> format_of_content_type("application/json; charset=utf-8"), normalize_format("pb")
    ('json', 'protobuf')
    >>> MEDIA_TYPES
    {'json': 'application/json', 'protobuf': 'application/x-protobuf'}
    >>> content_kind(b'{"resourceLogs": []}'), content_kind(b"\\x0a\\x00")
    ('json', 'protobuf')
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from ..errors import DecodeError
from .wire import length_delimited_fields

__all__ = [
    "PROTOBUF",
    "JSON",
    "AUTO",
    "TRACES",
    "LOGS",
    "CONTENT_TYPES",
    "MEDIA_TYPES",
    "UnsupportedMediaType",
    "normalize_format",
    "format_of_content_type",
    "FRAMES",
    "EMPTY",
    "SNIFF_BYTES",
    "content_kind",
    "is_logs_protobuf",
]

PROTOBUF = "protobuf"
JSON = "json"
#: A format or signal read from the content.
AUTO = "auto"

#: The two OTLP signals ek-otel reads (the names of their ``/v1/...`` endpoints).
TRACES = "traces"
LOGS = "logs"

#: Media type -> format: what OTLP/HTTP clients send (the first of each format is what
#: ek-otel sends).
CONTENT_TYPES = {
    "application/x-protobuf": PROTOBUF,
    "application/protobuf": PROTOBUF,
    "application/json": JSON,
}

#: Format -> the media type ek-otel sends it with (responses, exports): the first entry of
#: :data:`CONTENT_TYPES` for that format.
MEDIA_TYPES = {fmt: media for media, fmt in reversed(list(CONTENT_TYPES.items()))}

#: The short names a user may give a format by (``--format`` style).
_FORMAT_NAMES = {"protobuf": PROTOBUF, "proto": PROTOBUF, "pb": PROTOBUF, "json": JSON}


class UnsupportedMediaType(DecodeError):
    """A content type or content encoding that ek-otel does not read (HTTP 415)."""


def _media_type(content_type: Optional[str]) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def normalize_format(fmt: str) -> str:
    """``"protobuf"`` or ``"json"`` from a format name or content type; else DecodeError.

    Example:
        >>> normalize_format("application/x-protobuf; charset=utf-8"), normalize_format("JSON")
        ('protobuf', 'json')
        >>> normalize_format("xml")
        Traceback (most recent call last):
        ...
        ek_otel.errors.DecodeError: unknown OTLP format 'xml' (expected protobuf or json)
    """
    key = _media_type(fmt)
    found = _FORMAT_NAMES.get(key) or CONTENT_TYPES.get(key)
    if found is None:
        raise DecodeError(f"unknown OTLP format {fmt!r} (expected protobuf or json)")
    return found


def format_of_content_type(content_type: Optional[str]) -> str:
    """``"protobuf"`` or ``"json"`` from a ``Content-Type`` header; else
    :class:`UnsupportedMediaType`.

    Example:
        >>> format_of_content_type("application/x-protobuf")
        'protobuf'
        >>> format_of_content_type("text/plain")
        Traceback (most recent call last):
        ...
        ek_otel.ingest.formats.UnsupportedMediaType: unsupported content type 'text/plain'; send application/x-protobuf or application/json
    """
    media = _media_type(content_type)
    found = CONTENT_TYPES.get(media)
    if found is None:
        raise UnsupportedMediaType(
            f"unsupported content type {media!r}; send application/x-protobuf or application/json"
        )
    return found


# ---------------------------------------------------------------------------
# From the content
# ---------------------------------------------------------------------------

#: Length-prefixed frames (the Collector file exporter's ``format: proto``); no content.
FRAMES, EMPTY = "frames", ""
#: How many leading bytes :func:`content_kind` needs.
SNIFF_BYTES = 4096
_WHITESPACE = b" \t\r\n"


def content_kind(head: bytes) -> str:
    """What the first bytes of a (decompressed) dump or body are: :data:`JSON` text, one
    :data:`PROTOBUF` request, :data:`FRAMES`, or :data:`EMPTY`.

    A protobuf request starts with 0x0a (a newline byte); JSON text never holds raw
    control characters, so a leading newline followed by JSON-looking text is JSON.

    Example:
        >>> content_kind(b'  {"resourceSpans": []}'), content_kind(b"\\x0a\\x12\\x12\\x10")
        ('json', 'protobuf')
        >>> content_kind(b"\\x00\\x00\\x01\\x00\\x0a"), content_kind(b"\\n\\n")
        ('frames', '')
    """
    stripped = head.lstrip(_WHITESPACE)
    if not stripped:
        return EMPTY
    first = head[:1]
    if first in (b"{", b"[", b" ", b"\t", b"\r"):
        return JSON
    if first == b"\n":
        text_like = all(byte >= 0x20 or byte in _WHITESPACE for byte in head[:256])
        return JSON if stripped[:1] in (b"{", b"[") and text_like else PROTOBUF
    return FRAMES


#: JSON documents of other tools' formats, found from the content and read as OTLP JSON.
JAEGER = "jaeger"
TEMPO = "tempo"


def foreign_json_kind(document: Any) -> str:
    """:data:`JAEGER` or :data:`TEMPO` for a parsed JSON document of those tools' formats
    (:mod:`ek_otel.ingest.jaeger`, :mod:`ek_otel.ingest.tempo`), else ``""`` (OTLP JSON, or
    not a trace at all).

    Example:
        >>> foreign_json_kind({"batches": []}), foreign_json_kind({"resourceSpans": []})
        ('tempo', '')
        >>> foreign_json_kind({"data": [{"traceID": "1", "spans": [], "processes": {}}]})
        'jaeger'
    """
    from .jaeger import is_jaeger
    from .tempo import is_tempo

    if isinstance(document, dict) and ("resourceSpans" in document or "resourceLogs" in document):
        return ""
    if is_tempo(document):
        return TEMPO
    if is_jaeger(document):
        return JAEGER
    return ""


def as_otlp_json(document: Any) -> Any:
    """A parsed JSON document as an OTLP-JSON request: Jaeger and Tempo documents converted,
    anything else as it is.

    Example:
        >>> as_otlp_json({"batches": [1]})
        {'resourceSpans': [1]}
    """
    kind = foreign_json_kind(document)
    if kind == TEMPO:
        from .tempo import tempo_to_otlp

        return tempo_to_otlp(document)
    if kind == JAEGER:
        from .jaeger import jaeger_to_otlp

        return jaeger_to_otlp(document)
    return document


def is_logs_protobuf(body: bytes) -> bool:
    """Whether a protobuf request body holds logs rather than spans (read from the wire).

    A span starts with its trace id (field 1, length-delimited); a log record never does
    (its field 1 is a fixed64 time). An empty request counts as traces.

    Example:
        >>> from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ...     ExportLogsServiceRequest)
        >>> req = ExportLogsServiceRequest()
        >>> _ = req.resource_logs.add().scope_logs.add().log_records.add(time_unix_nano=5)
        >>> is_logs_protobuf(req.SerializeToString()), is_logs_protobuf(b"")
        (True, False)
    """
    try:
        for batch in _fields(body, 0, len(body), 1):
            for scoped in _fields(body, batch[0], batch[1], 2):
                for start, end in _fields(body, scoped[0], scoped[1], 2):
                    if start < end:
                        return body[start] != 0x0A
    except (IndexError, ValueError):
        return False
    return False


def _fields(data: bytes, start: int, end: int, number: int) -> Iterator[tuple]:
    """``(start, end)`` of each length-delimited field ``number`` of a message that may be
    cut short."""
    return ((first, last) for found, first, last in length_delimited_fields(data, start, end, lenient=True)
            if found == number)
