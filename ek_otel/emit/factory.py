"""Build the sinks ``ek-otel score`` and ``ek-otel serve`` write scores to, from their options.

One place turns ``--emit-file``, ``--emit-endpoint`` (+ protocol, headers, timeout,
``--emit-signals``, ``--phoenix``), ``--phoenix-url`` (+ API key) and
``--mlflow-tracking-uri`` into named sinks:
``"file"`` (:class:`~ek_otel.emit.sinks.FileSink`), ``"otlp"``
(:class:`~ek_otel.emit.sinks.OtlpSink`), ``"phoenix"``
(:class:`~ek_otel.emit.phoenix.PhoenixSink`) and ``"mlflow"``
(:class:`~ek_otel.emit.mlflow.MlflowSink`). ``score`` sends to all of them at once
(:class:`~ek_otel.emit.sinks.MultiSink`); ``serve`` gives each its own durable outbox.

Example:
    >>> sinks = make_sinks(EmitSettings(endpoint="http://127.0.0.1:4318", signals=("spans",),
    ...                                 phoenix_url="http://127.0.0.1:6006"))
    >>> sorted(sinks), sinks["otlp"][0].signals, sinks["phoenix"][1]
    (['otlp', 'phoenix'], ('spans',), None)
    >>> for sink, _ in sinks.values(): sink.close()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["EmitSettings", "make_sinks"]


@dataclass(frozen=True)
class EmitSettings:
    """Where scores are written back (see the ``--emit-*`` and ``--phoenix*`` options).

    Example:
        >>> EmitSettings().any, EmitSettings(emit_file="s.jsonl").any
        (False, True)
    """

    emit_file: Optional[str] = None
    endpoint: Optional[str] = None
    protocol: str = "http"
    headers: tuple = ()
    timeout_s: float = 10.0
    signals: tuple = ("spans", "logs")
    phoenix: bool = False
    phoenix_url: Optional[str] = None
    phoenix_api_key: Optional[str] = field(default=None, repr=False)
    mlflow_tracking_uri: Optional[str] = None

    @property
    def any(self) -> bool:
        """True when scores go anywhere."""
        return bool(self.emit_file or self.endpoint or self.phoenix_url
                    or self.mlflow_tracking_uri)


def make_sinks(settings: EmitSettings, *,
               warn: Optional[Callable[[str], None]] = None) -> dict:
    """``{name: (sink, file path or None)}`` for ``settings`` (empty when nothing is set).

    Raises:
        ValueError: for an endpoint, protocol, signal or URL that cannot be used.
    """
    from .mlflow import MlflowSink
    from .phoenix import PhoenixSink
    from .sinks import FileSink, OtlpSink

    sinks: dict = {}
    try:
        if settings.emit_file:
            sinks["file"] = (FileSink(settings.emit_file, phoenix=settings.phoenix,
                                      signals=settings.signals), settings.emit_file)
        if settings.endpoint:
            sinks["otlp"] = (OtlpSink(settings.endpoint, settings.protocol,
                                      headers=dict(settings.headers), timeout=settings.timeout_s,
                                      phoenix=settings.phoenix, signals=settings.signals,
                                      warn=warn), None)
        if settings.phoenix_url:
            sinks["phoenix"] = (PhoenixSink(settings.phoenix_url,
                                            api_key=settings.phoenix_api_key,
                                            timeout=settings.timeout_s, warn=warn), None)
        if settings.mlflow_tracking_uri:
            sinks["mlflow"] = (MlflowSink(settings.mlflow_tracking_uri,
                                          timeout=settings.timeout_s, warn=warn), None)
    except ValueError:
        for sink, _ in sinks.values():
            sink.close()
        raise
    return sinks
