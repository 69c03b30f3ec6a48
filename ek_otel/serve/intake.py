"""What both receivers do with a decoded-enough request: split, admit, commit, then ack.

The steps, shared by OTLP/HTTP and OTLP/gRPC:

1. :meth:`Intake.prepare` splits the body by trace id without decoding attributes
   (:func:`~ek_otel.ingest.split.split_traces`); an undecodable body raises
   :class:`~ek_otel.errors.DecodeError` (400 / INVALID_ARGUMENT).
2. :meth:`Intake.admit` refuses the request with
   :class:`~ek_otel.serve.assembler.Overloaded` (503 / UNAVAILABLE + retry) when it would
   break a memory cap. Nothing is dropped silently: the client keeps the data and retries.
3. :meth:`Intake.commit` hands the chunks to the group-commit writer; the returned future
   resolves once they are durable (and the trace index knows them). Only then is the
   request acknowledged.

Example:
    >>> b = InflightBudget(100)
    >>> b.acquire(60); b.acquire(60)
    Traceback (most recent call last):
    ...
    ek_otel.serve.assembler.Overloaded: 120 request bytes in flight (cap 100); retry later
    >>> b.release(60); b.acquire(60); b.in_flight
    60
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable, Optional

from ..ingest.bad_input import INVALID_UTF8
from .assembler import Overloaded, TraceIndex
from .groupcommit import GroupCommitWriter
from .store import IncomingChunk

__all__ = ["Prepared", "Intake", "InflightBudget", "drop_own_output", "response_body"]


@dataclass(frozen=True)
class Prepared:
    """A request split by trace id: the chunks to store and what was rejected."""

    signal: str
    chunks: tuple
    rejected: int = 0
    error_message: str = ""

    def sizes(self) -> dict:
        """trace id → payload bytes (what admission checks)."""
        out: dict = {}
        for c in self.chunks:
            out[c.trace_id] = out.get(c.trace_id, 0) + len(c.payload)
        return out


_OURS = (b"ek-otel", b"ek_otel.emit")


def drop_own_output(signal: str, body: bytes, fmt: str) -> bytes:
    """Remove ek-otel's own output (scores written back through a Collector) from a body.

    Scores are spans and events *in the evaluated trace*: received again, they would look
    like late spans and re-score the run forever. They carry ``service.name=ek-otel`` (or
    the scope ``ek_otel.emit``); a body without those bytes is returned as it is, so normal
    traffic pays one substring search.

    Example:
        >>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ...     ExportTraceServiceRequest)
        >>> req = ExportTraceServiceRequest()
        >>> for service in ("agent", "ek-otel"):
        ...     rs = req.resource_spans.add()
        ...     kv = rs.resource.attributes.add()
        ...     kv.key, kv.value.string_value = "service.name", service
        >>> out = ExportTraceServiceRequest.FromString(
        ...     drop_own_output("spans", req.SerializeToString(), "protobuf"))
        >>> [r.resource.attributes[0].value.string_value for r in out.resource_spans]
        ['agent']
    """
    if not any(marker in body for marker in _OURS):
        return body
    from ..emit.attributes import SCOPE_NAME, SERVICE_NAME

    if fmt == "protobuf":
        from ..ingest.otlp import parse_logs_request, parse_trace_request

        request = parse_trace_request(body) if signal == "spans" else parse_logs_request(body)
        batches = request.resource_spans if signal == "spans" else request.resource_logs
        keep = []
        for batch in batches:
            service = next((kv.value.string_value for kv in batch.resource.attributes
                            if kv.key == "service.name"), "")
            scopes = batch.scope_spans if signal == "spans" else batch.scope_logs
            ours = service == SERVICE_NAME or (
                len(scopes) > 0 and all(sc.scope.name == SCOPE_NAME for sc in scopes))
            if not ours:
                keep.append(batch)
        if len(keep) == len(batches):
            return body
        out = type(request)()
        target = out.resource_spans if signal == "spans" else out.resource_logs
        for batch in keep:
            target.add().CopyFrom(batch)
        return out.SerializeToString()
    from ..ingest.otlp import parse_json

    try:
        data = parse_json(body)
        key = "resourceSpans" if signal == "spans" else "resourceLogs"
        scope_key = "scopeSpans" if signal == "spans" else "scopeLogs"
        batches = data.get(key) or data.get("resource_spans" if signal == "spans" else "resource_logs")
        keep = []
        for batch in batches:
            attrs = (batch.get("resource") or {}).get("attributes") or []
            service = next((a.get("value", {}).get("stringValue") for a in attrs
                            if a.get("key") == "service.name"), None)
            scopes = batch.get(scope_key) or []
            if service == SERVICE_NAME or (scopes and all(
                    (sc.get("scope") or {}).get("name") == SCOPE_NAME for sc in scopes)):
                continue
            keep.append(batch)
    except Exception:  # noqa: BLE001 - not our shape: let the real decoder judge it
        return body
    if len(keep) == len(batches):
        return body
    import json

    return json.dumps({key: keep}).encode()


def response_body(signal: str, fmt: str, rejected: int = 0, message: str = "") -> bytes:
    """An ``Export{Trace,Logs}ServiceResponse`` (``signal``: ``"traces"`` or ``"logs"``),
    with ``partial_success`` when something was rejected; what both receivers answer.

    Example:
        >>> response_body("logs", "json"), response_body("traces", "json", 1, "invalid id")
        (b'{}', b'{"partialSuccess": {"rejectedSpans": "1", "errorMessage": "invalid id"}}')
    """
    if fmt == "json":
        if not rejected and not message:
            return b"{}"
        import json

        field = "rejectedSpans" if signal == "traces" else "rejectedLogRecords"
        return json.dumps({"partialSuccess": {field: str(rejected), "errorMessage": message}}).encode()
    if signal == "traces":
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceResponse,
        )

        resp = ExportTraceServiceResponse()
        if rejected or message:
            resp.partial_success.rejected_spans = rejected
            resp.partial_success.error_message = message
    else:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceResponse,
        )

        resp = ExportLogsServiceResponse()
        if rejected or message:
            resp.partial_success.rejected_log_records = rejected
            resp.partial_success.error_message = message
    return resp.SerializeToString()


class InflightBudget:
    """Bytes of request bodies held at once; over the cap a request is refused (503)."""

    def __init__(self, cap: int, retry_after_s: int = 1):
        self.cap = cap
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self._lock = threading.Lock()

    def acquire(self, n: int) -> None:
        """Reserve ``n`` bytes or raise :class:`Overloaded`."""
        with self._lock:
            if self.in_flight + n > self.cap and self.in_flight > 0:
                raise Overloaded(f"{self.in_flight + n} request bytes in flight (cap {self.cap}); "
                                 "retry later", self.retry_after_s)
            self.in_flight += n

    def release(self, n: int) -> None:
        """Give back ``n`` bytes."""
        with self._lock:
            self.in_flight = max(0, self.in_flight - n)


class Intake:
    """Split, admit and commit requests for the receivers.

    Args:
        writer: The group-commit writer of the store.
        index: The open-trace index (caps, completion).
        on_stored: Called after each request's chunks are durable (wakes the assembler).
        clock: Wall-clock seconds (arrival times are stored, to survive restarts).
    """

    def __init__(self, writer: GroupCommitWriter, index: TraceIndex, *,
                 on_stored: Optional[Callable[[], None]] = None,
                 clock: Callable[[], float] = time.time):
        self.writer = writer
        self.index = index
        self.on_stored = on_stored
        self.clock = clock
        self.accepted_spans = 0
        self.accepted_requests = 0
        self.own_output_requests = 0
        self.repaired_requests = 0
        self._lock = threading.Lock()

    def prepare(self, signal: str, body: bytes, fmt: str) -> Prepared:
        """Split a traces or logs body by trace id (CPU work: run it off the event loop).

        A body that is undecodable only because of invalid UTF-8 in strings is accepted
        with each bad sequence replaced by U+FFFD (the ingest parsers repair it, see
        :func:`~ek_otel.ingest.otlp_pb.repair_utf8`), with a note in ``error_message``.
        """
        prepared = self._split(signal, self._drop_own(signal, body, fmt), fmt)
        if INVALID_UTF8 in prepared.error_message:
            with self._lock:
                self.repaired_requests += 1
        return prepared

    def _drop_own(self, signal: str, body: bytes, fmt: str) -> bytes:
        kept = drop_own_output(signal, body, fmt)
        if kept is not body:
            with self._lock:
                self.own_output_requests += 1
        return kept

    def _split(self, signal: str, body: bytes, fmt: str) -> Prepared:
        from ..ingest.split import split_logs, split_traces

        if signal == "spans":
            split = split_traces(body, fmt)
            chunks = tuple(
                IncomingChunk("spans", c.trace_id, c.payload, tuple(c.span_ids),
                              bool(c.root_span_ids))
                for c in split.chunks
            )
            return Prepared("spans", chunks, split.rejected_spans, split.error_message)
        split = split_logs(body, fmt)
        # Log records with no trace id cannot belong to an episode: they are not stored.
        chunks = tuple(IncomingChunk("logs", c.trace_id, c.payload)
                       for c in split.chunks if c.trace_id)
        return Prepared("logs", chunks, split.rejected, split.error_message)

    def admit(self, prepared: Prepared) -> None:
        """Raise :class:`Overloaded` when storing this request would break a cap."""
        if prepared.chunks:
            self.index.admit(prepared.sizes())

    def commit(self, prepared: Prepared) -> Future:
        """Queue the chunks for the next group commit.

        The future resolves once they are durable; the trace index is updated in the writer
        thread right after that commit (:meth:`_observe`), in commit order.
        """
        chunks = prepared.chunks
        now = self.clock()
        if not chunks:
            fut: Future = Future()
            fut.set_result([])
            return fut
        return self.writer.submit(lambda store: store.ingest(chunks, now),
                                  after=lambda stored: self._observe(prepared, stored))

    def _observe(self, prepared: Prepared, stored: list) -> None:
        now = self.clock()
        spans = 0
        for chunk, (size, revision, has_root) in zip(prepared.chunks, stored):
            if size:
                self.index.observe(chunk.trace_id, size, has_root=has_root, now=now,
                                   revision=revision)
            spans += len(chunk.span_ids)
        with self._lock:
            self.accepted_spans += spans
            self.accepted_requests += 1
        if self.on_stored is not None and any(item[0] for item in stored):
            self.on_stored()

    def accept(self, signal: str, body: bytes, fmt: str, timeout: float = 60.0) -> Prepared:
        """Split, admit and commit, blocking (the gRPC receiver's threads use this)."""
        prepared = self.prepare(signal, body, fmt)
        self.admit(prepared)
        self.commit(prepared).result(timeout)
        return prepared
