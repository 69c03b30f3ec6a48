"""What both receivers do with a decoded-enough request: split, admit, commit, then ack.

The steps, shared by OTLP/HTTP and OTLP/gRPC:

1. :meth:`Intake.prepare` splits the body by trace id without decoding attributes
   (:func:`~ek_otel.ingest.split.split_traces`) and packs each trace's payload for the store
   (:func:`~ek_otel.serve.payload.pack_payload`: zstd, outside the single writer thread); an
   undecodable body raises :class:`~ek_otel.errors.DecodeError` (400 / INVALID_ARGUMENT).
2. :meth:`Intake.admit` refuses the request with
   :class:`~ek_otel.errors.Overloaded` (503 / UNAVAILABLE + retry) when it would
   break a memory cap. Nothing is dropped silently: the client keeps the data and retries.
3. :meth:`Intake.commit` hands the chunks to the group-commit writer; the returned future
   resolves once they are durable (and the trace index knows them). Only then is the
   request acknowledged.

Example:
    >>> b = InflightBudget(100)
    >>> b.acquire(60); b.acquire(60)
    Traceback (most recent call last):
    ...
    ek_otel.errors.Overloaded: 120 request bytes in flight (cap 100); retry later
    >>> b.release(60); b.acquire(60); b.in_flight
    60
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable, Optional

from ..ingest.own_output import drop_own_output
from ..errors import Overloaded
from ..ingest.bad_input import INVALID_UTF8
from .groupcommit import GroupCommitWriter
from .payload import pack_payload, payload_digest
from .store import IncomingChunk
from .trace_index import TraceIndex

__all__ = ["Prepared", "Intake", "InflightBudget"]


@dataclass(frozen=True)
class Prepared:
    """A request split by trace id: the chunks to store and what was rejected."""

    signal: str
    chunks: tuple
    rejected: int = 0
    error_message: str = ""

    def sizes(self) -> dict:
        """trace id → stored (packed) payload bytes (what admission checks)."""
        out: dict = {}
        for c in self.chunks:
            out[c.trace_id] = out.get(c.trace_id, 0) + len(c.payload)
        return out


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
        on_stored: Called after each request's chunks are durable (wakes the scheduler).
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

    def warm_up(self) -> None:
        """Import what requests need (the split, the protobuf and JSON codecs, the answers)
        now, at start: the first request would otherwise wait a quarter of a second for
        them on the event loop, and every request behind it too.

        Example:
            >>> Intake(None, None).warm_up()
        """
        from .responses import response_body

        for signal in ("traces", "logs"):
            for fmt in ("protobuf", "json"):
                self._split(signal, b"" if fmt == "protobuf" else b"{}", fmt)
                response_body(signal, fmt, 0, "")

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

        if signal == "traces":
            split = split_traces(body, fmt)
            chunks = tuple(
                IncomingChunk("traces", c.trace_id, pack_payload(c.payload), c.span_ids,
                              bool(c.root_span_ids), payload_digest(c.payload))
                for c in split.chunks
            )
            return Prepared("traces", chunks, split.rejected_spans, split.error_message)
        split = split_logs(body, fmt)
        # Log records with no trace id cannot belong to an episode: they are not stored.
        chunks = tuple(IncomingChunk("logs", c.trace_id, pack_payload(c.payload),
                                     digest=payload_digest(c.payload))
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
