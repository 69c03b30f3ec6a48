"""The export outbox: deliver committed scores to a sink, retrying with backoff until it works.

One :class:`OutboxExporter` (one thread) per sink. Scores are read from the store's
``outbox`` table oldest first and marked exported only after the sink said yes, so after a
crash nothing committed is lost. Delivery guarantees:

- **Store**: each ``(sink, trace, revision)`` row is marked exported once.
- **File sink**: exactly once. Before a write, the file's size is committed with the rows;
  after a crash between the write and the mark, the restarted exporter truncates the file
  back to that size and writes the rows again, so a torn or repeated write never stays.
- **OTLP sink**: at least once. A crash after the endpoint accepted a batch and before the
  mark was committed re-sends that one batch; the encoding is deterministic (same span ids,
  same attributes), so the repeat is identical and a backend can drop it. A signal the
  backend has no endpoint for (no ``/v1/logs``: HTTP 404/405/501, gRPC UNIMPLEMENTED) is
  not a failure: the rows are marked exported, not retried forever.
- **Phoenix sink**: at least once, and a repeat replaces the annotation (Phoenix upserts on
  name + span/trace + identifier). When Phoenix lacks some spans of a batch yet, the rows it
  did annotate are marked and only the others are retried.

**Giving up** (as the OTel Collector drops data on a permanent error). 5xx, 408/429 and
connection errors are retried with backoff for as long as it takes: the backend may come
back. But a score whose run the backend still does not have (Phoenix 404 naming the span,
MLflow ``RESOURCE_DOES_NOT_EXIST``: its traces never reached that backend), or a request the
backend refuses for good (401/403 wrong API key, 400/422), is given up once ``give_up_s``
(``--export-give-up``) have passed since its first failed attempt: ONE warning names the
sink, the trace and the reason, and the row counts as ``export_failed`` in the store (never
silently dropped). For sinks other than the file, rows never tried are sent before rows that
failed, so rows a backend keeps refusing never hold back the ones behind them. The sinks that
keep one score per run and evaluator (:data:`OVERWRITING_SINKS`: Phoenix, MLflow) also retire
the older revisions of a trace still pending once a newer one is delivered; the OTLP and file
sinks deliver every revision.

Example:
    >>> Backoff(initial_s=1.0, max_s=8.0, jitter=0.0).delays(5)
    [1.0, 2.0, 4.0, 8.0, 8.0]
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .groupcommit import GroupCommitWriter
from .store import Store

__all__ = ["Backoff", "OutboxExporter", "DEFAULT_BATCH", "DEFAULT_GIVE_UP_S", "OVERWRITING_SINKS"]

_log = logging.getLogger(__name__)

#: Scores sent per batch.
DEFAULT_BATCH = 200
#: Seconds after its first failed attempt before a score the backend refuses for good, or
#: whose run it still does not have, is given up.
DEFAULT_GIVE_UP_S = 600.0

#: Sinks whose backend keeps one score per run and evaluator (a repeat overwrites).
OVERWRITING_SINKS = frozenset({"phoenix", "mlflow"})


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff: ``initial_s * 2**n`` capped at ``max_s``, with ±``jitter`` share."""

    initial_s: float = 0.5
    max_s: float = 30.0
    jitter: float = 0.2

    def delay(self, attempt: int) -> float:
        """The wait after the ``attempt``-th consecutive failure (0-based)."""
        base = min(self.max_s, self.initial_s * (2 ** min(attempt, 30)))
        return base * (1 + random.uniform(-self.jitter, self.jitter)) if self.jitter else base

    def delays(self, n: int) -> list[float]:
        """The first ``n`` delays (for documentation and tests)."""
        return [self.delay(i) for i in range(n)]


class OutboxExporter:
    """Deliver the outbox rows of one sink.

    Args:
        name: The sink's name in the outbox table (``"file"``, ``"otlp"``).
        sink: An object with ``send(envelopes) -> bool`` and ``close()``; one that also has
            an ``encoding`` (:class:`~ek_otel.emit.prepared.Encoding`) and
            ``send_prepared(prepared)`` is sent the bytes the scoring workers prepared for it
            (rows without them go through ``send``).
        writer: The store's group-commit writer (marks rows).
        open_reader: Opens a read connection on the store (called in the thread).
        file_path: For a file sink, its path: enables the exactly-once truncation.
        overwrites: The backend keeps one score per run and evaluator (Phoenix annotations,
            MLflow assessments): delivering a newer revision retires older ones still pending.
            Other sinks (OTLP, file) deliver every revision.
        batch: Scores per send.
        backoff: Retry policy while the sink fails.
        give_up_s: Seconds after the first failed attempt before a row refused for good, or
            whose run the backend does not have, is given up (see the module doc).
        clock: Wall-clock time (tests).
    """

    def __init__(self, name: str, sink: Any, writer: GroupCommitWriter,
                 open_reader: Callable[[], Store], *, file_path: Optional[str] = None,
                 batch: int = DEFAULT_BATCH, backoff: Backoff = Backoff(),
                 give_up_s: float = DEFAULT_GIVE_UP_S, clock: Callable[[], float] = time.time,
                 overwrites: bool = False):
        self.name = name
        self.sink = sink
        self.writer = writer
        self.open_reader = open_reader
        self.file_path = file_path
        self.batch = batch
        self.backoff = backoff
        self.give_up_s = give_up_s
        self.clock = clock
        self.overwrites = overwrites
        self.exported = 0
        self.failures = 0
        self.given_up = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._flush_deadline: Optional[float] = None
        self._thread: Optional[threading.Thread] = None
        self._idle = threading.Event()

    def start(self) -> None:
        """Start the exporter thread."""
        self._thread = threading.Thread(target=self._run, name=f"ek-otel-outbox-{self.name}",
                                        daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Tell the exporter new rows were committed."""
        self._wake.set()

    def stop(self, flush_s: float = 10.0) -> None:
        """Deliver what is pending for up to ``flush_s`` seconds, then stop (safe twice)."""
        if self._thread is None:
            return
        self._flush_deadline = time.monotonic() + flush_s
        self._stop.set()
        self._wake.set()
        self._thread.join(flush_s + 15.0)
        self._thread = None
        try:
            self.sink.close()
        except Exception as exc:  # pragma: no cover - closing is best effort
            _log.warning("closing sink %s: %s", self.name, exc)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until the outbox of this sink is empty (tests, shutdown)."""
        return self._idle.wait(timeout)

    # -- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        reader = None
        failures = 0
        while True:
            if self._stop.is_set() and (
                self._flush_deadline is None or time.monotonic() >= self._flush_deadline
            ):
                break
            try:
                if reader is None:
                    reader = self.open_reader()
                    self._undo_interrupted_write(reader)
                outcome = self._step(reader)
            except Exception as exc:  # noqa: BLE001 - the store failed (disk full, I/O...)
                # Not the sink's fault and not fatal: the rows stay in the store. Undo a file
                # write whose mark did not commit (or it would be written twice), reopen the
                # reader, back off, retry. The thread must not die while the server runs.
                _log.warning("outbox %s: %s: %s; retrying", self.name, type(exc).__name__, exc)
                self.failures += 1
                if reader is not None:
                    try:
                        if self.file_path is not None:
                            # a barrier first: a mark that timed out but is still queued
                            # commits before we look at what is unconfirmed
                            self.writer.call(lambda s: None)
                            self._truncate(reader)
                    except Exception as undo:  # noqa: BLE001 - retried on the next pass
                        _log.warning("outbox %s: cannot undo a write yet: %s", self.name, undo)
                    reader.close()
                    reader = None
                outcome = "failed"
            if outcome == "sent":
                failures = 0
                continue
            if outcome == "idle":
                self._idle.set()
                if self._stop.is_set():
                    break
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            delay = self.backoff.delay(failures)
            failures += 1
            if self._stop.is_set():
                remaining = (self._flush_deadline or 0) - time.monotonic()
                delay = min(delay, max(0.0, remaining))
            self._stop.wait(delay) if not self._stop.is_set() else time.sleep(delay)
        if reader is not None:
            reader.close()

    def _step(self, reader: Store) -> str:
        """Send one batch: ``"sent"``, ``"idle"`` (nothing pending) or ``"failed"``."""
        upserts = self.file_path is None
        rows = reader.pending_exports(self.name, self.batch, fresh_first=upserts)
        if not rows:
            return "idle"
        self._idle.clear()
        ids = [r.id for r in rows]
        send = self._sender(reader, rows)
        if self.file_path is not None:
            size = os.path.getsize(self.file_path) if os.path.exists(self.file_path) else 0
            self.writer.call(lambda s, ids=ids, size=size: s.mark_sending(ids, size))
        result = None
        try:
            result = send()
        except Exception as exc:  # a sink should not raise; treat as a failure
            _log.warning("sink %s raised: %s", self.name, exc)
        if result is not None and bool(result):
            self.writer.call(lambda s, ids=ids: s.mark_exported(ids, supersede=self.overwrites))
            self.exported += len(ids)
            return "sent"
        failed_keys = set(getattr(result, "failed_keys", ()) or ())
        if failed_keys and upserts:
            # the sink wrote some of the batch (e.g. Phoenix lacks some spans yet): mark those
            done = [row.id for row in rows if row.key not in failed_keys]
            if done:
                self.writer.call(lambda s, done=done: s.mark_exported(done,
                                                                      supersede=self.overwrites))
                self.exported += len(done)
                ids = [i for i in ids if i not in set(done)]
        self.failures += 1
        now = self.clock()
        self.writer.call(lambda s, ids=ids: s.count_attempt(ids, now))
        if self.file_path is not None:
            self._truncate(reader)
        errors = "; ".join(getattr(result, "errors", ()) or ()) or "the sink said no"
        _log.warning("sink %s failed (%s); %d scores wait", self.name, errors, len(ids))
        self._give_up_stale([r for r in rows if r.id in set(ids)], result, now)
        return "failed"

    def _sender(self, reader: Store, rows: list) -> Callable[[], Any]:
        """How to send ``rows``: the bytes the scoring workers prepared for this sink when
        every row has them (framing and writing only), else their envelopes (read back and
        encoded here: rows of an older store, or of a server run with other options)."""
        from ..emit.envelope import ScoreEnvelope
        from ..emit.prepared import parts
        from .payload import unpack_payload

        encoding = getattr(self.sink, "encoding", None)
        if encoding is not None:
            prepared = [parts(encoding, row.prepared and unpack_payload(row.prepared))
                        for row in rows]
            if all(p is not None for p in prepared):
                return lambda: self.sink.send_prepared(prepared)
        envelopes = [ScoreEnvelope.from_json(reader.envelope_of(row)) for row in rows]
        return lambda: self.sink.send(envelopes)

    def _give_up_stale(self, failed: list, result: Any, now: float) -> None:
        """Give up the failed rows refused for good, or whose run the backend does not have,
        ``give_up_s`` after their first failed attempt; one warning each."""
        if result is None:  # the sink raised: not known to be permanent
            return
        permanent = not getattr(result, "retryable", True)
        unknown = set(getattr(result, "unknown_keys", ()) or ())
        reason = "; ".join(getattr(result, "errors", ()) or ()) or "refused"
        reasons = {}
        for row in failed:
            if not (permanent or row.key in unknown):
                continue  # transient (5xx, connection): keep retrying
            since = now if row.first_failed is None else row.first_failed
            if now - since < self.give_up_s:
                continue
            why = (f"{self.name} does not have the run" if row.key in unknown
                   else f"{self.name} refused it") + f": {reason}"
            reasons[row.id] = why
            _log.warning("outbox %s: giving up the score of trace %s (revision %d) after "
                         "%.0f s: %s", self.name, row.trace_id, row.revision, now - since, why)
        if reasons:
            self.writer.call(lambda s, reasons=reasons: s.give_up(reasons, now))
            self.given_up += len(reasons)

    def _undo_interrupted_write(self, reader: Store) -> None:
        if self.file_path is not None:
            self._truncate(reader)

    def _truncate(self, reader: Store) -> None:
        offset = reader.interrupted_write(self.name)
        if offset is None or not os.path.exists(self.file_path):
            return
        if os.path.getsize(self.file_path) > offset:
            _log.warning("truncating %s to %d bytes: an unconfirmed write is redone",
                         self.file_path, offset)
            with open(self.file_path, "r+b") as f:
                f.truncate(offset)
                f.flush()
                os.fsync(f.fileno())
