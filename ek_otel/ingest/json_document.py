"""Large single-object OTLP JSON documents, read through simdjson's lazy proxies.

Many exporters and UIs write a whole export as one OTLP JSON object (one ``resourceSpans``
request, often 100 MB and more). Parsed whole into Python objects, such a document costs
about eight times its size in memory, and every process of a parallel run (``--jobs``) pays
for the spans it only reads light. Here the document is parsed by simdjson (``pysimdjson``,
C++) into its compact tape, and walked through lazy proxies: ``resourceSpans``, each
batch's resource and scope, and each span are turned into plain Python objects one at a
time; a span is converted whole only when it is decoded in full (with a
:class:`~ek_otel.ingest.shard.Shard`, the shard's own traces), the others without their
attributes (the ids, parent, resource and scope a light read needs). The records come from
the same walker as every other OTLP JSON body
(:func:`~ek_otel.ingest.otlp_json.spans_from_json`), so they are the same, byte for byte,
with the same bad-input report.

Whatever simdjson does not take exactly as orjson does goes the ordinary way
(:func:`~ek_otel.ingest.otlp.decode`): text simdjson refuses (invalid JSON or UTF-8, numbers
beyond 64 bits, nesting deeper than 1024), a byte order mark, a document that is not one
object of spans only (logs, an array of requests), and any document when ``pysimdjson`` is
not installed.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from .bad_input import BadInputReport
from .otlp import JSON, Origin, Record, _json_request, decode, parse_json
from .otlp_json import _TRACE_OF, _list, _object, _scope_of
from .anyvalue import BadValue


try:  # pysimdjson: optional, the plain path gives the same records
    import simdjson as _simdjson
except ImportError:  # pragma: no cover - exercised by tests that hide the module
    _simdjson = None

__all__ = ["LARGE_DOCUMENT_BYTES", "check_json", "decode_document", "simdjson_available"]

#: Bodies at least this large are read by :func:`decode_document` (below, orjson's whole
#: parse is cheap enough, and simdjson's set-up is not worth it).
LARGE_DOCUMENT_BYTES = 8 << 20

_TRACES = "traces"
_OTHER_TOP_KEYS = ("resourceLogs", "resource_logs")


def simdjson_available() -> bool:
    """True when pysimdjson is installed (else every document goes the plain way).

    Example:
        >>> isinstance(simdjson_available(), bool)
        True
    """
    return _simdjson is not None


def decode_document(body: bytes, origin: Optional[Origin] = None, report: Optional[BadInputReport] = None,
                    shard: Any = None, lazy: Optional[bool] = None) -> Iterator[Record]:
    """The records of one OTLP JSON body, as ``decode(body, "json", strict=False, ...)`` gives
    them, reading a single-object trace request through simdjson's lazy proxies.

    Args:
        body: The JSON text of one request (or anything :func:`~ek_otel.ingest.otlp.decode`
            takes as JSON: what is not a single trace request goes its way).
        origin, report, shard: As for :func:`~ek_otel.ingest.otlp.decode`.
        lazy: None: simdjson when installed and the body is at least
            :data:`LARGE_DOCUMENT_BYTES`; False: always the plain path (tests compare the
            two); True: simdjson, which must be installed.

    Example:
        >>> body = (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc60c",'
        ...         b' "spanId": "eee19b7ec3c1b174", "name": "chat", "attributes": ['
        ...         b'{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}]}]}]}')
        >>> [(r.name, r.attributes) for r in decode_document(body)]
        [('chat', {'gen_ai.operation.name': 'chat'})]
        >>> [r.name for r in decode_document(body, lazy=False)] == [r.name for r in decode_document(body)]
        True
    """
    if lazy is None:
        lazy = _simdjson is not None and len(body) >= LARGE_DOCUMENT_BYTES
    document = _parse(body) if lazy else None
    _last[:] = (None, None)
    if document is None:
        yield from decode(body, JSON, origin=origin, report=report, strict=False, shard=shard)
        return
    if shard is not None:  # as decode ticks for its body
        shard.unit()
    yield from _json_request(_LazyRequest(document, shard), (_TRACES,), origin, report, False, shard)


def check_json(body: bytes) -> None:
    """Raise :class:`~ek_otel.errors.DecodeError` unless ``body`` is JSON text (as
    :func:`~ek_otel.ingest.otlp.parse_json` would parse it), without building Python objects
    of a large single-object trace request: its simdjson document is kept for the
    :func:`decode_document` of the same body that follows.

    Example:
        >>> check_json(b'{"resourceSpans": []}')
        >>> check_json(b'{"resourceSpans": [')
        Traceback (most recent call last):
        ...
        ek_otel.ingest.otlp.BodyDecodeError: invalid JSON: unexpected end of data: ...
    """
    if _simdjson is not None and len(body) >= LARGE_DOCUMENT_BYTES:
        document = _parse(body)
        if document is not None:
            _last[:] = (body, document)
            return
    parse_json(body)


#: The last document :func:`check_json` parsed: (its body, its simdjson document).
_last: list = [None, None]


def _parse(body: bytes) -> Any:
    """The simdjson document of a single-object trace request, or None (the plain path)."""
    if _last[0] is body:
        return _last[1]
    if _simdjson is None:
        raise RuntimeError("pysimdjson is not installed (pip install pysimdjson)")
    if bytes(body[:3]) == b"\xef\xbb\xbf":  # orjson refuses a byte order mark, simdjson skips it
        return None
    try:
        document = _simdjson.Parser().parse(body)
    except (ValueError, RuntimeError):  # invalid JSON, UTF-8 (UnicodeDecodeError), big integers, depth
        return None
    if not isinstance(document, _simdjson.Object):
        return None
    keys = list(document.keys())
    if "resourceSpans" not in keys and "resource_spans" not in keys:
        return None
    if any(key in keys for key in _OTHER_TOP_KEYS) or len(set(keys)) != len(keys):
        return None
    return document


def _plain(value: Any) -> Any:
    """A simdjson proxy as plain Python objects (what orjson gives); other values as they are."""
    if isinstance(value, _simdjson.Object):
        return value.as_dict()
    if isinstance(value, _simdjson.Array):
        return value.as_list()
    return value


def _shallow(obj: Any, keep: tuple) -> dict:
    """A simdjson object as a dict: the arrays named in ``keep`` stay proxies (walked one
    element at a time), every other value plain. An object with a repeated key is converted
    whole (orjson keeps the last value, a proxy lookup the first)."""
    keys = list(obj.keys())
    if len(set(keys)) != len(keys):
        return obj.as_dict()
    out = {}
    for key in keys:
        value = obj[key]
        out[key] = value if key in keep and isinstance(value, _simdjson.Array) else _plain(value)
    return out


def _type_name(value: Any) -> str:
    if isinstance(value, _simdjson.Object):
        return "dict"
    if isinstance(value, _simdjson.Array):
        return "list"
    return type(value).__name__


def _proxy_list(obj: dict, camel: str, snake: str, *aliases: str) -> Any:
    """:func:`~ek_otel.ingest.otlp_json._list` over a shallow dict: a proxy array or a list."""
    return _list(obj, camel, snake, *aliases, kinds=(list, _simdjson.Array))


class _LazyRequest:
    """A parsed document that :func:`~ek_otel.ingest.otlp_json._batches` walks through
    :meth:`otlp_batches`, with the same checks and messages as for a plain request."""

    __slots__ = ("document", "shard")

    def __init__(self, document: Any, shard: Any):
        self.document, self.shard = document, shard

    def otlp_batches(self, outer: tuple, inner: tuple, records: tuple) -> Iterator[tuple]:
        """(resource, scope, records) per scope batch, as ``_batches`` yields them; the
        records are turned into dicts one at a time, as the walker reaches them."""
        request = _shallow(self.document, outer)
        resources = []  # kept alive: the walker caches resources by id()
        for batch in _proxy_list(request, *outer):
            if not isinstance(batch, (dict, _simdjson.Object)):
                raise BadValue(f"{outer[0]} entry is a {_type_name(batch)}, not an object")
            batch = _shallow(batch, inner) if isinstance(batch, _simdjson.Object) else batch
            resource = _object(batch, "resource", "resource")
            resources.append(resource)
            for scoped in _proxy_list(batch, *inner):
                if not isinstance(scoped, (dict, _simdjson.Object)):
                    raise BadValue(f"{inner[0]} entry is a {_type_name(scoped)}, not an object")
                scoped = _shallow(scoped, records) if isinstance(scoped, _simdjson.Object) else scoped
                yield resource, _scope_of(scoped), self._records(_proxy_list(scoped, *records))

    def _records(self, items: Any) -> Iterator[Any]:
        shard = self.shard
        trace_of = _TRACE_OF["span"]
        for item in items:
            if not isinstance(item, _simdjson.Object):
                yield _plain(item)
            elif shard is None:
                yield item.as_dict()
            else:
                light = _shallow(item, ("attributes",))
                if shard.owns(trace_of(_without_attributes(light))):
                    yield item.as_dict()
                else:
                    light.pop("attributes", None)  # a light read never looks at them
                    yield light


def _without_attributes(span: dict) -> dict:
    """The ids of a shallow span, plain (what the owner rule reads)."""
    return {key: _plain(span[key]) for key in ("traceId", "trace_id") if key in span}
