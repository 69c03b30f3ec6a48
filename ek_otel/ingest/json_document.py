"""Large single-object OTLP JSON documents, read one span at a time.

Many exporters and UIs write a whole export as one OTLP JSON object (one ``resourceSpans``
request, often 100 MB and more). Parsed whole into Python objects, such a document costs
about eight times its size in memory, and every process of a parallel run (``--jobs``) pays
for the spans it only reads light. Here the document is never parsed whole:

1. **scan** (:func:`check_json`): each ``"spans": [...]`` array is split into its elements
   by parsing them one at a time with orjson over a zero-copy view of the text, from one
   candidate end (a ``}`` followed by ``,`` and an object whose first key is a span field:
   never inside a string, where a quote is escaped) to the next (searched first as the bytes
   that most likely stand there: :func:`_next_literal`). A candidate inside a nested
   object (a link, an event) gives an incomplete piece, which grows to a candidate at least
   twice as far; a piece holding more than one element is cut where orjson says its first
   value ends; a span longer than 64 KiB is tried in windows that double. What is left, the
   document with each spans array replaced by a marker (the skeleton: resources, scopes), is
   parsed by orjson too. Nothing is kept of the spans but their byte ranges.
2. **walk** (:func:`decode_document`): the same walker as every other OTLP JSON body
   (:func:`~ek_otel.ingest.otlp_json.spans_from_json`) reads the skeleton, and each span is
   parsed again from its range when the walker reaches it, then dropped.

Every piece of the document has then been parsed by orjson, exactly as the whole document
would be (a JSON value's text parses to the same value wherever it stands; a piece's
nesting is checked at the depth it has in the document), so the records are the same, byte
for byte, with the same bad-input report. Whatever the scan does not take goes the ordinary
way (:func:`~ek_otel.ingest.otlp.decode`, one orjson parse of the whole text and its
repairs): text orjson refuses anywhere (invalid JSON or UTF-8, nesting deeper than orjson's
limit), a byte order mark, a NUL escape outside the spans (the markers' character), a spans array whose
elements are not all objects, a spans array anywhere but under
``resourceSpans[i].scopeSpans[j]`` (a repeated key hides one), a document that is not one
object of spans only (logs, an array of requests).

Memory is the document's text and one span's objects at a time, in every process. A
parallel run's main process scans before it forks (:func:`scan_ahead`): one scan for all.
"""

from __future__ import annotations

import re
from array import array
from typing import Any, Iterator, Optional

from .bad_input import BadInputReport
from ..errors import DecodeError
from .otlp import JSON, Origin, Record, _json_request, decode, parse_json
from .otlp_json import _list

try:  # orjson: a dependency; without it every document goes the plain way
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency
    _orjson = None

__all__ = ["LARGE_DOCUMENT_BYTES", "check_json", "decode_document", "drop_scans_ahead", "scan_ahead", "scan_document"]

#: Bodies at least this large are read span by span by :func:`decode_document` (below,
#: orjson's whole parse is cheap enough).
LARGE_DOCUMENT_BYTES = 8 << 20

_TRACES = "traces"
_OTHER_TOP_KEYS = ("resourceLogs", "resource_logs")
_OUTER = ("resourceSpans", "resource_spans")
_INNER = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
_RECORDS = "spans"

_WS = rb"[ \t\n\r]*"  # JSON's whitespace (not \s: that has \v and \f)
_SKIP_WS = re.compile(_WS)
_SPANS_ARRAY = re.compile(rb'"spans"' + _WS + rb":" + _WS + rb"\[")
#: The fields of an OTLP JSON span (camelCase and snake_case): an object that starts with
#: one of them, after ``},``, is probably the next span.
_SPAN_FIELDS = (b"traceId", b"trace_id", b"spanId", b"span_id", b"parentSpanId", b"parent_span_id",
                b"name", b"kind", b"startTimeUnixNano", b"start_time_unix_nano", b"endTimeUnixNano",
                b"end_time_unix_nano", b"attributes", b"status", b"traceState", b"trace_state",
                b"flags", b"events", b"links", b"droppedAttributesCount", b"dropped_attributes_count",
                b"droppedEventsCount", b"dropped_events_count", b"droppedLinksCount",
                b"dropped_links_count")
_LONGEST_FIELD = max(len(field) for field in _SPAN_FIELDS)
_NEXT_SPAN = re.compile(rb"\}" + _WS + rb"," + _WS + rb"(?=\{" + _WS + rb'"(?:'
                        + b"|".join(_SPAN_FIELDS) + rb')")')
#: What replaces spans array number N in the skeleton (a document with a NUL escape anywhere
#: goes the plain way, so no string of it can be taken for a marker).
_MARKER = b'"\\u0000ek-spans:%d"'
_MARKER_VALUE = "\x00ek-spans:"
_NUL = b"\\u0000"
#: A piece is first tried this long at most (doubled while a span is longer): the text of
#: a parse error is as long as the piece.
_WINDOW = 64 << 10
#: orjson's nesting limit, and how deep a span of a request stands (the request, the
#: resourceSpans list and entry, the scopeSpans list and entry, the spans list).
_ORJSON_DEPTH = 1024
_SPAN_DEPTH = 6
#: A span shorter than this cannot nest too deep (:func:`_deep_enough`: each bracket closed).
_DEEP_BYTES = 2 * (_ORJSON_DEPTH - _SPAN_DEPTH)
_END_OF_DATA = "unexpected end of data"
_TRAILING = "unexpected content after document"


def decode_document(body: bytes, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
                    shard: Any = None, lazy: Optional[bool] = None) -> Iterator[Record]:
    """The records of one OTLP JSON body, as ``decode(body, "json", strict=False, ...)`` gives
    them, reading a single-object trace request one span at a time.

    Args:
        body: The JSON text of one request (or anything :func:`~ek_otel.ingest.otlp.decode`
            takes as JSON: what is not a single trace request goes its way).
        origin, report, shard: As for :func:`~ek_otel.ingest.otlp.decode`.
        lazy: None: span by span when the body is at least :data:`LARGE_DOCUMENT_BYTES`;
            False: always the plain path (tests compare the two); True: span by span
            whatever the size (what the scan does not take still goes the plain way).

    Example:
        >>> body = (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc60c",'
        ...         b' "spanId": "eee19b7ec3c1b174", "name": "chat", "attributes": ['
        ...         b'{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}]}]}]}')
        >>> [(r.name, r.attributes) for r in decode_document(body, lazy=True)]
        [('chat', {'gen_ai.operation.name': 'chat'})]
        >>> [r.name for r in decode_document(body, lazy=False)] == [r.name for r in decode_document(body)]
        True
    """
    if lazy is None:
        lazy = len(body) >= LARGE_DOCUMENT_BYTES
    document = _scanned(body) if lazy else None
    _last[:] = (None, None)
    if document is None:
        yield from decode(body, JSON, origin=origin, report=report, strict=False, shard=shard)
        return
    if shard is not None:  # as decode ticks for its body
        shard.unit()
    yield from _json_request(document.skeleton, (_TRACES,), origin, report, False, shard)


def check_json(body: bytes) -> None:
    """Raise :class:`~ek_otel.errors.DecodeError` unless ``body`` is JSON text (as
    :func:`~ek_otel.ingest.otlp.parse_json` would parse it), without building Python objects
    of a large single-object trace request: its scan is kept for the
    :func:`decode_document` of the same body that follows.

    Example:
        >>> check_json(b'{"resourceSpans": []}')
        >>> check_json(b'{"resourceSpans": [')
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: invalid JSON: unexpected end of data: ...
    """
    if len(body) >= LARGE_DOCUMENT_BYTES:
        document = _scanned(body)
        _last[:] = (body, document)  # None too: the decode that follows does not scan again
        if document is not None:
            return
    try:
        parse_json(body)
    except DecodeError:
        _last[:] = (None, None)
        raise


#: The last document :func:`check_json` scanned: (its body, its :class:`StreamedRequest` or
#: None when it goes the plain way).
_last: list = [None, None]


#: Scans made ahead (:func:`scan_ahead`): id of the body -> (the body, its scan or None).
_ahead: dict = {}


def scan_ahead(body: bytes) -> None:
    """Scan a large ``body`` now, and keep the scan for the first :func:`check_json` (or
    :func:`decode_document`) of that same object, which then does not scan again: a
    parallel run's main process scans before it forks, and every process uses that one scan
    (the pages of the text and of the scan are shared).

    Example:
        >>> body = b'{"resourceSpans": []}' + b" " * LARGE_DOCUMENT_BYTES
        >>> scan_ahead(body)
        >>> id(body) in _ahead, check_json(body), id(body) in _ahead
        (True, None, False)
    """
    if len(body) >= LARGE_DOCUMENT_BYTES:
        _ahead[id(body)] = (body, scan_document(body))


def drop_scans_ahead() -> None:
    """Forget the scans :func:`scan_ahead` keeps that no read has taken.

    Example:
        >>> drop_scans_ahead(); _ahead
        {}
    """
    _ahead.clear()


def _scanned(body: bytes) -> Optional["StreamedRequest"]:
    if _last[0] is body:
        return _last[1]
    kept = _ahead.pop(id(body), None)
    if kept is not None and kept[0] is body:
        return kept[1]
    return scan_document(body)


class StreamedRequest:
    """A scanned single-object trace request: its skeleton (the parsed document, each spans
    list a :class:`_Spans` of byte ranges), walked by
    :func:`~ek_otel.ingest.otlp_json.spans_from_json` as a whole parsed request would be,
    each span parsed when the walker reaches it."""

    __slots__ = ("skeleton", "body", "spans")

    def __init__(self, skeleton: dict, body: bytes, spans: int):
        self.skeleton, self.body, self.spans = skeleton, body, spans


class _Spans(list):
    """One spans list of the skeleton, where the list stands: an (empty) list to the
    walker's checks, whose iteration parses its elements one at a time from their byte
    ranges (``bounds``: start, end, start, end, ...)."""

    __slots__ = ("body", "bounds")

    def __init__(self, body: bytes, bounds: array):
        super().__init__()
        self.body, self.bounds = body, bounds

    def __iter__(self) -> Iterator[Any]:
        view = memoryview(self.body)
        loads = _orjson.loads
        bounds = self.bounds
        for k in range(0, len(bounds), 2):
            yield loads(view[bounds[k]:bounds[k + 1]])


def scan_document(body: bytes) -> Optional[StreamedRequest]:
    """The scan of a single-object trace request (see the module's docstring), or None when
    it must go the plain way.

    Example:
        >>> doc = scan_document(b'{"resourceSpans": [{"scopeSpans": [{"spans": ['
        ...     b'{"name": "a", "links": [{"traceId": "t1"},{"traceId": "t2"}]},{"name": "b"}]}]}]}')
        >>> doc.spans, [bytes(doc.body[a:b]) for a, b in _pairs(doc)]
        (2, [b'{"name": "a", "links": [{"traceId": "t1"},{"traceId": "t2"}]}', b'{"name": "b"}'])
        >>> scan_document(b'{"resourceSpans": [{"scopeSpans": [{"spans": [1, 2]}]}]}') is None
        True
    """
    if _orjson is None or not isinstance(body, bytes) or body[:3] == b"\xef\xbb\xbf":
        return None  # orjson refuses a byte order mark: the plain path says so
    view = memoryview(body)
    finder = _Finder(body)
    arrays: list = []  # (offset of '[', offset after ']', bounds)
    pos = 0
    while True:
        found = _SPANS_ARRAY.search(body, pos)
        if found is None:
            break
        scanned = _split_array(body, view, found.end(), finder)
        if scanned is None:
            return None
        bounds, end = scanned
        arrays.append((found.end() - 1, end, bounds))
        pos = end
    pieces = []
    pos = 0
    for number, (start, end, _) in enumerate(arrays):
        if body.find(_NUL, pos, start) != -1:  # the markers' NUL: no skeleton string has one
            return None
        pieces.append(view[pos:start])
        pieces.append(_MARKER % number)
        pos = end
    if body.find(_NUL, pos) != -1:
        return None
    pieces.append(view[pos:])
    try:
        skeleton = _orjson.loads(b"".join(pieces))
    except _orjson.JSONDecodeError:
        return None
    if not isinstance(skeleton, dict) or not any(key in skeleton for key in _OUTER):
        return None
    if any(key in skeleton for key in _OTHER_TOP_KEYS):
        return None
    if _place(skeleton, body, [bounds for _, _, bounds in arrays]) != len(arrays):
        return None  # a spans list elsewhere, or one a repeated key hides
    return StreamedRequest(skeleton, body, sum(len(b) for _, _, b in arrays) // 2)


def _pairs(document: StreamedRequest) -> list:
    """Every span's (start, end), in document order (for tests)."""
    out = []
    for batch in _list(document.skeleton, *_OUTER):
        for scoped in _list(batch, *_INNER) if isinstance(batch, dict) else ():
            spans = scoped.get(_RECORDS) if isinstance(scoped, dict) else None
            if type(spans) is _Spans:
                out.extend(zip(spans.bounds[::2], spans.bounds[1::2]))
    return out


def _place(skeleton: dict, body: bytes, arrays: list) -> int:
    """Put each spans list's :class:`_Spans` where its marker stands, if it stands at
    ``resourceSpans[i].scopeSpans[j].spans`` (any spelling); how many lists were placed."""
    placed: set = set()
    for outer in _OUTER:
        batches = skeleton.get(outer)
        if not isinstance(batches, list):
            continue
        for batch in batches:
            if not isinstance(batch, dict):
                continue
            for inner in _INNER:
                scopes = batch.get(inner)
                if not isinstance(scopes, list):
                    continue
                for scoped in scopes:
                    value = scoped.get(_RECORDS) if isinstance(scoped, dict) else None
                    if type(value) is str and value.startswith(_MARKER_VALUE):
                        number = int(value[len(_MARKER_VALUE):])
                        scoped[_RECORDS] = _Spans(body, arrays[number])
                        placed.add(number)
    return len(placed)


def _split_array(body: bytes, view: memoryview, start: int, finder: "_Finder") -> Optional[tuple]:
    """``(bounds, offset after the closing bracket)`` of the array whose first element
    starts at or after ``start``; None when an element is not an object or anything is not
    what orjson takes."""
    bounds = array("q")
    append = bounds.append
    i = _SKIP_WS.match(body, start).end()
    if body[i:i + 1] == b"]":
        return bounds, i + 1
    literal = _next_literal(body, i)
    while True:
        if body[i:i + 1] != b"{":
            return None
        end = _element_end(body, view, i, literal, finder)
        if end is None:
            return None
        append(i)
        append(end)
        if body.startswith(b",{", end):  # compact JSON: the next element right after
            i = end + 1
            continue
        j = _SKIP_WS.match(body, end).end()
        after = body[j:j + 1]
        if after == b"]":
            return bounds, j + 1
        if after != b",":
            return None
        i = _SKIP_WS.match(body, j + 1).end()


def _next_literal(body: bytes, first: int) -> Optional[bytes]:
    """The text that most likely stands between two spans of the array whose first element
    starts at ``first``: ``},{"`` and that element's first key, when it is a span field
    written with no space (compact JSON, what exporters write); None otherwise. Searching
    for it (``bytes.find``) is much faster than the regex of every span field, and it is
    one of the regex's candidates: which candidate ends a piece never changes the result.

    Example:
        >>> _next_literal(b'[{"traceId": "t"}]', 1), _next_literal(b'[{ "traceId": "t"}]', 1)
        (b'},{"traceId"', None)
    """
    if body[first + 1:first + 2] != b'"':
        return None
    close = body.find(b'"', first + 2, first + 2 + _LONGEST_FIELD + 1)
    if close == -1 or body[first + 2:close] not in _SPAN_FIELDS:
        return None
    return b'},{' + body[first + 1:close + 1]


class _Finder:
    """The first candidate end at or after a position, each search remembered: the scan asks
    at positions that only grow, and the first candidate at or after ``p`` found from
    ``q <= p`` is the one at or after ``p`` while it stands at ``p`` or later (no lookbehind
    in the pattern), so the body is searched about once in all, never once per span (a
    search that found nothing answers every later ask at once)."""

    __slots__ = ("body", "memo")

    def __init__(self, body: bytes):
        self.body = body
        self.memo: dict = {}  # what was searched -> (from, first match at or after it or None)

    def first(self, what: Any, pos: int) -> Optional[tuple]:
        seen = self.memo.get(what)
        if seen is not None and seen[0] <= pos and (seen[1] is None or seen[1][0] >= pos):
            return seen[1]
        if isinstance(what, bytes):
            at = self.body.find(what, pos)
            found = None if at == -1 else (at, at + 2)
        else:
            match = what.search(self.body, pos)
            found = None if match is None else (match.start(), match.end())
        self.memo[what] = (pos, found)
        return found


def _candidate(finder: _Finder, pos: int, literal: Optional[bytes]) -> Optional[tuple]:
    """``(offset of the '}', offset of the next '{')`` of the first candidate end at or
    after ``pos`` (the literal's first, within a window, else the regex's), None if none."""
    if literal is not None:
        found = finder.first(literal, pos)
        if found is not None and found[0] < pos + _WINDOW - len(literal) + 1:
            return found
    return finder.first(_NEXT_SPAN, pos)


def _element_end(body: bytes, view: memoryview, start: int, literal: Optional[bytes],
                 finder: "_Finder") -> Optional[int]:
    """Where the object starting at ``start`` ends (past trailing whitespace), orjson's
    parse of it checked; None when orjson refuses it (``literal``: see
    :func:`_next_literal`)."""
    loads = _orjson.loads
    width = _WINDOW
    candidate = _candidate(finder, start + 1, literal)
    while True:
        stop = candidate[0] + 1 if candidate is not None else len(body)
        limited = stop - start > width
        if limited:  # end the piece on a '}' too: a prefix of valid JSON is then incomplete
            stop = body.rfind(b"}", start, start + width) + 1
        try:
            if stop > start:
                loads(view[start:stop])
                end = stop
            else:
                end = None
        except _orjson.JSONDecodeError as exc:
            message = exc.msg
            if message.startswith(_TRAILING):
                text = exc.doc
                end = start + (exc.pos if text.isascii() else len(text[:exc.pos].encode()))
            elif not message.startswith(_END_OF_DATA):
                return None
            elif limited:
                end = None
            elif candidate is None:
                return None
            else:  # at least twice as long, so a span of many events or links costs a few tries
                candidate = _candidate(finder, max(candidate[1], start + 2 * (stop - start)), None)
                continue
        if end is None:
            width *= 2
            continue
        if end - start >= _DEEP_BYTES and not _deep_enough(body, start, end):
            return None
        return end


def _deep_enough(body: bytes, start: int, end: int) -> bool:
    """False when the object ``body[start:end]`` nests too deep for orjson where it stands
    (as an element of a request's spans list); checked only when it has brackets enough."""
    room = _ORJSON_DEPTH - _SPAN_DEPTH  # brackets it needs to nest too deep, each closed too
    if end - start < 2 * room or body.count(b"{", start, end) + body.count(b"[", start, end) < room:
        return True
    try:
        _orjson.loads(b"[" * _SPAN_DEPTH + body[start:end] + b"]" * _SPAN_DEPTH)
    except _orjson.JSONDecodeError:
        return False
    return True
