"""Score envelopes → OpenTelemetry SDK spans and log records (what the SDK exporters take).

For each :class:`~ek_otel.emit.envelope.ScoreEnvelope`:

- :func:`encode_spans` makes the **evaluation span**: same trace id, parent = the evaluated
  root span, attributes from :func:`~ek_otel.emit.attributes.span_attributes`; and, with
  ``phoenix=True``, an OpenInference **EVALUATOR** span in the same trace, also a child of
  the root, with exactly one Link to it.
- :func:`encode_log_records` makes the ``gen_ai.evaluation.result`` **event**: a log record
  whose ``event_name`` is that and whose trace id / span id are the root span's.

Both carry the resource ``service.name="ek-otel"`` (and ``service.version``), not the
evaluated service's: a backend then shows who wrote the score, and a receiver can tell ek-otel's
output from the agent's. The evaluated service's name is the attribute
``ek.evaluated.service.name``.

Span ids are **derived** from (trace id, root span id, revision), and timestamps come from the
envelope, so encoding the same envelope twice gives the same span: an outbox that retries after
a partial failure re-sends an identical span rather than a duplicate.

**Time.** The spans lie at the evaluated root span's end with zero duration
(:attr:`~ek_otel.emit.envelope.ScoreEnvelope.placed_at_ns`), inside the trace's time window:
a backend that derives a trace's duration from its spans (Jaeger, Tempo, Phoenix, Langfuse)
shows the run's real duration, not the time until it was scored. The event's ``timestamp`` is
the same instant and its ``observed_timestamp`` the scoring time; the scoring time is also the
attribute ``ek.scored_at``.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t1", EpisodeScore("t1", f1=1.0, success=True),
    ...                     ScoreProvenance("0.1.0"), scored_at_ns=1_700_000_000_000_000_000)
    >>> (span,) = encode_spans([env])
    >>> f"{span.context.trace_id:032x}" == env.trace_id, f"{span.parent.span_id:016x}"
    (True, 'cdcdcdcdcdcdcdcd')
    >>> span.name, span.attributes["gen_ai.evaluation.score.label"]
    ('evaluation ek.tool_call', 'pass')
    >>> (record,) = encode_log_records([env])
    >>> record.log_record.event_name, f"{record.log_record.span_id:016x}"
    ('gen_ai.evaluation.result', 'cdcdcdcdcdcdcdcd')
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

from opentelemetry import trace as trace_api
from opentelemetry._logs import LogRecord as ApiLogRecord
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags

from .attributes import (
    EVENT_NAME,
    SCOPE_NAME,
    SERVICE_NAME,
    phoenix_attributes,
    span_attributes,
    event_attributes,
    span_name,
)
from .._version import __version__
from ..core.answer import ANSWER_METRIC
from .envelope import ScoreEnvelope, with_answers

try:  # the SDK renamed its in-memory log exporter in 1.39
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as _MemoryLogExporter
except ImportError:  # pragma: no cover - older SDKs
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as _MemoryLogExporter

__all__ = [
    "EVALUATION_SPAN",
    "PHOENIX_SPAN",
    "ek_resource",
    "derived_span_id",
    "root_span_context",
    "encode_spans",
    "encode_log_records",
]

#: ``kind`` argument of :func:`derived_span_id` for the evaluation span.
EVALUATION_SPAN = "evaluation"
#: ``kind`` argument of :func:`derived_span_id` for the OpenInference EVALUATOR span.
PHOENIX_SPAN = "phoenix"

_SAMPLED = TraceFlags(TraceFlags.SAMPLED)


def _version() -> str:
    return __version__


_RESOURCE: list = []


def ek_resource() -> Resource:
    """The resource of everything ek-otel writes: ``service.name="ek-otel"`` + its version.

    Made once per process (the SDK adds a random ``service.instance.id``; one process is one
    instance).

    Example:
        >>> ek_resource().attributes["service.name"], ek_resource() is ek_resource()
        ('ek-otel', True)
    """
    if not _RESOURCE:
        _RESOURCE.append(
            Resource.create({"service.name": SERVICE_NAME, "service.version": _version()})
        )
    return _RESOURCE[0]


def _scope() -> InstrumentationScope:
    return InstrumentationScope(SCOPE_NAME, _version())


def derived_span_id(trace_id: str, root_span_id: str, revision: int, kind: str) -> int:
    """A span id (non-zero 64-bit int) derived from the score's identity.

    Example:
        >>> a = derived_span_id("ab" * 16, "cd" * 8, 0, EVALUATION_SPAN)
        >>> a == derived_span_id("ab" * 16, "cd" * 8, 0, EVALUATION_SPAN), a != derived_span_id(
        ...     "ab" * 16, "cd" * 8, 1, EVALUATION_SPAN), 0 < a < 2**64
        (True, True, True)
    """
    digest = hashlib.sha256(f"{trace_id}/{root_span_id}/{revision}/{kind}".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1


def root_span_context(envelope: ScoreEnvelope) -> SpanContext:
    """The evaluated root span as a remote, SAMPLED span context (the parent of our spans).

    Without SAMPLED, the SDK's default ParentBased sampler would drop a child of it.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> ctx = root_span_context(ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
        ...                                       ScoreProvenance("0")))
        >>> ctx.is_remote, ctx.trace_flags.sampled
        (True, True)
    """
    return SpanContext(
        trace_id=int(envelope.trace_id, 16),
        span_id=int(envelope.root_span_id, 16),
        is_remote=True,
        trace_flags=_SAMPLED,
    )


def _span(envelope: ScoreEnvelope, kind: str, name: str, attributes: dict, links=()) -> ReadableSpan:
    parent = root_span_context(envelope)
    context = SpanContext(
        trace_id=parent.trace_id,
        span_id=derived_span_id(envelope.trace_id, envelope.root_span_id, envelope.revision, kind),
        is_remote=False,
        trace_flags=_SAMPLED,
    )
    return ReadableSpan(
        name=name,
        context=context,
        parent=parent,
        resource=ek_resource(),
        attributes=attributes,
        links=tuple(links),
        kind=SpanKind.INTERNAL,
        start_time=envelope.placed_at_ns,
        end_time=envelope.placed_at_ns,
        instrumentation_scope=_scope(),
    )


def encode_spans(envelopes: Sequence[ScoreEnvelope], *, phoenix: bool = False) -> list:
    """The SDK spans for ``envelopes``: one evaluation span each (+ an EVALUATOR span).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
        >>> spans = encode_spans([env], phoenix=True)
        >>> [s.attributes.get("openinference.span.kind") for s in spans]
        [None, 'EVALUATOR']
        >>> len(spans[1].links), f"{spans[1].links[0].context.span_id:016x}"
        (1, 'cdcdcdcdcdcdcdcd')
    """
    spans = []
    for envelope in with_answers(envelopes):
        # an answer score's spans get ids of their own (the tool-call score's are unchanged)
        suffix = "" if envelope.score.metric != ANSWER_METRIC else f"/{ANSWER_METRIC}"
        spans.append(_span(envelope, EVALUATION_SPAN + suffix, span_name(envelope),
                           span_attributes(envelope)))
        if phoenix:
            spans.append(
                _span(
                    envelope,
                    PHOENIX_SPAN + suffix,
                    f"evaluator {envelope.score.metric}",
                    phoenix_attributes(envelope),
                    links=[Link(root_span_context(envelope))],
                )
            )
    return spans


class _LogEncoder:
    """A private LoggerProvider whose records land in memory (one per thread of use)."""

    def __init__(self) -> None:
        self.memory = _MemoryLogExporter()
        self.provider = LoggerProvider(resource=ek_resource(), shutdown_on_exit=False)
        self.provider.add_log_record_processor(SimpleLogRecordProcessor(self.memory))
        self.logger = self.provider.get_logger(SCOPE_NAME, _version())
        self.lock = threading.Lock()


_ENCODER: list = []
_ENCODER_LOCK = threading.Lock()


def _log_encoder() -> _LogEncoder:
    with _ENCODER_LOCK:
        if not _ENCODER:
            _ENCODER.append(_LogEncoder())
        return _ENCODER[0]


def encode_log_records(envelopes: Sequence[ScoreEnvelope]) -> list:
    """The SDK log records (``gen_ai.evaluation.result`` events) for ``envelopes``.

    The records are made by the SDK's own Logger, so they have whatever shape this SDK
    version's log exporters take.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t", f1=0.5),
        ...                     ScoreProvenance("0"), scored_at_ns=5)
        >>> (r,) = encode_log_records([env])
        >>> r.log_record.attributes["gen_ai.evaluation.score.value"], r.log_record.timestamp
        (0.5, 5)
    """
    encoder = _log_encoder()
    with encoder.lock:
        encoder.memory.clear()
        for envelope in with_answers(envelopes):
            context = trace_api.set_span_in_context(NonRecordingSpan(root_span_context(envelope)))
            encoder.logger.emit(
                ApiLogRecord(
                    timestamp=envelope.placed_at_ns,
                    observed_timestamp=envelope.scored_at_ns or envelope.placed_at_ns,
                    context=context,
                    event_name=EVENT_NAME,
                    attributes=event_attributes(envelope),
                )
            )
        records = list(encoder.memory.get_finished_logs())
        encoder.memory.clear()
    return records
