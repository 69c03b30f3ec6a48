"""Scores encoded one at a time, ahead of their send, and batches framed from them.

A sink's request for a batch of scores is one OTLP request per signal: one resource (ek-otel's),
one scope, and the spans (or log records) of every score of the batch, in order. The spans of
one score do not depend on the others, so they can be encoded **where the score is made** (in
``ek-otel serve``'s scoring workers) and the request framed later from those bytes, by
concatenation, in the process that sends it (the receiver's outbox thread), without reading
the envelope back nor building an SDK object:

- :func:`encode_score` makes a score's :class:`Prepared` bytes for one :class:`Encoding`
  (the wire, OTLP JSON or protobuf, and what is sent: the signals, the Phoenix spans);
- :func:`json_lines` and :func:`protobuf_requests` frame a batch of them: the same bytes as
  encoding the batch's envelopes at once (:func:`~ek_otel.emit.otlp_json.request_lines`, the
  SDK's encoders), which ``tests/emit/test_prepared.py`` checks on every kind of score.

The frame (resource and scope) is the process's own (:func:`~ek_otel.emit.encode.ek_resource`:
its ``service.instance.id``), made once from a sample score; the prepared bytes carry no
resource, so scores encoded in other processes are written as this one's.

A prepared score starts with its encoding's :attr:`Encoding.tag`: bytes prepared for another
encoding (a server restarted with other ``--emit-*`` options) are not :func:`parts` of this
one, and the sender encodes the envelope again.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> from ek_otel.emit.otlp_json import request_lines
    >>> from ek_otel.emit.encode import encode_spans, encode_log_records
    >>> envs = [ScoreEnvelope(c * 32, "cd" * 8, "t", EpisodeScore("t", f1=0.5),
    ...                       ScoreProvenance("0"), scored_at_ns=7) for c in "ab"]
    >>> wire = Encoding("json", signals=("spans", "logs"))
    >>> text = json_lines([parts(wire, encode_score(wire, e)) for e in envs])
    >>> text == "".join(line + "\\n" for line in request_lines(encode_spans(envs),
    ...                                                           encode_log_records(envs)))
    True
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

__all__ = ["Encoding", "Prepared", "encode_score", "encode_scores", "parts", "json_lines", "protobuf_requests",
           "WIRES"]

#: The wires a score can be prepared for: OTLP JSON (a file's lines) and OTLP protobuf.
WIRES = ("json", "protobuf")
#: Version of the layout of prepared bytes (in every tag).
_LAYOUT = 1
_SEPARATORS = (",", ":")
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class Encoding:
    """What a sink sends of each score, and on which wire.

    Args:
        wire: ``"json"`` (OTLP JSON, a file sink's lines) or ``"protobuf"`` (OTLP/HTTP and
            OTLP/gRPC requests).
        phoenix: The OpenInference EVALUATOR span of each score too.
        signals: ``("spans",)``, ``("logs",)`` or both, in that order.

    Example:
        >>> Encoding("protobuf", True, ("spans",)).tag
        b'ek-otel-prepared/1 protobuf phoenix spans\\n'
    """

    wire: str
    phoenix: bool = False
    signals: tuple = ("spans", "logs")

    @property
    def tag(self) -> bytes:
        """The first line of every score prepared for this encoding."""
        phoenix = " phoenix" if self.phoenix else ""
        return f"ek-otel-prepared/{_LAYOUT} {self.wire}{phoenix} {','.join(self.signals)}\n".encode()


@dataclass(frozen=True)
class Prepared:
    """One score's share of a batch's requests: its spans and its log records, each as the
    bytes that go between the batch's frame (empty for a signal not sent)."""

    spans: bytes
    logs: bytes


def _requests(envelopes: Sequence, phoenix: bool, signals: Sequence[str]) -> tuple:
    """The SDK's protobuf requests (traces, logs) of ``envelopes``; None for a signal not sent."""
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as trace_request

    from .encode import encode_log_records, encode_spans

    spans = trace_request(encode_spans(envelopes, phoenix=phoenix)) if "spans" in signals else None
    logs = encode_logs(encode_log_records(envelopes)) if "logs" in signals else None
    return spans, logs


def _items(request, resources: str, scopes: str, items: str) -> list:
    """The spans (log records) of a request of one resource and one scope."""
    out: list = []
    for resource in getattr(request, resources):
        for scope in getattr(resource, scopes):
            out.extend(getattr(scope, items))
    return out


def encode_score(encoding: Encoding, envelope) -> bytes:
    """The prepared bytes of one score (its answer score's spans and records included); see
    :func:`encode_scores` for several scores and encodings at once.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
        >>> wire = Encoding("protobuf", signals=("logs",))
        >>> got = parts(wire, encode_score(wire, env)); got.spans, len(got.logs) > 100
        (b'', True)
    """
    return encode_scores([encoding], [envelope])[0][0]


def encode_scores(encodings: Sequence[Encoding], envelopes: Sequence) -> list:
    """For each envelope, its :func:`encode_score` bytes for each encoding: the SDK's
    requests are made once for all the envelopes (each envelope's spans and records are told
    apart by trace id; envelopes that share one are prepared one by one) and once for the
    encodings that send the same spans (a file and an OTLP sink).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> envs = [ScoreEnvelope(c * 32, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
        ...         for c in "ab"]
        >>> wires = [Encoding("json"), Encoding("protobuf")]
        >>> encode_scores(wires, envs) == [[encode_score(w, e) for w in wires] for e in envs]
        True
    """
    ids = [bytes.fromhex(e.trace_id) for e in envelopes]
    if len(set(ids)) < len(ids):
        return [encode_scores(encodings, [e])[0] for e in envelopes]
    index = {trace_id: i for i, trace_id in enumerate(ids)}
    made: dict = {}
    out: list = [[] for _ in envelopes]
    for encoding in encodings:
        key = (encoding.phoenix, encoding.signals)
        if key not in made:
            spans, logs = _requests(envelopes, *key)
            made[key] = (_by_score(spans, _SPAN_NAMES, index), _by_score(logs, _LOG_NAMES, index))
        spans, logs = made[key]
        for i, row in enumerate(out):
            row.append(_prepare(encoding, spans[i], logs[i]))
    return out


def _by_score(request, names: tuple, index: dict) -> list:
    """The items of a request, per score (by the position of their trace id in ``index``);
    None for each score when the signal is not sent."""
    if request is None:
        return [None] * len(index)
    out: list = [[] for _ in index]
    for item in _items(request, *names):
        out[index[item.trace_id]].append(item)
    return out


def _prepare(encoding: Encoding, spans, logs) -> bytes:
    """The prepared bytes of one score's spans and log records (None: a signal not sent)."""
    from .otlp_json import message_dict

    chunks = []
    for messages in (spans, logs):
        if messages is None:
            chunks.append(b"")
        elif encoding.wire == "json":
            chunks.append(",".join(json.dumps(message_dict(m), separators=_SEPARATORS)
                                   for m in messages).encode())
        else:
            chunks.append(b"".join(_field(2, m.SerializeToString()) for m in messages))
    return encoding.tag + _LENGTH.pack(len(chunks[0])) + chunks[0] + chunks[1]


def parts(encoding: Encoding, data: Optional[bytes]) -> Optional[Prepared]:
    """The :class:`Prepared` score in ``data``, or None when it was prepared for another
    encoding (or not at all).

    Example:
        >>> parts(Encoding("json"), None), parts(Encoding("json"), b"x")
        (None, None)
    """
    tag = encoding.tag
    if not data or not data.startswith(tag):
        return None
    at = len(tag)
    (n,) = _LENGTH.unpack_from(data, at)
    at += _LENGTH.size
    return Prepared(data[at:at + n], data[at + n:])


_SPAN_NAMES = ("resource_spans", "scope_spans", "spans")
_LOG_NAMES = ("resource_logs", "scope_logs", "log_records")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


@dataclass(frozen=True)
class _Frame:
    """What goes around the prepared items of one signal (this process's resource and scope)."""

    json_head: str
    json_tail: str
    resource_head: bytes    # ResourceSpans / ResourceLogs before its scope field
    resource_tail: bytes
    scope_head: bytes       # ScopeSpans / ScopeLogs before its items
    scope_tail: bytes

    def json(self, items: list) -> str:
        return self.json_head + ",".join(items) + self.json_tail

    def protobuf(self, items: list) -> bytes:
        scope = self.scope_head + b"".join(items) + self.scope_tail
        return _field(1, self.resource_head + _field(2, scope) + self.resource_tail)


_FRAMES: list = []
_FRAMES_LOCK = threading.Lock()
_MARK = "\x00ek-otel-items\x00"


def _frame_of(request, names: tuple) -> _Frame:
    from .otlp_json import message_dict

    resources, scopes, items = names
    (resource,) = getattr(request, resources)
    (scope,) = getattr(resource, scopes)
    data = message_dict(request)
    data[_camel(resources)][0][_camel(scopes)][0][_camel(items)] = [_MARK]
    head, tail = json.dumps(data, separators=_SEPARATORS).split(json.dumps(_MARK))
    resource_type, scope_type = type(resource), type(scope)
    return _Frame(
        head, tail,
        resource_type(resource=resource.resource).SerializeToString(),
        resource_type(schema_url=resource.schema_url).SerializeToString(),
        scope_type(scope=scope.scope).SerializeToString(),
        scope_type(schema_url=scope.schema_url).SerializeToString(),
    )


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def _frames() -> tuple:
    """(spans frame, logs frame) of this process, made once from a sample score."""
    with _FRAMES_LOCK:
        if not _FRAMES:
            from ..core.scores import EpisodeScore
            from .envelope import ScoreEnvelope, ScoreProvenance

            sample = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
                                   ScoreProvenance("0"), scored_at_ns=1)
            spans, logs = _requests([sample], False, ("spans", "logs"))
            _FRAMES.append((_frame_of(spans, _SPAN_NAMES), _frame_of(logs, _LOG_NAMES)))
        return _FRAMES[0]


def json_lines(prepared: Sequence[Prepared]) -> str:
    """The OTLP JSON Lines (newlines included) of a batch of scores prepared for ``"json"``:
    one traces request and one logs request; a request with nothing in it is left out.

    Example:
        >>> json_lines([])
        ''
    """
    spans_frame, logs_frame = _frames()
    spans = [p.spans.decode() for p in prepared if p.spans]
    logs = [p.logs.decode() for p in prepared if p.logs]
    return "".join(frame.json(items) + "\n"
                   for frame, items in ((spans_frame, spans), (logs_frame, logs)) if items)


def protobuf_requests(prepared: Sequence[Prepared]) -> dict:
    """The OTLP protobuf requests of a batch of scores prepared for ``"protobuf"``:
    ``{"spans": ExportTraceServiceRequest bytes, "logs": ExportLogsServiceRequest bytes}``
    (an empty request is ``b""``, as the SDK serializes it).

    Example:
        >>> protobuf_requests([])
        {'spans': b'', 'logs': b''}
    """
    spans_frame, logs_frame = _frames()
    spans = [p.spans for p in prepared if p.spans]
    logs = [p.logs for p in prepared if p.logs]
    return {"spans": spans_frame.protobuf(spans) if spans else b"",
            "logs": logs_frame.protobuf(logs) if logs else b""}
