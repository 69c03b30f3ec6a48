"""Where scores go: an OTLP JSON Lines file, an OTLP endpoint (HTTP or gRPC), or several.

Every sink has two methods:

- ``send(envelopes) -> bool``: write the evaluation spans and ``gen_ai.evaluation.result``
  events of the envelopes; True **only** when everything was written, so that the live
  server's outbox keeps the envelopes and retries otherwise. A sink never raises for a
  failed export: it logs and returns False.
- ``close()``: release the file or the exporters. Calling it twice is harmless.

Sinks: :class:`FileSink` (OTLP JSON Lines: one ``ExportTraceServiceRequest`` and one
``ExportLogsServiceRequest`` per line, readable by :func:`ek_otel.ingest.dumps.read_dump`),
:class:`ExporterSink` (any pair of SDK span/log exporters, e.g. the in-memory ones in tests),
:class:`OtlpSink` (the SDK's OTLP exporters) and :class:`MultiSink`.

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
    >>> sink.send([env]), sink.send([])
    (True, True)
    >>> sink.close(); sink.close()
    >>> len(open(path).read().splitlines())   # one traces line + one logs line
    2
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Optional, Protocol
from urllib.parse import urlsplit

from .encode import encode_log_records, encode_spans
from .envelope import ScoreEnvelope
from .otlp_json import request_lines

__all__ = [
    "PROTOCOLS",
    "DEFAULT_TIMEOUT_S",
    "Sink",
    "FileSink",
    "ExporterSink",
    "OtlpSink",
    "MultiSink",
    "make_sinks",
    "make_sink",
]

_log = logging.getLogger(__name__)

#: The OTLP transports :class:`OtlpSink` speaks.
PROTOCOLS = ("http", "grpc")
#: Default time an OTLP export may take, retries included (seconds).
DEFAULT_TIMEOUT_S = 10.0


class Sink(Protocol):
    """What the pipeline and the outbox write scores to."""

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> bool:
        """Write the scores; True only when all of them were written."""

    def close(self) -> None:
        """Release resources; safe to call twice."""


class FileSink:
    """Append scores to an OTLP JSON Lines file (flushed and fsynced on every send).

    Args:
        path: The file; created if missing, appended to otherwise.
        phoenix: Also write the OpenInference EVALUATOR span of each score.

    Example:
        >>> sink = FileSink("scores.jsonl", phoenix=True)
        >>> sink.path, sink.phoenix, sink.send([])   # nothing to send: the file is not created
        ('scores.jsonl', True, True)
    """

    def __init__(self, path: str, *, phoenix: bool = False):
        self.path = str(path)
        self.phoenix = phoenix
        self._file = None
        self._lock = threading.Lock()
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> bool:
        """Append the trace and logs requests of ``envelopes``; False when the write failed.

        Example:
            >>> import tempfile, os
            >>> d = tempfile.mkdtemp(); os.mkdir(os.path.join(d, "x.jsonl"))
            >>> from ek_otel.core.scores import EpisodeScore
            >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
            >>> FileSink(os.path.join(d, "x.jsonl")).send([env])     # a directory: cannot write
            False
        """
        if not envelopes:
            return True
        lines = request_lines(encode_spans(envelopes, phoenix=self.phoenix), encode_log_records(envelopes))
        text = "".join(line + "\n" for line in lines)
        with self._lock:
            if self._closed:
                _log.warning("FileSink %s is closed; %d scores not written", self.path, len(envelopes))
                return False
            try:
                if self._file is None:
                    self._file = open(self.path, "a", encoding="utf-8")
                self._file.write(text)
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as exc:
                _log.warning("cannot write scores to %s: %s", self.path, exc)
                return False
        return True

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._closed = True
            if self._file is not None:
                self._file.close()
                self._file = None


def _succeeded(result) -> bool:
    return getattr(result, "name", "") == "SUCCESS"


class ExporterSink:
    """Send scores through an SDK span exporter and an SDK log exporter.

    Args:
        span_exporter: Any ``SpanExporter`` (OTLP, in-memory, console, ...).
        log_exporter: Any log record exporter of the same SDK.
        phoenix: Also send the OpenInference EVALUATOR span of each score.

    Example:
        >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        >>> from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
        >>> sink = ExporterSink(spans, logs)
        >>> sink.send([ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
        ...                          ScoreProvenance("0"))])
        True
        >>> len(spans.get_finished_spans()), len(logs.get_finished_logs())
        (1, 1)
    """

    def __init__(self, span_exporter, log_exporter, *, phoenix: bool = False):
        self.span_exporter = span_exporter
        self.log_exporter = log_exporter
        self.phoenix = phoenix
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> bool:
        """Export spans, then events; True only when both exports succeeded."""
        if not envelopes:
            return True
        if self._closed:
            _log.warning("sink is closed; %d scores not sent", len(envelopes))
            return False
        try:
            spans_ok = _succeeded(self.span_exporter.export(encode_spans(envelopes, phoenix=self.phoenix)))
            logs_ok = _succeeded(self.log_exporter.export(encode_log_records(envelopes)))
        except Exception as exc:  # an exporter must not take the server down
            _log.warning("exporting %d scores failed: %s", len(envelopes), exc)
            return False
        if not (spans_ok and logs_ok):
            _log.warning(
                "exporting %d scores failed (spans %s, events %s)",
                len(envelopes),
                "ok" if spans_ok else "failed",
                "ok" if logs_ok else "failed",
            )
        return spans_ok and logs_ok

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


def _http_base(endpoint: str) -> str:
    base = endpoint.rstrip("/")
    for suffix in ("/v1/traces", "/v1/logs"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


class OtlpSink(ExporterSink):
    """Send scores to an OTLP endpoint with the SDK's OTLP exporters.

    Args:
        endpoint: For ``http``, the base URL (``http://host:4318``; ``/v1/traces`` and
            ``/v1/logs`` are appended; a URL already ending in one of them is accepted).
            For ``grpc``, ``http://host:4317`` (plaintext) or ``https://host:4317`` (TLS).
        protocol: ``"http"`` (OTLP/HTTP protobuf) or ``"grpc"``.
        headers: Extra request headers / metadata (e.g. an ``authorization`` token).
        timeout: Seconds one export may take, the exporters' own retries included.
        phoenix: Also send the OpenInference EVALUATOR span of each score.

    Raises:
        ValueError: for an unknown protocol or an endpoint that is not an http(s) URL.

    Example:
        >>> OtlpSink("http://127.0.0.1:4318", "carrier-pigeon")
        Traceback (most recent call last):
        ...
        ValueError: unknown OTLP protocol 'carrier-pigeon'; use one of: http, grpc
        >>> sink = OtlpSink("http://127.0.0.1:4318/v1/traces", "http")
        >>> sink.span_exporter._endpoint, sink.log_exporter._endpoint
        ('http://127.0.0.1:4318/v1/traces', 'http://127.0.0.1:4318/v1/logs')
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
    ):
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown OTLP protocol {protocol!r}; use one of: {', '.join(PROTOCOLS)}")
        scheme = urlsplit(endpoint).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"OTLP endpoint must be an http:// or https:// URL, got {endpoint!r}")
        self.endpoint = endpoint
        self.protocol = protocol
        headers = dict(headers or {})
        if protocol == "http":
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            base = _http_base(endpoint)
            span_exporter = OTLPSpanExporter(endpoint=f"{base}/v1/traces", headers=headers, timeout=timeout)
            log_exporter = OTLPLogExporter(endpoint=f"{base}/v1/logs", headers=headers, timeout=timeout)
        else:
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            insecure = scheme == "http"
            span_exporter = OTLPSpanExporter(
                endpoint=endpoint, insecure=insecure, headers=headers, timeout=timeout
            )
            log_exporter = OTLPLogExporter(
                endpoint=endpoint, insecure=insecure, headers=headers, timeout=timeout
            )
        super().__init__(span_exporter, log_exporter, phoenix=phoenix)


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
        >>> MultiSink([Fine(), Broken()]).send([]), MultiSink([Fine(), Fine()]).send([])
        (False, True)
    """

    def __init__(self, sinks: Sequence[Sink]):
        self.sinks = tuple(sinks)

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> bool:
        """Send to every sink."""
        results = [sink.send(envelopes) for sink in self.sinks]
        return all(results)

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
) -> dict:
    """The sinks the emit settings ask for, by name: ``"file"`` (a :class:`FileSink` on
    ``file``) and ``"otlp"`` (an :class:`OtlpSink` to ``endpoint``); what ``ek-otel serve``
    gives one outbox exporter each.

    Raises:
        InputError: an endpoint or protocol that cannot be used.

    Example:
        >>> import os, tempfile
        >>> sinks = make_sinks(file=os.path.join(tempfile.mkdtemp(), "s.jsonl"))
        >>> sorted(sinks), type(sinks["file"]).__name__
        (['file'], 'FileSink')
        >>> make_sinks(endpoint="http://127.0.0.1:4318", protocol="smoke")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: unknown OTLP protocol 'smoke'; use one of: http, grpc
    """
    from ..errors import InputError

    sinks: dict = {}
    if file is not None:
        sinks["file"] = FileSink(file, phoenix=phoenix)
    if endpoint is not None:
        try:
            sinks["otlp"] = OtlpSink(endpoint, protocol, headers=dict(headers or {}),
                                     timeout=timeout, phoenix=phoenix)
        except ValueError as exc:
            for sink in sinks.values():
                sink.close()
            raise InputError(str(exc)) from None
    return sinks


def make_sink(**emit) -> Optional[Sink]:
    """One sink for the emit settings of :func:`make_sinks` (a :class:`MultiSink` when both
    a file and an endpoint are given), or None when neither is: what ``ek-otel score`` uses.

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
