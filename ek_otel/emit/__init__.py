"""The emit stage: scores written back into the traces they score.

- :mod:`~ek_otel.emit.envelope`: :class:`ScoreEnvelope`, :class:`ScoreProvenance` (pure; the
  outbox row);
- :mod:`~ek_otel.emit.attributes`: every attribute name and value written back (pure);
- :mod:`~ek_otel.emit.encode`: envelopes → SDK spans and ``gen_ai.evaluation.result`` records;
- :mod:`~ek_otel.emit.otlp_json`: SDK objects → OTLP JSON requests;
- :mod:`~ek_otel.emit.delivery`: :class:`SendResult` (what a send did, per signal) and the
  classification of a backend's answer (sent, unsupported, retry, rejected) (pure);
- :mod:`~ek_otel.emit.transport`: encoded bytes over HTTP (httpx) or gRPC, with the status;
- :mod:`~ek_otel.emit.sinks`: :class:`FileSink`, :class:`OtlpSink`, :class:`ExporterSink`,
  :class:`MultiSink` and :func:`make_sink` / :func:`make_sinks` (what ``score`` and ``serve``
  build from their emit options), imported on first use: they load the OpenTelemetry SDK,
  which the pure modules above do not need;
- :mod:`~ek_otel.emit.phoenix`: :class:`PhoenixSink`, scores as Phoenix span and trace
  annotations;
- :mod:`~ek_otel.emit.mlflow`: :class:`MlflowSink`, scores as MLflow feedback assessments.

What it writes carries :mod:`ek_otel.core.identity`'s names, by which the reader
(:mod:`ek_otel.ingest.own_output`) tells it from the traces it scores.

Example:
    >>> from ek_otel.emit import ScoreEnvelope, FileSink, OtlpSink
    >>> ScoreEnvelope.__name__, FileSink.__name__
    ('ScoreEnvelope', 'FileSink')
"""

from typing import Any

from .delivery import SendResult
from .envelope import ScoreEnvelope, ScoreProvenance

_SINK_NAMES = ("Sink", "FileSink", "ExporterSink", "OtlpSink", "MultiSink", "make_sink", "make_sinks")


def __getattr__(name: str) -> Any:
    """The sinks load the OpenTelemetry SDK, so they are imported on first use only."""
    if name in _SINK_NAMES:
        from . import sinks

        return getattr(sinks, name)
    if name == "PhoenixSink":
        from .phoenix import PhoenixSink

        return PhoenixSink
    if name == "MlflowSink":
        from .mlflow import MlflowSink

        return MlflowSink
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ScoreEnvelope",
    "ScoreProvenance",
    "Sink",
    "FileSink",
    "ExporterSink",
    "OtlpSink",
    "MultiSink",
    "PhoenixSink",
    "MlflowSink",
    "SendResult",
    "make_sink",
    "make_sinks",
]
