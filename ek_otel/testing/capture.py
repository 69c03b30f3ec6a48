"""In-process capture of the spans and log records an application makes, for tests.

:func:`install` (once per process, idempotent) puts one span processor and one log record
processor on the OpenTelemetry SDK, **without replacing anything the application set up**:

- the global tracer (logger) provider, when it is an SDK provider, gets the processor added;
  when none is set, an SDK provider is set (``Resource.create()``: the ``OTEL_*`` resource
  variables apply);
- every other SDK provider alive at that moment (an application may pass its own provider
  to an instrumentor without making it global) and every one made afterwards gets it too.

The processors forward each ended span and each emitted log record to the **current**
:class:`Capture` (none: they are dropped), whatever thread or asyncio task made them. A
capture holds the SDK's own in-memory exporters (``InMemorySpanExporter``,
``InMemoryLogRecordExporter`` behind ``SimpleSpanProcessor``/``SimpleLogRecordProcessor``).
:meth:`Capture.episodes` encodes what it holds with the SDK's OTLP protobuf encoders and reads
the bodies back through :func:`ek_otel.ingest.otlp.decode` and
:func:`ek_otel.pipeline.episodes_of_records`: the episodes ``ek-otel episodes`` reads from a
dump of the same records (:meth:`Capture.write_dump` writes that dump).

Example:
    >>> from opentelemetry import trace
    >>> install()
    >>> with Capture() as capture:
    ...     with trace.get_tracer("app").start_as_current_span("task", attributes={"ek.task.id": "t1"}):
    ...         pass
    >>> [e.task_id for e in capture.episodes()], len(capture.spans())
    (['t1'], 1)
    >>> uninstall()
"""

from __future__ import annotations

import functools
import gc
import os
import threading
import weakref
from typing import Any, Optional, Sequence

from opentelemetry import _logs, trace
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ..core.episode import Episode
from ..ingest.bad_input import BadInputReport
from ..ingest.otlp import decode
from ..ingest.records import Origin
from ..ingest.semconv import DEFAULT_TASK_ID_KEYS

__all__ = ["Capture", "install", "uninstall", "installed", "current", "DUMP_FILES"]

#: The files :meth:`Capture.write_dump` writes (what ``ek-otel episodes`` reads back).
DUMP_FILES = ("traces.pb", "logs.pb")

_lock = threading.Lock()
_current: Optional["Capture"] = None


class Capture:
    """The spans and log records of one test (or one trial of it), in the SDK's in-memory
    exporters. A context manager: inside it, this capture is the current one.

    Example:
        >>> with Capture() as c:
        ...     current() is c
        True
        >>> current() is None, c.spans(), c.episodes()
        (True, (), [])
    """

    def __init__(self, source: str = "test") -> None:
        self.source = source
        self.span_exporter = InMemorySpanExporter()
        self.log_exporter = InMemoryLogRecordExporter()
        self._span_processor = SimpleSpanProcessor(self.span_exporter)
        self._log_processor = SimpleLogRecordProcessor(self.log_exporter)
        self._previous: Optional[Capture] = None

    def __enter__(self) -> "Capture":
        global _current
        with _lock:
            self._previous, _current = _current, self
        return self

    def __exit__(self, *_exc: Any) -> None:
        global _current
        with _lock:
            if _current is self:
                _current = self._previous

    def spans(self) -> tuple:
        """The spans ended so far (SDK ``ReadableSpan`` s, in the order they ended)."""
        return tuple(self.span_exporter.get_finished_spans())

    def logs(self) -> tuple:
        """The log records emitted so far (SDK ``ReadableLogRecord`` s)."""
        return tuple(self.log_exporter.get_finished_logs())

    def bodies(self) -> tuple:
        """``(traces, logs)``: the OTLP protobuf request bodies of what was captured, made by
        the SDK's own encoders (an empty body when there is nothing of a signal)."""
        spans, logs = self.spans(), self.logs()
        traces_body = encode_spans(spans).SerializeToString() if spans else b""
        logs_body = encode_logs(logs).SerializeToString() if logs else b""
        return traces_body, logs_body

    def records(self, report: BadInputReport) -> list:
        """The decoded span and log records, through ek-otel's one OTLP decoder, as a dump
        of :meth:`bodies` is read."""
        records: list = []
        for name, body in zip(DUMP_FILES, self.bodies()):
            if body:
                records.extend(decode(body, origin=Origin(f"{self.source} ({name})"),
                                      report=report, strict=False))
        return records

    def episodes(self, *, group_by: str = "trace",
                 task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
                 report: Optional[BadInputReport] = None) -> list:
        """The episodes of what was captured: the same steps as ``ek-otel episodes`` on a
        dump of it (``provenance.source`` is this capture's ``source``)."""
        from ..pipeline import episodes_of_records

        report = report if report is not None else BadInputReport()
        return list(episodes_of_records(self.records(report), report=report, group_by=group_by,
                                        task_id_keys=task_id_keys, source=self.source))

    def write_dump(self, directory: str) -> list:
        """Write the captured records as ``traces.pb`` and ``logs.pb`` (OTLP protobuf, the
        SDK's encoders) under ``directory``; returns the paths written (a signal with no
        record writes no file)."""
        os.makedirs(directory, exist_ok=True)
        paths = []
        for name, body in zip(DUMP_FILES, self.bodies()):
            if body:
                path = os.path.join(directory, name)
                with open(path, "wb") as out:
                    out.write(body)
                paths.append(path)
        return paths

    def clear(self) -> None:
        """Forget what was captured so far."""
        self.span_exporter.clear()
        self.log_exporter.clear()


def current() -> Optional[Capture]:
    """The capture that receives spans now, or None."""
    return _current


class _SpanRouter(SpanProcessor):
    """Hands each ended span to the current capture."""

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        return None

    def on_end(self, span: Any) -> None:
        capture = _current
        if capture is not None:
            capture._span_processor.on_end(span)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _LogRouter(LogRecordProcessor):
    """Hands each emitted log record to the current capture."""

    def on_emit(self, log_record: Any) -> None:
        capture = _current
        if capture is not None:
            capture._log_processor.on_emit(log_record)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


_SPAN_ROUTER = _SpanRouter()
_LOG_ROUTER = _LogRouter()
# Every provider the routers were added to (once each, across installations).
_attached_tracers: "weakref.WeakSet" = weakref.WeakSet()
_attached_loggers: "weakref.WeakSet" = weakref.WeakSet()


def _attach_tracer(provider: Any) -> None:
    if isinstance(provider, TracerProvider) and provider not in _attached_tracers:
        _attached_tracers.add(provider)
        provider.add_span_processor(_SPAN_ROUTER)


def _attach_logger(provider: Any) -> None:
    if isinstance(provider, LoggerProvider) and provider not in _attached_loggers:
        _attached_loggers.add(provider)
        provider.add_log_record_processor(_LOG_ROUTER)


def _no_global(provider: Any, proxy_class: Any) -> bool:
    return isinstance(provider, proxy_class)


# the original constructors while installed (None: not installed)
_originals: Optional[dict] = None


def installed() -> bool:
    """Whether :func:`install` has run (and :func:`uninstall` not since).

    Example:
        >>> install(); installed()
        True
        >>> uninstall()
    """
    return _originals is not None


def install() -> None:
    """Put the capture processors on the SDK (see the module doc); a second call does nothing.

    Example:
        >>> install(); install()
        >>> from opentelemetry import trace
        >>> from opentelemetry.sdk.trace import TracerProvider
        >>> isinstance(trace.get_tracer_provider(), TracerProvider)
        True
        >>> uninstall()
    """
    global _originals
    from opentelemetry._logs._internal import ProxyLoggerProvider

    with _lock:
        if _originals is not None:
            return
        _originals = {}
        if _no_global(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            trace.set_tracer_provider(TracerProvider(resource=Resource.create()))
        _attach_tracer(trace.get_tracer_provider())
        if _no_global(_logs.get_logger_provider(), ProxyLoggerProvider):
            _logs.set_logger_provider(LoggerProvider(resource=Resource.create()))
        _attach_logger(_logs.get_logger_provider())
        for provider in _live_providers():
            _attach_tracer(provider)
            _attach_logger(provider)
        for cls, attach in ((TracerProvider, _attach_tracer), (LoggerProvider, _attach_logger)):
            _originals[cls] = original = cls.__dict__["__init__"]
            cls.__init__ = _attaching_init(original, attach)


def _live_providers() -> list:
    """The SDK providers alive now (an application may make one without making it global).

    By the exact type of each object the GC tracks, one ``issubclass`` per type: never
    ``isinstance`` on an object, whose ``__class__`` may be a lazy proxy's property.
    """
    kinds: dict = {}
    found = []
    for obj in gc.get_objects():
        cls = type(obj)
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = issubclass(cls, (TracerProvider, LoggerProvider))
        if kind:
            found.append(obj)
    return found


def _attaching_init(original: Any, attach: Any) -> Any:
    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        attach(self)

    return __init__


def uninstall() -> None:
    """Stop attaching to new providers (the processors already added stay: the SDK cannot
    remove one, and with no current capture they drop everything).

    Example:
        >>> install(); uninstall(); installed()
        False
    """
    global _originals
    with _lock:
        originals, _originals = _originals, None
        for cls, original in (originals or {}).items():
            cls.__init__ = original
