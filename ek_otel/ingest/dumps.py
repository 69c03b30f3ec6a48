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
single-object file is read whole (from 8 MiB one span at a time, see
:mod:`~ek_otel.ingest.json_document`: the same records, a fraction of the memory). Bad input never stops the run: an undecodable line or
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
import zlib
from typing import Any, BinaryIO, Iterator, Optional, Sequence

import zstandard

from ..errors import DecodeError, InputError
from .bad_input import UNDECODABLE_PROTOBUF, UNREADABLE_FILE, BadInputReport
from .formats import FRAMES, JSON, PROTOBUF, SNIFF_BYTES, content_kind
from .json_document import LARGE_DOCUMENT_BYTES, check_json, decode_document, drop_scans_ahead, scan_ahead
from .otlp import Record, decode
from .records import Origin

__all__ = [
    "STDIN",
    "MAX_FRAME_BYTES",
    "MAX_PRETTY_JSON_BYTES",
    "expand_paths",
    "READ_AHEAD_BYTES",
    "drop_read_ahead",
    "read_ahead",
    "read_dump",
    "read_stream",
]

#: The path that means standard input.
STDIN = "-"

#: The largest frame accepted (a bigger length prefix means the file is not framed data).
MAX_FRAME_BYTES = 1 << 30

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GLOB_CHARS = frozenset("*?[")
#: What a corrupt or cut compressed stream raises (``gzip.BadGzipFile`` is an OSError): the
#: rest of the file (or the frame) is reported as unreadable and skipped.
_READ_ERRORS = (OSError, EOFError, zlib.error, zstandard.ZstdError, ValueError)


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


def read_stream(stream: BinaryIO, source: str, report: BadInputReport, shard: Any = None) -> Iterator[Record]:
    """Read every record of one (possibly compressed) dump stream (``shard``: see
    :func:`read_dump`).

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
        kind = content_kind(buffered.peek(SNIFF_BYTES)[:SNIFF_BYTES])
    except _READ_ERRORS as exc:
        _add(report, shard, UNREADABLE_FILE, str(exc)[:200], Origin(source))
        return
    if kind == JSON:
        yield from _read_json(buffered, source, report, shard)
    elif kind == PROTOBUF:
        yield from _read_whole_protobuf(buffered, source, report, shard)
    elif kind == FRAMES:
        yield from _read_frames(buffered, source, report, shard)


def _add(report: BadInputReport, shard: Any, reason: str, detail: str, origin: Origin) -> None:
    """Report a problem of a file, line or frame (with a shard: its clock ticks first)."""
    if shard is not None:
        shard.unit()
    report.add(reason, detail, origin)


def _read_whole_protobuf(stream: io.BufferedReader, source: str, report: BadInputReport,
                         shard: Any) -> Iterator[Record]:
    try:
        body = stream.read()
    except _READ_ERRORS as exc:
        _add(report, shard, UNREADABLE_FILE, str(exc)[:200], Origin(source))
        return
    yield from decode(body, origin=Origin(source), report=report, strict=False, shard=shard)


def _lines(stream: io.BufferedReader, source: str, report: BadInputReport, shard: Any) -> Iterator[bytes]:
    try:
        yield from stream
    except _READ_ERRORS as exc:
        _add(report, shard, UNREADABLE_FILE, str(exc)[:200], Origin(source))


#: How much of a file whose first line is not a JSON document is read to try it as one
#: pretty-printed object (past that, the file is read as JSON Lines).
MAX_PRETTY_JSON_BYTES = 64 << 20


#: From this size, the first line of an uncompressed file is found by a search and read in
#: one piece (:func:`_large_first_line`) rather than by ``readline``, which holds the line's
#: chunks and their join at once: twice the line's size.
LARGE_LINE_BYTES = LARGE_DOCUMENT_BYTES
_NEWLINE_SEARCH_CHUNK = 1 << 20
_ASCII_WHITESPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() strips


def _large_first_line(stream: io.BufferedReader) -> Optional[bytes]:
    """The first line of an uncompressed file, stripped, when it is at least
    :data:`LARGE_LINE_BYTES` long and holds no blank text at its ends (what ``readline`` and
    ``strip`` would give, read as one allocation); the stream is then past that line. None
    otherwise (a pipe, a compressed file, a short first line), the stream where it was.

    Example:
        >>> import io
        >>> _large_first_line(io.BufferedReader(io.BytesIO(b'{"a": 1}\\n'))) is None  # not a file
        True
    """
    raw = getattr(stream, "raw", None)
    if type(stream) is not io.BufferedReader or type(raw) is not io.FileIO:
        return None
    try:
        start = stream.tell()
        status = os.fstat(raw.fileno())
        if status.st_size - start < LARGE_LINE_BYTES:
            return None
    except (OSError, ValueError):  # not seekable
        return None
    if start == 0 and _read_ahead:
        kept = _read_ahead.pop(_file_key(status), None)
        if kept is not None:  # read (and scanned) by read_ahead: the same file, unchanged
            line, after = kept
            try:
                stream.seek(after)
                return line
            except (OSError, ValueError):
                stream.seek(start)
    line = None
    try:
        chunk = bytearray(_NEWLINE_SEARCH_CHUNK)
        end = start
        while True:  # where the first line ends (1 MiB at a time; no line is kept)
            got = stream.readinto(chunk)
            newline = chunk.find(b"\n", 0, got) if got else -1
            if newline != -1 or not got:
                end += newline if newline != -1 else 0
                break
            end += got
        if end - start >= LARGE_LINE_BYTES:
            stream.seek(start)
            first = stream.read(1)
            stream.seek(end - 1)
            if first not in _ASCII_WHITESPACE and stream.read(1) not in _ASCII_WHITESPACE:
                stream.seek(start)
                line = stream.read(end - start)
                if len(line) != end - start:
                    line = None
    except (OSError, ValueError):
        line = None
    stream.seek(end + 1 if line is not None else start)
    return line


#: How many bytes of large first lines :func:`read_ahead` holds at most (files past that
#: are read when their turn comes, by each process).
READ_AHEAD_BYTES = 256 << 20

#: Large first lines read ahead: file key (:func:`_file_key`) -> (the line, where it ends).
_read_ahead: dict = {}


def _file_key(status: os.stat_result) -> tuple:
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


def read_ahead(paths: Sequence[str]) -> int:
    """Read now, and scan (:func:`~ek_otel.ingest.json_document.scan_ahead`), the large first
    lines of the uncompressed JSON files among ``paths`` (single-object OTLP requests, in
    path order, up to :data:`READ_AHEAD_BYTES` in all), for the :func:`read_dump` that
    follows in this process and in every process forked from it: a parallel run reads and
    scans such a file once, not once a process. Files that cannot be opened, are not JSON
    or not large are left to :func:`read_dump` (which reports them). Returns the bytes held.

    Raises:
        InputError: As :func:`read_dump`, before anything is read.

    Example:
        >>> read_ahead(["examples/traces.jsonl"])  # small: nothing read ahead
        0
    """
    held = 0
    for path in expand_paths(paths):
        if path == STDIN:
            continue
        try:
            with open(path, "rb") as stream:
                status = os.fstat(stream.fileno())
                if status.st_size < LARGE_LINE_BYTES or held + status.st_size > READ_AHEAD_BYTES:
                    continue
                if content_kind(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES]) != JSON:
                    continue
                line = _large_first_line(stream)
                if line is None:
                    continue
                after = stream.tell()
        except OSError:
            continue
        scan_ahead(line)
        _read_ahead[_file_key(status)] = (line, after)
        held += len(line)
    return held


def drop_read_ahead() -> None:
    """Forget what :func:`read_ahead` holds and its reads have not taken (a run that stops
    early).

    Example:
        >>> drop_read_ahead()
    """
    _read_ahead.clear()
    drop_scans_ahead()


def _read_json(stream: io.BufferedReader, source: str, report: BadInputReport, shard: Any) -> Iterator[Record]:
    large = _large_first_line(stream)
    if large is not None:
        try:
            check_json(large)
        except DecodeError:  # not a whole document: the ordinary way, from its start
            stream.seek(-(len(large) + 1), io.SEEK_CUR)
        else:
            yield from decode_document(large, Origin(source, 1), report, shard)
            del large
            yield from _json_lines(_lines(stream, source, report, shard), source, report, shard, 1)
            return
    lines = _lines(stream, source, report, shard)
    number = 0
    for line in lines:
        number += 1
        stripped = line.strip()
        if stripped:
            break
    else:
        return
    try:
        check_json(stripped)  # parse_json, without Python objects for a large single request
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
                check_json(whole)
            except DecodeError:
                pass
            else:
                yield from decode_document(whole, Origin(source), report, shard)
                return
        lines = itertools.chain(head[1:], lines)
    yield from decode_document(stripped, Origin(source, number), report, shard)
    yield from _json_lines(lines, source, report, shard, number)


def _json_lines(lines: Iterator[bytes], source: str, report: BadInputReport, shard: Any,
                number: int) -> Iterator[Record]:
    """The records of the lines after line ``number``, one JSON document each."""
    for line in lines:
        number += 1
        stripped = line.strip()
        if stripped:
            yield from decode_document(stripped, Origin(source, number), report, shard)


def _read_exact(stream: io.BufferedReader, size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = stream.read(size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frames(stream: io.BufferedReader, source: str, report: BadInputReport, shard: Any) -> Iterator[Record]:
    number = 0
    while True:
        number += 1
        origin = Origin(source, number)
        try:
            prefix = _read_exact(stream, 4)
            if not prefix:
                return
            if len(prefix) < 4:
                _add(report, shard, UNDECODABLE_PROTOBUF, "truncated frame length", origin)
                return
            size = int.from_bytes(prefix, "big")
            if size > MAX_FRAME_BYTES:
                if number == 1:
                    _add(report, shard, UNREADABLE_FILE, "not an OTLP dump (not JSON, protobuf or frames)",
                         Origin(source))
                else:
                    _add(report, shard, UNDECODABLE_PROTOBUF,
                         f"frame length {size} is not plausible; rest of file skipped", origin)
                return
            frame = _read_exact(stream, size)
            if len(frame) < size:
                _add(report, shard, UNDECODABLE_PROTOBUF, f"truncated frame: {len(frame)} of {size} bytes", origin)
                return
            body = _decompress_frame(frame)
        except _READ_ERRORS as exc:
            _add(report, shard, UNREADABLE_FILE, str(exc)[:200], origin)
            return
        yield from decode(body, origin=origin, report=report, strict=False, shard=shard)


def _open(path: str) -> BinaryIO:
    if path == STDIN:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise OSError("there is no standard input to read")
        return stream
    return open(path, "rb")


def read_dump(paths: Sequence[str], *, report: BadInputReport, shard: Any = None) -> Iterator[Record]:
    """Stream the span and log records of every dump under ``paths``, in path order.

    Args:
        paths: Files, directories (recursive, sorted), globs, or ``-`` for stdin.
        report: Collects every bad line, frame or record that was skipped or repaired.
        shard: A :class:`~ek_otel.ingest.shard.Shard` when this is one of several processes
            reading the same files (``report`` is then the shard): every record is still
            read, those of other shards' traces light (see
            :func:`~ek_otel.ingest.otlp.decode`). None: every record in full.

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
            _add(report, shard, UNREADABLE_FILE, exc.strerror or str(exc), Origin(source))
            continue
        try:
            yield from read_stream(stream, source, report, shard)
        finally:
            if path != STDIN:
                stream.close()
