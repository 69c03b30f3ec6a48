"""Trace and log dump files -> a stream of :class:`SpanRecord` and :class:`LogRecord`.

Every common form of OTLP dump is read, and the form is found from the content (magic
bytes, first non-space character), not from the file name:

- an OTLP protobuf request body (``.pb``/``.bin``): one ``ExportTraceServiceRequest`` or
  ``ExportLogsServiceRequest`` (which one is read from the wire);
- OTLP JSON: one request object per file (pretty-printed or not), or JSON Lines as the
  Collector's file exporter and the SDK's json-file exporter write them (one request per
  line, traces or logs per line); a top-level JSON array of requests is read too;
- length-prefixed frames (4-byte big-endian length; the file exporter's ``format: proto``,
  and its legacy compressed mode where each frame is a zstd-compressed JSON or protobuf
  request);
- gzip and zstd around any of the above (streamed);
- directories (recursive, sorted), globs, and ``-`` for stdin.

Memory stays bounded: JSON Lines are read line by line and frames frame by frame; only a
single-object file is read whole. Bad input never stops the run: an undecodable line or
frame is added to the :class:`~ek_otel.ingest.bad_input.BadInputReport` (with the file and
line or frame number) and reading goes on. Lines holding other signals (metrics,
profiles) are skipped silently.

Example:
    >>> import os, tempfile
    >>> line = ('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":'
    ...         '"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"chat"}]}]}]}')
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "dump.jsonl"), "w") as f:
    ...     _ = f.write(line + "\\n" + "not json\\n")
    >>> report = BadInputReport()
    >>> [r.name for r in read_dump([folder], report=report)]
    ['chat']
    >>> report.counts, report.cases[0].origin.line
    ({'invalid JSON': 1}, 2)
"""

from __future__ import annotations

import glob
import gzip
import io
import itertools
import os
import sys
from typing import BinaryIO, Iterable, Iterator, Optional, Sequence, Union

import zstandard

from ..errors import DecodeError, InputError
from .anyvalue import BadValue
from .bad_input import (
    BAD_REQUEST,
    INVALID_JSON,
    UNDECODABLE_PROTOBUF,
    UNREADABLE_FILE,
    BadInputReport,
)
from .otlp import BodyDecodeError, parse_json, parse_logs_request, parse_trace_request
from .otlp_json import logs_from_json, spans_from_json
from .otlp_pb import logs_from_request, spans_from_request
from .records import LogRecord, Origin, SpanRecord
from .wire import read_varint

__all__ = [
    "STDIN",
    "MAX_FRAME_BYTES",
    "MAX_PRETTY_JSON_BYTES",
    "expand_paths",
    "read_dump",
    "read_stream",
    "records_from_body",
    "content_kind",
    "is_logs_protobuf",
]

#: The path that means standard input.
STDIN = "-"

#: The largest frame accepted (a bigger length prefix means the file is not framed data).
MAX_FRAME_BYTES = 1 << 30

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GLOB_CHARS = frozenset("*?[")
_READ_ERRORS = (OSError, EOFError, zstandard.ZstdError, ValueError)

Record = Union[SpanRecord, LogRecord]


# ---------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------


def _walk(directory: str) -> Iterator[str]:
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield os.path.join(root, name)


def expand_paths(paths: Sequence[str]) -> list[str]:
    """Expand directories (recursively, sorted, hidden files skipped) and globs.

    Raises :class:`~ek_otel.errors.InputError` for a path that does not exist, a
    directory with no file in it (hidden ones are not read), or a glob that matches no file.

    Example:
        >>> expand_paths(["-"])
        ['-']
        >>> expand_paths(["/no/such/dump.jsonl"])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dump.jsonl: no such file or directory
        >>> import tempfile
        >>> expand_paths([tempfile.mkdtemp(prefix="empty-")])
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /.../empty-...: the directory holds no file to read
    """
    out: list[str] = []
    for path in paths:
        if path == STDIN:
            out.append(path)
        elif os.path.isdir(path):
            files = list(_walk(path))
            if not files:
                raise InputError("the directory holds no file to read", path=path)
            out.extend(files)
        elif os.path.exists(path):
            out.append(path)
        elif _GLOB_CHARS & set(path):
            files = []
            for match in sorted(glob.glob(path, recursive=True)):
                files.extend(_walk(match) if os.path.isdir(match) else [match])
            if not files:
                raise InputError("the pattern matches no file", path=path)
            out.extend(files)
        else:
            raise InputError("no such file or directory", path=path)
    return out


# ---------------------------------------------------------------------------
# Content detection
# ---------------------------------------------------------------------------


def _length_delimited(data: bytes, start: int, end: int, field: int) -> Iterator[tuple]:
    """Yield (start, end) of each length-delimited ``field`` in data[start:end]."""
    pos = start
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        wire_type = tag & 7
        if wire_type == 0:
            _, pos = read_varint(data, pos, end)
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        elif wire_type == 2:
            length, pos = read_varint(data, pos, end)
            if tag >> 3 == field:
                yield pos, pos + length
            pos += length
        else:
            return


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
        for batch in _length_delimited(body, 0, len(body), 1):
            for scoped in _length_delimited(body, batch[0], batch[1], 2):
                for start, end in _length_delimited(body, scoped[0], scoped[1], 2):
                    if start < end:
                        return body[start] != 0x0A
    except (IndexError, ValueError):
        return False
    return False


def records_from_body(
    body: bytes, origin: Optional[Origin], report: BadInputReport
) -> Iterator[Record]:
    """Decode one request (JSON or protobuf, traces or logs; found from the content).

    Undecodable bodies are reported, not raised.

    Example:
        >>> r = BadInputReport()
        >>> list(records_from_body(b"\\x0a\\x05\\x12", Origin("d.bin", 1), r)), r.counts
        ([], {'undecodable protobuf': 1})
        >>> str(r.cases[0])  # the reason is said once
        "d.bin:1: undecodable protobuf: ExportTraceServiceRequest: Error parsing message ..."
    """
    if content_kind(body[:_SNIFF_BYTES]) == JSON_TEXT:
        yield from _records_from_json_text(body, origin, report)
        return
    cut: list = []  # values too deep for the parser, strings of invalid UTF-8: cut or repaired
    try:
        if is_logs_protobuf(body):
            records: Iterable[Record] = logs_from_request(parse_logs_request(body, cut), origin, report)
        else:
            records = spans_from_request(parse_trace_request(body, cut), origin, report)
    except DecodeError as exc:
        report.add(UNDECODABLE_PROTOBUF, _detail(exc), origin)
        return
    for reason, detail in cut:
        report.add(reason, detail, origin)
    yield from records


def _detail(exc: DecodeError) -> str:
    """The error without its reason in front (the report names the reason itself)."""
    return exc.detail if isinstance(exc, BodyDecodeError) else str(exc)


def _records_from_json_text(text: bytes, origin: Optional[Origin], report: BadInputReport) -> Iterator[Record]:
    repaired: list = []  # strings of invalid UTF-8 (repaired, the rest is kept)
    try:
        parsed = parse_json(text, repaired)
    except DecodeError as exc:
        report.add(INVALID_JSON, _detail(exc), origin)
        return
    for reason, detail in repaired:
        report.add(reason, detail, origin)
    yield from _records_from_json(parsed, origin, report)


def _records_from_json(parsed: object, origin: Optional[Origin], report: BadInputReport) -> Iterator[Record]:
    requests = parsed if isinstance(parsed, list) else [parsed]
    for request in requests:
        if not isinstance(request, dict):
            report.add(BAD_REQUEST, f"a JSON {type(request).__name__}, not a request object", origin)
            continue
        has_spans = "resourceSpans" in request or "resource_spans" in request
        has_logs = "resourceLogs" in request or "resource_logs" in request
        if not has_spans and not has_logs:
            if not any(key.startswith(("resourceMetrics", "resource_metrics", "resourceProfiles")) for key in request):
                report.add(BAD_REQUEST, "no resourceSpans or resourceLogs", origin)
            continue
        try:
            if has_spans:
                yield from spans_from_json(request, origin, report)
            if has_logs:
                yield from logs_from_json(request, origin, report)
        except (BadValue, TypeError, AttributeError) as exc:
            report.add(BAD_REQUEST, str(exc), origin)


# ---------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------


def _decompressed(stream: BinaryIO) -> io.BufferedReader:
    """Peel gzip/zstd layers off a buffered stream (found by magic bytes)."""
    for _ in range(4):
        head = stream.peek(4)[:4]
        if head.startswith(_GZIP_MAGIC):
            stream = io.BufferedReader(gzip.GzipFile(fileobj=stream, mode="rb"))  # type: ignore[arg-type]
        elif head.startswith(_ZSTD_MAGIC):
            reader = zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True)
            stream = io.BufferedReader(reader)  # type: ignore[arg-type]
        else:
            break
    return stream  # type: ignore[return-value]


def _decompress_frame(frame: bytes) -> bytes:
    if frame.startswith(_ZSTD_MAGIC):
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(frame), read_across_frames=True)
        return reader.read()
    if frame.startswith(_GZIP_MAGIC):
        return gzip.decompress(frame)
    return frame


JSON_TEXT, PROTOBUF_BODY, FRAMES, EMPTY = "json", "protobuf", "frames", ""
_SNIFF_BYTES = 4096
_WHITESPACE = b" \t\r\n"


def content_kind(head: bytes) -> str:
    """What the first bytes of a (decompressed) dump are: JSON, one protobuf body or frames.

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
        return JSON_TEXT
    if first == b"\n":
        text_like = all(byte >= 0x20 or byte in _WHITESPACE for byte in head[:256])
        return JSON_TEXT if stripped[:1] in (b"{", b"[") and text_like else PROTOBUF_BODY
    return FRAMES


def read_stream(stream: BinaryIO, source: str, report: BadInputReport) -> Iterator[Record]:
    """Read every record of one (possibly compressed) dump stream.

    Example:
        >>> import io
        >>> r = BadInputReport()
        >>> list(read_stream(io.BufferedReader(io.BytesIO(b'{"resourceSpans": 5}')), "x", r))
        []
        >>> r.counts
        {'not an OTLP request': 1}
    """
    try:
        buffered = _decompressed(stream)
        kind = content_kind(buffered.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
    except _READ_ERRORS as exc:
        report.add(UNREADABLE_FILE, str(exc)[:200], Origin(source))
        return
    if kind == JSON_TEXT:
        yield from _read_json(buffered, source, report)
    elif kind == PROTOBUF_BODY:
        yield from _read_whole_protobuf(buffered, source, report)
    elif kind == FRAMES:
        yield from _read_frames(buffered, source, report)


def _read_whole_protobuf(stream: io.BufferedReader, source: str, report: BadInputReport) -> Iterator[Record]:
    try:
        body = stream.read()
    except _READ_ERRORS as exc:
        report.add(UNREADABLE_FILE, str(exc)[:200], Origin(source))
        return
    yield from records_from_body(body, Origin(source), report)


def _lines(stream: io.BufferedReader, source: str, report: BadInputReport) -> Iterator[bytes]:
    try:
        yield from stream
    except _READ_ERRORS as exc:
        report.add(UNREADABLE_FILE, str(exc)[:200], Origin(source))


#: How much of a file whose first line is not a JSON document is read to try it as one
#: pretty-printed object (past that, the file is read as JSON Lines).
MAX_PRETTY_JSON_BYTES = 64 << 20


def _read_json(stream: io.BufferedReader, source: str, report: BadInputReport) -> Iterator[Record]:
    lines = _lines(stream, source, report)
    number = 0
    for line in lines:
        number += 1
        stripped = line.strip()
        if stripped:
            break
    else:
        return
    try:
        parse_json(stripped)
    except DecodeError:
        # Not one JSON document per line: maybe one pretty-printed object (or array).
        head = [line]
        size = len(line)
        for more in lines:
            head.append(more)
            size += len(more)
            if size > MAX_PRETTY_JSON_BYTES:
                break
        else:
            whole = b"".join(head)
            try:
                parse_json(whole)
            except DecodeError:
                pass
            else:
                yield from _records_from_json_text(whole, Origin(source), report)
                return
        lines = itertools.chain(head[1:], lines)
    yield from _records_from_json_text(stripped, Origin(source, number), report)
    for line in lines:
        number += 1
        stripped = line.strip()
        if stripped:
            yield from _records_from_json_text(stripped, Origin(source, number), report)


def _read_exact(stream: io.BufferedReader, size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = stream.read(size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frames(stream: io.BufferedReader, source: str, report: BadInputReport) -> Iterator[Record]:
    number = 0
    while True:
        number += 1
        origin = Origin(source, number)
        try:
            prefix = _read_exact(stream, 4)
            if not prefix:
                return
            if len(prefix) < 4:
                report.add(UNDECODABLE_PROTOBUF, "truncated frame length", origin)
                return
            size = int.from_bytes(prefix, "big")
            if size > MAX_FRAME_BYTES:
                if number == 1:
                    report.add(UNREADABLE_FILE, "not an OTLP dump (not JSON, protobuf or frames)", Origin(source))
                else:
                    report.add(UNDECODABLE_PROTOBUF, f"frame length {size} is not plausible; rest of file skipped",
                               origin)
                return
            frame = _read_exact(stream, size)
            if len(frame) < size:
                report.add(UNDECODABLE_PROTOBUF, f"truncated frame: {len(frame)} of {size} bytes", origin)
                return
            body = _decompress_frame(frame)
        except _READ_ERRORS as exc:
            report.add(UNREADABLE_FILE, str(exc)[:200], origin)
            return
        yield from records_from_body(body, origin, report)


def _open(path: str) -> BinaryIO:
    if path == STDIN:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise OSError("there is no standard input to read")
        return stream
    return open(path, "rb")


def read_dump(paths: Sequence[str], *, report: BadInputReport) -> Iterator[Record]:
    """Stream the span and log records of every dump under ``paths``, in path order.

    Args:
        paths: Files, directories (recursive, sorted), globs, or ``-`` for stdin.
        report: Collects every bad line, frame or record that was skipped or repaired.

    Raises:
        InputError: A path does not exist or a glob matches nothing (checked before
            anything is read). Bad content is reported, never raised.

    Example:
        >>> list(read_dump(["/no/such/dir/*.jsonl"], report=BadInputReport()))
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such/dir/*.jsonl: the pattern matches no file
    """
    for path in expand_paths(paths):
        source = "<stdin>" if path == STDIN else path
        try:
            stream = _open(path)
        except OSError as exc:
            report.add(UNREADABLE_FILE, exc.strerror or str(exc), Origin(source))
            continue
        try:
            yield from read_stream(stream, source, report)
        finally:
            if path != STDIN:
                stream.close()
