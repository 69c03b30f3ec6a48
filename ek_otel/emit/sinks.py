"""Where scores go: an OTLP JSON Lines file, an OTLP endpoint (HTTP or gRPC), or several.

Every sink has two methods:

- ``send(envelopes) -> SendResult``: write the evaluation spans and
  ``gen_ai.evaluation.result`` events of the envelopes and say, per signal, how many were
  sent, failed, or met a backend without that endpoint
  (:class:`~ek_otel.emit.delivery.SendResult`). The result is true **only** when nothing
  failed, so that the live server's outbox keeps the envelopes and retries otherwise; a
  signal the backend does not have is not a failure. A sink never raises for a failed
  export: it logs and says so in the result.
- ``close()``: release the file or the connections. Calling it twice is harmless.

Sinks: :class:`FileSink` (OTLP JSON Lines: one ``ExportTraceServiceRequest`` and one
``ExportLogsServiceRequest`` per line, readable by :func:`ek_otel.ingest.dumps.read_dump`),
:class:`ExporterSink` (any pair of SDK span/log exporters, e.g. the in-memory ones in tests),
:class:`OtlpSink` (OTLP/HTTP or OTLP/gRPC, with the status of every answer), and
:class:`MultiSink`; Phoenix annotations are :class:`ek_otel.emit.phoenix.PhoenixSink`.

Retries are at least once: encoding is deterministic (see :mod:`ek_otel.emit.encode`), so a
re-sent score is an identical span and event, never a different one.

Example:
    >>> import os, tempfile
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"),
    ...                     scored_at_ns=1)
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.jsonl")
    >>> sink = FileSink(path)
    >>> sink.send([env]).to_dict(), bool(sink.send([]))
    ({'file': {'sent': 1, 'failed': 0, 'unsupported': 0}}, True)
    >>> sink.close(); sink.close()
    >>> len(open(path).read().splitlines())   # one traces line + one logs line
    2
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Optional, Protocol
from urllib.parse import urlsplit

from .delivery import Answer, SendResult, retrying
from .envelope import ScoreEnvelope
from .prepared import Encoding, Prepared
from .transport import GrpcTransport, HttpTransport

__all__ = [
    "PROTOCOLS",
    "SIGNALS",
    "DEFAULT_TIMEOUT_S",
    "Sink",
    "FileSink",
    "ExporterSink",
    "OtlpSink",
    "MultiSink",
    "check_signals",
    "make_sinks",
    "make_sink",
]

_log = logging.getLogger(__name__)

#: The OTLP transports :class:`OtlpSink` speaks.
PROTOCOLS = ("http", "grpc")
#: The OTLP signals scores are written as: evaluation spans, and evaluation events (logs).
SIGNALS = ("spans", "logs")
#: Default time an OTLP export may take, retries included (seconds).
DEFAULT_TIMEOUT_S = 10.0


class Sink(Protocol):
    """What the pipeline and the outbox write scores to."""

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Write the scores; per-signal counts, true only when nothing failed."""

    def close(self) -> None:
        """Release resources; safe to call twice."""


class FileSink:
    """Append scores to an OTLP JSON Lines file (flushed and fsynced on every send).

    Args:
        path: The file; created if missing, appended to otherwise.
        phoenix: Also write the OpenInference EVALUATOR span of each score.
        signals: Which of :data:`SIGNALS` to write (the traces lines, the logs lines).

    Example:
        >>> sink = FileSink("scores.jsonl", phoenix=True)
        >>> sink.path, sink.phoenix, bool(sink.send([]))   # nothing to send: no file made
        ('scores.jsonl', True, True)
    """

    def __init__(self, path: str, *, phoenix: bool = False, signals: Sequence[str] = SIGNALS):
        self.path = str(path)
        self.phoenix = phoenix
        self.signals = check_signals(signals)
        #: What :meth:`send_prepared` takes: scores prepared as OTLP JSON.
        self.encoding = Encoding("json", phoenix, self.signals)
        self._file = None
        self._lock = threading.Lock()
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Append the trace and logs requests of ``envelopes``; false when the write failed.

        Example:
            >>> import tempfile, os
            >>> d = tempfile.mkdtemp(); os.mkdir(os.path.join(d, "x.jsonl"))
            >>> from ek_otel.core.scores import EpisodeScore
            >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
            >>> FileSink(os.path.join(d, "x.jsonl")).send([env]).get("file").failed  # a directory
            1
        """
        n = len(envelopes)
        if not envelopes:
            return SendResult()
        from .otlp_json import request_lines

        encode_spans, encode_log_records = _encoders()
        spans = encode_spans(envelopes, phoenix=self.phoenix) if "spans" in self.signals else []
        logs = encode_log_records(envelopes) if "logs" in self.signals else []
        return self._append("".join(line + "\n" for line in request_lines(spans, logs)), n)

    def send_prepared(self, prepared: Sequence[Prepared]) -> SendResult:
        """Append the lines of scores prepared for :attr:`encoding` (what :meth:`send` writes
        for their envelopes, byte for byte); false when the write failed.

        Example:
            >>> import os, tempfile
            >>> from ek_otel.core.scores import EpisodeScore
            >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
            >>> from ek_otel.emit.prepared import encode_score, parts
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...                     ScoreProvenance("0"), scored_at_ns=1)
            >>> d = tempfile.mkdtemp(); a, b = FileSink(os.path.join(d, "a")), FileSink(os.path.join(d, "b"))
            >>> bool(a.send([env])), bool(b.send_prepared([parts(b.encoding, encode_score(b.encoding, env))]))
            (True, True)
            >>> a.close(); b.close(); open(a.path).read() == open(b.path).read()
            True
        """
        if not prepared:
            return SendResult()
        from .prepared import json_lines

        return self._append(json_lines(prepared), len(prepared))

    def _append(self, text: str, n: int) -> SendResult:
        """Append ``text`` (the lines of ``n`` scores), flushed and fsynced."""
        with self._lock:
            if self._closed:
                _log.warning("FileSink %s is closed; %d scores not written", self.path, n)
                return SendResult.of("file", failed=n, error=f"{self.path} is closed")
            try:
                if self._file is None:
                    self._file = open(self.path, "a", encoding="utf-8")
                self._file.write(text)
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as exc:
                _log.warning("cannot write scores to %s: %s", self.path, exc)
                return SendResult.of("file", failed=n, error=f"cannot write {self.path}: {exc}")
        return SendResult.of("file", sent=n)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._closed = True
            if self._file is not None:
                self._file.close()
                self._file = None


def _encoders() -> tuple:
    """``(encode_spans, encode_log_records)``: they load the OTel SDK, so they are imported
    on the first send (``ek-otel score --help`` and option parsing need none of it)."""
    from .encode import encode_log_records, encode_spans

    return encode_spans, encode_log_records


def _succeeded(result) -> bool:
    return getattr(result, "name", "") == "SUCCESS"


class ExporterSink:
    """Send scores through an SDK span exporter and an SDK log exporter.

    The SDK's exporters only say SUCCESS or FAILURE, so this sink cannot tell a backend
    without a logs endpoint from one that is down (:class:`OtlpSink` can); it serves the
    in-memory and console exporters.

    Args:
        span_exporter: Any ``SpanExporter`` (OTLP, in-memory, console, ...).
        log_exporter: Any log record exporter of the same SDK.
        phoenix: Also send the OpenInference EVALUATOR span of each score.
        signals: Which of :data:`SIGNALS` to send.

    Example:
        >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        >>> from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
        >>> sink = ExporterSink(spans, logs)
        >>> result = sink.send([ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
        ...                                   ScoreProvenance("0"))])
        >>> bool(result), result.get("logs").sent
        (True, 1)
        >>> len(spans.get_finished_spans()), len(logs.get_finished_logs())
        (1, 1)
    """

    def __init__(self, span_exporter, log_exporter, *, phoenix: bool = False,
                 signals: Sequence[str] = SIGNALS):
        self.span_exporter = span_exporter
        self.log_exporter = log_exporter
        self.phoenix = phoenix
        self.signals = check_signals(signals)
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Export spans, then events; per-signal counts (true only when both succeeded)."""
        n = len(envelopes)
        if not envelopes:
            return SendResult()
        if self._closed:
            _log.warning("sink is closed; %d scores not sent", n)
            return _all_failed(self.signals, n, "sink is closed")
        result = SendResult()
        encode_spans, encode_log_records = _encoders()
        for signal in self.signals:
            try:
                if signal == "spans":
                    ok = _succeeded(self.span_exporter.export(encode_spans(envelopes, phoenix=self.phoenix)))
                else:
                    ok = _succeeded(self.log_exporter.export(encode_log_records(envelopes)))
            except Exception as exc:  # an exporter must not take the server down
                _log.warning("exporting the %s of %d scores failed: %s", signal, n, exc)
                ok = False
            if not ok:
                _log.warning("exporting the %s of %d scores failed", signal, n)
            result += SendResult.of(signal, sent=n if ok else 0, failed=0 if ok else n,
                                    error=None if ok else f"{signal}: the exporter failed")
        return result

    def close(self) -> None:
        """Shut the exporters down (once)."""
        if self._closed:
            return
        self._closed = True
        for exporter in (self.span_exporter, self.log_exporter):
            try:
                exporter.shutdown()
            except Exception as exc:  # pragma: no cover - defensive
                _log.warning("exporter shutdown failed: %s", exc)


def _all_failed(signals: Sequence[str], n: int, error: str) -> SendResult:
    result = SendResult()
    for signal in signals:
        result += SendResult.of(signal, failed=n, error=f"{signal}: {error}")
    return result


def check_signals(signals: Sequence[str]) -> tuple:
    """The signals, validated and in :data:`SIGNALS` order.

    Raises:
        ValueError: for an unknown signal or none at all.

    Example:
        >>> check_signals(["logs", "spans"]), check_signals(("spans",))
        (('spans', 'logs'), ('spans',))
        >>> check_signals(["metrics"])
        Traceback (most recent call last):
        ...
        ValueError: unknown signal 'metrics'; use spans, logs or both
    """
    chosen = set()
    for signal in signals:
        if signal not in SIGNALS:
            raise ValueError(f"unknown signal {signal!r}; use spans, logs or both")
        chosen.add(signal)
    if not chosen:
        raise ValueError("no signal to emit; use spans, logs or both")
    return tuple(s for s in SIGNALS if s in chosen)


def _http_base(endpoint: str) -> str:
    base = endpoint.rstrip("/")
    for suffix in ("/v1/traces", "/v1/logs"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


#: signal -> (OTLP/HTTP path, OTLP/gRPC method, what a user calls it)
_OTLP_ROUTES = {
    "spans": ("/v1/traces", "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
              "evaluation spans"),
    "logs": ("/v1/logs", "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
             "gen_ai.evaluation.result events"),
}


class OtlpSink:
    """Send scores to an OTLP endpoint: the SDK's OTLP encoders, our transport.

    Each signal is one request per batch (retried with backoff within ``timeout`` while the
    answer is retryable). A backend without an endpoint for a signal (HTTP 404/405/501, gRPC
    UNIMPLEMENTED: Phoenix, Jaeger and Tempo have no logs endpoint) gets one warning naming
    it and the signal; that signal is then counted ``unsupported`` and not sent there again,
    and it does not fail the send.

    Args:
        endpoint: For ``http``, the base URL (``http://host:4318``; ``/v1/traces`` and
            ``/v1/logs`` are appended; a URL already ending in one of them is accepted).
            For ``grpc``, ``http://host:4317`` (plaintext) or ``https://host:4317`` (TLS).
        protocol: ``"http"`` (OTLP/HTTP protobuf) or ``"grpc"``.
        headers: Extra request headers / metadata (e.g. an ``authorization`` token).
        timeout: Seconds one send of one signal may take, retries included.
        phoenix: Also send the OpenInference EVALUATOR span of each score.
        signals: Which of :data:`SIGNALS` to send.
        warn: Where the one-time "no such endpoint" warning goes (default: this module's log).

    Raises:
        ValueError: for an unknown protocol or signal, or an endpoint that is not an
            http(s) URL.

    Example:
        >>> OtlpSink("http://127.0.0.1:4318", "carrier-pigeon")
        Traceback (most recent call last):
        ...
        ValueError: unknown OTLP protocol 'carrier-pigeon'; use one of: http, grpc
        >>> sink = OtlpSink("http://127.0.0.1:4318/v1/traces", "http", signals=["spans"])
        >>> sink.url("spans"), sink.url("logs"), sink.signals
        ('http://127.0.0.1:4318/v1/traces', 'http://127.0.0.1:4318/v1/logs', ('spans',))
        >>> sink.close()
    """

    def __init__(
        self,
        endpoint: str,
        protocol: str = "http",
        headers: Optional[Mapping[str, str]] = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        phoenix: bool = False,
        signals: Sequence[str] = SIGNALS,
        warn: Optional[Callable[[str], None]] = None,
    ):
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown OTLP protocol {protocol!r}; use one of: {', '.join(PROTOCOLS)}")
        scheme = urlsplit(endpoint).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"OTLP endpoint must be an http:// or https:// URL, got {endpoint!r}")
        self.endpoint = endpoint
        self.protocol = protocol
        self.timeout = timeout
        self.phoenix = phoenix
        self.signals = check_signals(signals)
        #: What :meth:`send_prepared` takes: scores prepared as OTLP protobuf.
        self.encoding = Encoding("protobuf", phoenix, self.signals)
        self._warn = warn or _log.warning
        self._unsupported: dict = {}
        self._lock = threading.Lock()
        self._closed = False
        headers = dict(headers or {})
        if protocol == "http":
            self._transport = HttpTransport(_http_base(endpoint), headers=headers, timeout_s=timeout)
        else:
            self._transport = GrpcTransport(endpoint, headers=headers, timeout_s=timeout)

    def url(self, signal: str) -> str:
        """Where ``signal`` goes (a URL for HTTP, ``host:port/method`` for gRPC)."""
        path, method, _ = _OTLP_ROUTES[signal]
        if isinstance(self._transport, HttpTransport):
            return self._transport.url(path)
        return f"{self._transport.target}{method}"

    def _request(self, signal: str, body: bytes) -> Answer:
        path, method, _ = _OTLP_ROUTES[signal]
        if isinstance(self._transport, HttpTransport):
            return self._transport.post(path, body, "application/x-protobuf")
        return self._transport.call(method, body)

    def _encode(self, signal: str, envelopes: Sequence[ScoreEnvelope]) -> bytes:
        encode_spans, encode_log_records = _encoders()
        if signal == "spans":
            from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as pb

            return pb(encode_spans(envelopes, phoenix=self.phoenix)).SerializeToString()
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        return encode_logs(encode_log_records(envelopes)).SerializeToString()

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Send every chosen signal; per-signal counts, true when nothing failed. Never raises."""
        return self._send(len(envelopes), lambda signal: self._encode(signal, envelopes))

    def send_prepared(self, prepared: Sequence[Prepared]) -> SendResult:
        """Send scores prepared for :attr:`encoding`: the requests :meth:`send` sends for
        their envelopes, byte for byte, framed without encoding anything. Never raises.

        Example:
            >>> sink = OtlpSink("http://127.0.0.1:9", signals=["spans"]); sink.close()
            >>> from ek_otel.emit.prepared import Prepared
            >>> sink.send_prepared([Prepared(b"", b"")]).get("spans").failed
            1
        """
        from .prepared import protobuf_requests

        requests: dict = {}

        def body_of(signal: str) -> bytes:
            if not requests:  # both signals' requests, framed once
                requests.update(protobuf_requests(prepared))
            return requests[signal]

        return self._send(len(prepared), body_of)

    def _send(self, n: int, body_of: Callable[[str], bytes]) -> SendResult:
        """Send ``body_of(signal)`` (the request of ``n`` scores) for every chosen signal."""
        if not n:
            return SendResult()
        if self._closed:
            return _all_failed(self.signals, n, "sink is closed")
        result = SendResult()
        for signal in self.signals:
            if signal in self._unsupported:
                result += SendResult.of(signal, unsupported=n)
                continue
            try:
                body = body_of(signal)
            except Exception as exc:  # noqa: BLE001 - a bug, but the server must go on
                _log.warning("cannot encode the %s of %d scores: %s", signal, n, exc)
                result += SendResult.of(signal, failed=n, retryable=False,
                                        error=f"{signal}: cannot encode: {exc}")
                continue
            answer = retrying(lambda: self._request(signal, body), timeout_s=self.timeout)
            if answer.ok:
                self._check_partial(signal, answer.body)
                result += SendResult.of(signal, sent=n)
            elif answer.outcome == "unsupported":
                self._mark_unsupported(signal, answer)
                result += SendResult.of(signal, unsupported=n)
            else:
                _log.warning("sending the %s of %d scores failed: %s", signal, n, answer.detail)
                result += SendResult.of(signal, failed=n, retryable=answer.retryable,
                                        error=answer.detail)
        return result

    def _mark_unsupported(self, signal: str, answer: Answer) -> None:
        with self._lock:
            first = signal not in self._unsupported
            self._unsupported[signal] = answer.detail
        if first:
            what = _OTLP_ROUTES[signal][2]
            self._warn(f"{self.endpoint} has no OTLP {signal} endpoint ({answer.detail}); "
                       f"the {what} are not sent there (--emit-signals chooses what to send)")

    def _check_partial(self, signal: str, body: bytes) -> None:
        """Log the backend's partial-success answer (spans or records it rejected), if any."""
        if not body:
            return
        try:
            if signal == "spans":
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                    ExportTraceServiceResponse as Response)
                field_name = "rejected_spans"
            else:
                from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
                    ExportLogsServiceResponse as Response)
                field_name = "rejected_log_records"
            response = Response.FromString(body)
        except Exception:  # noqa: BLE001 - not protobuf (some proxies answer text): ignore
            return
        rejected = getattr(response.partial_success, field_name, 0)
        if rejected:
            _log.warning("%s rejected %d of the %s: %s", self.endpoint, rejected, signal,
                         response.partial_success.error_message)

    def close(self) -> None:
        """Close the connections (safe twice)."""
        if self._closed:
            return
        self._closed = True
        self._transport.close()


class MultiSink:
    """Send to several sinks; True only when every one of them succeeded.

    Every sink is tried even after one fails. On a retry all of them get the scores again
    (at least once per sink; the encoding is deterministic, so repeats are identical).

    Example:
        >>> class Broken:
        ...     def send(self, envelopes): return False
        ...     def close(self): pass
        >>> class Fine(Broken):
        ...     def send(self, envelopes): return True
        >>> bool(MultiSink([Fine(), Broken()]).send(["s"])), bool(MultiSink([Fine(), Fine()]).send(["s"]))
        (False, True)
    """

    def __init__(self, sinks: Sequence[Sink]):
        self.sinks = tuple(sinks)

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Send to every sink; their counts merged (true only when no sink failed)."""
        result = SendResult()
        for sink in self.sinks:
            result += SendResult.from_bool(sink.send(envelopes), len(envelopes))
        return result

    def close(self) -> None:
        """Close every sink."""
        for sink in self.sinks:
            sink.close()


def make_sinks(
    *,
    file: Optional[str] = None,
    endpoint: Optional[str] = None,
    protocol: str = "http",
    headers: Optional[Mapping[str, str]] = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    phoenix: bool = False,
    signals: Sequence[str] = SIGNALS,
    phoenix_url: Optional[str] = None,
    phoenix_api_key: Optional[str] = None,
    mlflow_tracking_uri: Optional[str] = None,
    warn: Optional[Callable[[str], None]] = None,
) -> dict:
    """The sinks the emit settings ask for, by name: ``"file"`` (a :class:`FileSink` on
    ``file``), ``"otlp"`` (an :class:`OtlpSink` to ``endpoint``, sending ``signals``),
    ``"phoenix"`` (a :class:`~ek_otel.emit.phoenix.PhoenixSink` to ``phoenix_url``) and
    ``"mlflow"`` (a :class:`~ek_otel.emit.mlflow.MlflowSink` to ``mlflow_tracking_uri``);
    what ``ek-otel serve`` gives one outbox exporter each. ``warn`` gets the one-time
    "this backend has no endpoint for that signal" warnings.

    Raises:
        InputError: an endpoint, protocol, signal or URL that cannot be used.

    Example:
        >>> import os, tempfile
        >>> sinks = make_sinks(file=os.path.join(tempfile.mkdtemp(), "s.jsonl"),
        ...                    phoenix_url="http://127.0.0.1:6006", signals=("spans",))
        >>> sorted(sinks), type(sinks["file"]).__name__, sinks["file"].signals
        (['file', 'phoenix'], 'FileSink', ('spans',))
        >>> make_sinks(endpoint="http://127.0.0.1:4318", protocol="smoke")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: unknown OTLP protocol 'smoke'; use one of: http, grpc
    """
    from ..errors import InputError
    from .mlflow import MlflowSink
    from .phoenix import PhoenixSink

    sinks: dict = {}
    try:
        if file is not None:
            sinks["file"] = FileSink(file, phoenix=phoenix, signals=signals)
        if endpoint is not None:
            sinks["otlp"] = OtlpSink(endpoint, protocol, headers=dict(headers or {}),
                                     timeout=timeout, phoenix=phoenix, signals=signals, warn=warn)
        if phoenix_url is not None:
            sinks["phoenix"] = PhoenixSink(phoenix_url, api_key=phoenix_api_key, timeout=timeout,
                                           warn=warn)
        if mlflow_tracking_uri is not None:
            sinks["mlflow"] = MlflowSink(mlflow_tracking_uri, timeout=timeout, warn=warn)
    except ValueError as exc:
        for sink in sinks.values():
            sink.close()
        raise InputError(str(exc)) from None
    return sinks


def make_sink(**emit) -> Optional[Sink]:
    """One sink for the emit settings of :func:`make_sinks` (a :class:`MultiSink` when there
    are several), or None when there is none: what ``ek-otel score`` uses.

    Example:
        >>> import os, tempfile
        >>> make_sink() is None
        True
        >>> d = tempfile.mkdtemp()
        >>> type(make_sink(file=os.path.join(d, "s.jsonl"), endpoint="http://127.0.0.1:9")).__name__
        'MultiSink'
    """
    sinks = list(make_sinks(**emit).values())
    if not sinks:
        return None
    return sinks[0] if len(sinks) == 1 else MultiSink(sinks)
