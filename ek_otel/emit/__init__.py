"""The emit stage: scores written back into the traces they score.

- :mod:`~ek_otel.emit.envelope`: :class:`ScoreEnvelope`, :class:`ScoreProvenance` (pure; the
  outbox row);
- :mod:`~ek_otel.emit.attributes`: every attribute name and value written back (pure);
- :mod:`~ek_otel.emit.encode`: envelopes → SDK spans and ``gen_ai.evaluation.result`` records;
- :mod:`~ek_otel.emit.otlp_json`: SDK objects → OTLP JSON requests;
- :mod:`~ek_otel.emit.sinks`: :class:`FileSink`, :class:`OtlpSink`, :class:`ExporterSink`,
  :class:`MultiSink`.

Example:
    >>> from ek_otel.emit import ScoreEnvelope, FileSink, OtlpSink
    >>> ScoreEnvelope.__name__, FileSink.__name__
    ('ScoreEnvelope', 'FileSink')
"""

from .envelope import ScoreEnvelope, ScoreProvenance
from .sinks import ExporterSink, FileSink, MultiSink, OtlpSink, Sink

__all__ = [
    "ScoreEnvelope",
    "ScoreProvenance",
    "Sink",
    "FileSink",
    "ExporterSink",
    "OtlpSink",
    "MultiSink",
]
