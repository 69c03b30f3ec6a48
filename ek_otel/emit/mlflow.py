"""MLflow feedback assessments: each score as an assessment on the MLflow trace of its run.

MLflow (≥ 3.6) ingests OTLP/HTTP traces at ``/v1/traces`` (header ``x-mlflow-experiment-id``),
and names the trace of OTel trace id ``T`` (32 hex) ``tr-T``. So a score can be written where
MLflow users look, as a **feedback assessment** on that trace (REST API 3.0):

- ``GET  /api/3.0/mlflow/traces/tr-T``: the trace and its assessments (404 while MLflow does
  not have the trace: retried with backoff, as its spans may still be on their way);
- ``PATCH /api/3.0/mlflow/traces/tr-T/assessments/ID`` when ek-otel already wrote one (same
  name, source ``CODE``/``ek-otel``): a re-score **updates** it;
- ``POST /api/3.0/mlflow/traces/tr-T/assessments`` otherwise.

The assessment: name ``ek.<metric>``, source ``{source_type: CODE, source_id: ek-otel}``,
``feedback.value`` the score (F1), ``rationale`` the explanation, ``span_id`` the run's root
span, ``metadata`` the label, counts, cost, dollars and provenance (MLflow takes strings only:
other values are JSON). MLflow has no batch call for assessments: one request (two with the
lookup) per score. 5xx and connection errors are retried within ``timeout``; a server without
this API (404 that is not "trace not found", 405, 501) is reported once, ``unsupported``.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> a = assessment(ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t", f1=0.5),
    ...                              ScoreProvenance("0.1.0")))
    >>> a["trace_id"], a["feedback"], a["source"]["source_id"], a["metadata"]["label"]
    ('tr-abababababababababababababababab', {'value': 0.5}, 'ek-otel', 'fail')
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Optional
from urllib.parse import urlsplit

from .attributes import annotation_metadata, evaluation_name, explanation, score_value
from .delivery import Answer, SendResult, retrying
from .envelope import EVALUATOR_NAME, ScoreEnvelope, answer_envelope
from .transport import HttpTransport

__all__ = ["MlflowSink", "assessment", "mlflow_trace_id"]

_log = logging.getLogger(__name__)

SIGNAL = "assessments"
_API = "/api/3.0/mlflow/traces"
_NOT_FOUND = "RESOURCE_DOES_NOT_EXIST"


def mlflow_trace_id(trace_id: str) -> str:
    """The MLflow trace id of an OTel trace id (what MLflow's OTLP endpoint names it).

    Example:
        >>> mlflow_trace_id("0af7651916cd43dd8448eb211c80319c")
        'tr-0af7651916cd43dd8448eb211c80319c'
    """
    return f"tr-{trace_id}"


def assessment(envelope: ScoreEnvelope) -> dict:
    """The feedback assessment of one score (REST API 3.0 shape).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> a = assessment(ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t", tp=1.0),
        ...                              ScoreProvenance("0")))
        >>> a["assessment_name"], a["span_id"], a["metadata"]["tp"], a["metadata"]["cost"][:15]
        ('ek.tool_call', 'cdcdcdcdcdcdcdcd', '1.0', '{"input_tokens"')
    """
    score = envelope.score
    metadata = {"label": score.label, **annotation_metadata(envelope)}
    return {
        "assessment_name": evaluation_name(score),
        "trace_id": mlflow_trace_id(envelope.trace_id),
        "span_id": envelope.root_span_id,
        "source": {"source_type": "CODE", "source_id": EVALUATOR_NAME},
        "feedback": {"value": score_value(score)},
        "rationale": explanation(score),
        "metadata": {key: value if isinstance(value, str) else json.dumps(value)
                     for key, value in metadata.items()},
    }


class MlflowSink:
    """Write scores as MLflow feedback assessments (see the module doc).

    Args:
        tracking_uri: The MLflow tracking server (``http://127.0.0.1:5000``).
        headers: Extra request headers (e.g. ``authorization``).
        timeout: Seconds one send may take, retries and waiting for missing traces included.
        warn: Where the one-time "no such API" warning goes.

    Raises:
        ValueError: for a URI that is not http(s).

    Example:
        >>> MlflowSink("databricks")
        Traceback (most recent call last):
        ...
        ValueError: --mlflow-tracking-uri must be an http:// or https:// URL, got 'databricks'
        >>> sink = MlflowSink("http://127.0.0.1:5000")
        >>> sink.signals, bool(sink.send([]))
        (('assessments',), True)
        >>> sink.close()
    """

    signals = (SIGNAL,)

    def __init__(self, tracking_uri: str, *, headers: Optional[Mapping[str, str]] = None,
                 timeout: float = 10.0, warn: Optional[Callable[[str], None]] = None):
        if urlsplit(tracking_uri).scheme not in ("http", "https"):
            raise ValueError("--mlflow-tracking-uri must be an http:// or https:// URL, "
                             f"got {tracking_uri!r}")
        self.url = tracking_uri.rstrip("/")
        self.timeout = timeout
        self._http = HttpTransport(self.url, headers=headers, timeout_s=timeout)
        self._warn = warn or _log.warning
        self._unsupported: Optional[str] = None
        self._lock = threading.Lock()
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Create or update the assessment of each score. Never raises."""
        n = len(envelopes)
        if not envelopes:
            return SendResult()
        if self._closed or self._unsupported:
            closed = self._closed
            return SendResult.of(SIGNAL, failed=n if closed else 0,
                                 unsupported=0 if closed else n,
                                 error="MLflow sink is closed" if closed else None)
        latest = {}
        for envelope in envelopes:  # the newest score of a trace wins
            latest[envelope.trace_id] = envelope
        deadline = time.monotonic() + self.timeout
        waiting = list(latest.values())
        failed: dict = {}  # trace id -> (error, retryable)
        unknown: set = set()  # trace ids MLflow says it does not have
        attempt = 0
        while waiting:
            missing = []
            for envelope in waiting:
                answer = self._upsert_with_answer(envelope, deadline)
                if answer.ok:
                    continue
                if answer.outcome == "missing":
                    missing.append(envelope)
                elif answer.outcome == "unsupported":
                    self._mark_unsupported(answer)
                    return SendResult.of(SIGNAL, unsupported=n)
                else:
                    failed[envelope.trace_id] = (answer.detail, answer.retryable)
            delay = min(8.0, 0.5 * 2 ** attempt) * random.uniform(0.8, 1.2)
            attempt += 1
            if missing and time.monotonic() + delay > deadline:
                for envelope in missing:
                    failed[envelope.trace_id] = (
                        f"MLflow {self.url} has no trace {mlflow_trace_id(envelope.trace_id)} "
                        "(yet): are the traces sent to this MLflow?", True)
                    unknown.add(envelope.trace_id)
                break
            if missing:
                time.sleep(delay)
            waiting = missing
        keys = tuple(sorted(e.key for e in envelopes if e.trace_id in failed))
        errors = tuple(dict.fromkeys(error for error, _ in failed.values()))
        retryable = all(can for _, can in failed.values())
        counted = SendResult.of(SIGNAL, sent=n - len(keys), failed=len(keys))
        return SendResult(counted.counts, retryable, errors, keys,
                          tuple(e.key for e in envelopes if e.trace_id in unknown))

    def _upsert_with_answer(self, envelope: ScoreEnvelope, deadline: float) -> Answer:
        """The score's assessment, then its answer score's (``ek.answer``) when expected."""
        answer = self._upsert(envelope, deadline)
        extra = answer_envelope(envelope) if answer.ok else None
        return self._upsert(extra, deadline) if extra is not None else answer

    def _upsert(self, envelope: ScoreEnvelope, deadline: float) -> Answer:
        """GET the trace, then PATCH our assessment or POST a new one; outcome ``"missing"``
        when MLflow does not have the trace."""
        trace = mlflow_trace_id(envelope.trace_id)
        body = assessment(envelope)
        remaining = max(0.0, deadline - time.monotonic())
        got = retrying(lambda: self._http.request("GET", f"{_API}/{trace}"), timeout_s=remaining)
        if not got.ok:
            return self._classify(got)
        existing = self._ours(got.body, body["assessment_name"])
        if existing:
            update = {"assessment": {**body, "assessment_id": existing},
                      "update_mask": "feedback,rationale,metadata,span_id"}
            answer = retrying(lambda: self._http.request(
                "PATCH", f"{_API}/{trace}/assessments/{existing}", json=update),
                timeout_s=max(0.0, deadline - time.monotonic()))
        else:
            answer = retrying(lambda: self._http.request(
                "POST", f"{_API}/{trace}/assessments", json={"assessment": body}),
                timeout_s=max(0.0, deadline - time.monotonic()))
        return answer if answer.ok else self._classify(answer)

    @staticmethod
    def _classify(answer: Answer) -> Answer:
        if answer.detail.startswith("HTTP 404") and _NOT_FOUND.encode() in answer.body:
            return Answer("missing", answer.detail, answer.body)
        return answer

    @staticmethod
    def _ours(body: bytes, name: str) -> Optional[str]:
        """The id of the valid assessment ek-otel wrote under ``name``, if any."""
        try:
            info = json.loads(body)["trace"]["trace_info"]
        except (ValueError, KeyError, TypeError):
            return None
        for item in info.get("assessments") or ():
            source = item.get("source") or {}
            if (item.get("assessment_name") == name and source.get("source_id") == EVALUATOR_NAME
                    and item.get("valid", True) is not False):
                return item.get("assessment_id")
        return None

    def _mark_unsupported(self, answer: Answer) -> None:
        with self._lock:
            first = self._unsupported is None
            self._unsupported = answer.detail
        if first:
            self._warn(f"MLflow {self.url} has no assessments API ({answer.detail}); "
                       "scores are not written there as assessments (MLflow 3 has it)")

    def close(self) -> None:
        """Close the connection pool (safe twice)."""
        if self._closed:
            return
        self._closed = True
        self._http.close()
