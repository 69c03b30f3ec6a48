"""Phoenix annotations: each score as a span annotation on the run's root and a trace annotation.

Arize Phoenix (≥ 20) shows annotations as columns of its traces and spans tables, score chips,
filters and an "annotation scores" chart; spans it treats as plain spans. So, besides the OTLP
write-back, :class:`PhoenixSink` posts each score through Phoenix's REST API:

- ``POST /v1/span_annotations?sync=true``: on the evaluated root span;
- ``POST /v1/trace_annotations?sync=true``: on its trace;

each with name ``ek.<metric>`` (``ek.tool_call``), annotator kind ``CODE``, result
``{score, label, explanation}`` (:func:`annotation`), and metadata (tp/fp/fn, cost, dollars,
provenance: :func:`~ek_otel.emit.attributes.annotation_metadata`).

**Upsert, not append.** Phoenix keeps one annotation per (name, span or trace, identifier). The
identifier is the evaluator's name (``ek-otel``), the same for every revision, so a re-score
replaces the annotation instead of adding one; a re-sent batch is harmless.

**Synchronous, so nothing is dropped.** With ``sync=true`` Phoenix answers 404 naming the spans
or traces it does not have (yet): those are retried with backoff (their traces may still be on
their way) and the rest is written at once. In ``serve`` a score still unwritten when the send
times out stays in the durable outbox and is tried again later, until ``--export-give-up``
after its first failure (the result's ``unknown_keys`` name such scores). Phoenix's default asynchronous
mode would answer 200 and drop an annotation whose span never arrives, or is lost on a restart.

**Errors.** 5xx, 408/429 and connection errors are retried with backoff within ``timeout``;
an endpoint Phoenix does not have (an older Phoenix: 404 without "do not exist", 405, 501) is
reported once and counted ``unsupported``; 401/403 (a missing or wrong API key) fail.

The HTTP client is httpx (sync, pooled; already what the OTLP sink uses), rather than the
``arize-phoenix-client`` package: that client pulls in pydantic-era dependencies and offers
no access to the HTTP status this sink needs to tell "not yet" from "never".

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t", f1=1.0, success=True),
    ...                     ScoreProvenance("0.1.0"))
    >>> a = annotation(env)
    >>> a["name"], a["annotator_kind"], a["identifier"], a["result"]["label"]
    ('ek.tool_call', 'CODE', 'ek-otel', 'pass')
"""

from __future__ import annotations

import logging
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Optional
from urllib.parse import urlsplit

from .attributes import annotation_metadata, evaluation_name, explanation, score_value
from .delivery import Answer, SendResult
from .envelope import EVALUATOR_NAME, ScoreEnvelope, with_answers
from .transport import HttpTransport

__all__ = ["PhoenixSink", "ANNOTATION_KINDS", "annotation", "DEFAULT_CHUNK"]

_log = logging.getLogger(__name__)

#: Annotation kinds written: signal name -> (REST path, id field, id length in hex).
ANNOTATION_KINDS = {
    "span_annotations": ("/v1/span_annotations", "span_id", 16),
    "trace_annotations": ("/v1/trace_annotations", "trace_id", 32),
}
#: Annotations per request.
DEFAULT_CHUNK = 100

_MISSING = "do not exist"


def annotation(envelope: ScoreEnvelope) -> dict:
    """The annotation body of one score (without the span or trace id).

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> a = annotation(ScoreEnvelope("ab" * 16, "cd" * 8, "t",
        ...                EpisodeScore("t", tp=1.0, fn=1.0, f1=0.67), ScoreProvenance("0")))
        >>> a["result"]["score"], a["result"]["label"], a["metadata"]["fn"]
        (0.67, 'fail', 1.0)
    """
    score = envelope.score
    return {
        "name": evaluation_name(score),
        "annotator_kind": "CODE",
        "identifier": EVALUATOR_NAME,
        "result": {
            "score": score_value(score),
            "label": score.label,
            "explanation": explanation(score),
        },
        "metadata": annotation_metadata(envelope),
    }


class PhoenixSink:
    """Write scores as Phoenix span and trace annotations (see the module doc).

    Args:
        url: Phoenix's base URL (``http://127.0.0.1:6006``).
        api_key: Sent as ``Authorization: Bearer`` when Phoenix auth is on.
        headers: Extra request headers.
        timeout: Seconds one send may take, retries and waiting for missing spans included.
        chunk: Annotations per request.
        warn: Where the one-time "no such endpoint" warning goes.

    Raises:
        ValueError: for a URL that is not http(s).

    Example:
        >>> PhoenixSink("ftp://x")
        Traceback (most recent call last):
        ...
        ValueError: --phoenix-url must be an http:// or https:// URL, got 'ftp://x'
        >>> sink = PhoenixSink("http://127.0.0.1:6006/", api_key="k")
        >>> sink.url, sink.signals, bool(sink.send([]))
        ('http://127.0.0.1:6006', ('span_annotations', 'trace_annotations'), True)
        >>> sink.close()
    """

    signals = tuple(ANNOTATION_KINDS)

    def __init__(self, url: str, *, api_key: Optional[str] = None,
                 headers: Optional[Mapping[str, str]] = None, timeout: float = 10.0,
                 chunk: int = DEFAULT_CHUNK, warn: Optional[Callable[[str], None]] = None):
        if urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"--phoenix-url must be an http:// or https:// URL, got {url!r}")
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.chunk = max(1, int(chunk))
        all_headers = dict(headers or {})
        if api_key:
            all_headers["authorization"] = f"Bearer {api_key}"
        self._http = HttpTransport(self.url, headers=all_headers, timeout_s=timeout)
        self._warn = warn or _log.warning
        self._unsupported: dict = {}
        self._lock = threading.Lock()
        self._closed = False

    def send(self, envelopes: Sequence[ScoreEnvelope]) -> SendResult:
        """Post the span and trace annotations of ``envelopes``. Never raises.

        The result counts scores per kind (``span_annotations``, ``trace_annotations``); its
        ``failed_keys`` are the envelope keys not written, so an outbox can keep just those.
        """
        n = len(envelopes)
        if not envelopes:
            return SendResult()
        if self._closed:
            return _result({k: (0, n, 0) for k in ANNOTATION_KINDS}, True,
                           ("Phoenix sink is closed",), tuple(e.key for e in envelopes))
        deadline = time.monotonic() + self.timeout
        counts: dict = {}
        errors: list = []
        failed_keys: set = set()
        unknown_keys: set = set()
        retryable = True
        for kind, (path, id_field, _) in ANNOTATION_KINDS.items():
            if kind in self._unsupported:
                counts[kind] = (0, 0, n)
                continue
            by_id = {}
            for envelope in envelopes:  # the last (newest) score of a span or trace wins
                by_id[envelope.root_span_id if id_field == "span_id" else envelope.trace_id] = envelope
            outcome = self._post_all(kind, path, id_field, by_id, deadline)
            sent_ids, failed_ids, unsupported, error, can_retry, unknown_ids = outcome
            keys_failed = {e.key for e in envelopes
                           if (e.root_span_id if id_field == "span_id" else e.trace_id) in failed_ids}
            failed_keys |= keys_failed
            unknown_keys |= {e.key for e in envelopes
                             if (e.root_span_id if id_field == "span_id" else e.trace_id)
                             in unknown_ids}
            if unsupported:
                counts[kind] = (0, 0, n)
            else:
                counts[kind] = (n - len(keys_failed), len(keys_failed), 0)
            if error:
                errors.append(error)
                retryable = retryable and can_retry
        # a score is "unknown" only when no kind failed it for another reason
        return _result(counts, retryable, tuple(errors), tuple(sorted(failed_keys)),
                       tuple(sorted(unknown_keys)))

    def _post_all(self, kind: str, path: str, id_field: str, by_id: dict,
                  deadline: float) -> tuple:
        """Post every annotation of one kind;
        ``(sent, failed, unsupported, error, retryable, unknown)`` where ``unknown`` are the ids
        Phoenix still said it does not have when the time ran out."""
        pending = dict(by_id)  # id -> envelope, to post now
        waiting: dict = {}  # ids Phoenix does not have yet
        sent: set = set()
        attempt = 0
        last = ""
        while pending or waiting:
            if not pending:  # only ids Phoenix lacks: wait for their spans, then ask again
                delay = min(8.0, 0.5 * 2 ** attempt) * random.uniform(0.8, 1.2)
                attempt += 1
                if time.monotonic() + delay > deadline:
                    missing = ", ".join(sorted(waiting)[:5])
                    return (sent, set(waiting), False,
                            f"Phoenix {self.url} has no {id_field.split('_')[0]} {missing}"
                            f"{' ...' if len(waiting) > 5 else ''} (yet): are the traces sent "
                            "to this Phoenix?", True, set(waiting))
                time.sleep(delay)
                pending, waiting = waiting, {}
                continue
            ids = list(pending)
            failed_now: set = set()
            for start in range(0, len(ids), self.chunk):
                part = ids[start:start + self.chunk]
                answer = self._post(path, id_field, [(i, pending[i]) for i in part])
                if answer.ok:
                    sent.update(part)
                    continue
                missing = self._missing(answer, id_field, part)
                if missing:
                    rest = [i for i in part if i not in missing]
                    waiting.update({i: pending[i] for i in missing})
                    if not rest:
                        continue
                    # Phoenix wrote none of the request: send the others again now
                    answer = self._post(path, id_field, [(i, pending[i]) for i in rest])
                    part = rest
                    if answer.ok:
                        sent.update(rest)
                        continue
                    missing = self._missing(answer, id_field, rest)
                    if missing:  # more went missing meanwhile: all of them next round
                        waiting.update({i: pending[i] for i in missing})
                        failed_now.update(i for i in rest if i not in missing)
                        continue
                if answer.outcome == "unsupported":
                    self._mark_unsupported(kind, path, answer)
                    return (set(), set(), True, "", True, set())
                if answer.outcome == "rejected":
                    failed = set(ids[start:]) - sent - set(waiting)
                    return (sent, failed | set(waiting), False, answer.detail, False, set())
                failed_now.update(part)  # retryable
                last = answer.detail
            pending = {i: pending[i] for i in failed_now}
            if pending:
                delay = min(8.0, 0.5 * 2 ** attempt) * random.uniform(0.8, 1.2)
                attempt += 1
                if time.monotonic() + delay > deadline:
                    return (sent, set(pending) | set(waiting), False, last, True, set())
                time.sleep(delay)
        return (sent, set(), False, "", True, set())

    def _post(self, path: str, id_field: str, items: list) -> Answer:
        data = []
        for key, envelope in items:  # a score, then its answer score (ek.answer) when expected
            data.extend({**annotation(e), id_field: key} for e in with_answers([envelope]))
        return self._http.request("POST", path, json={"data": data}, params={"sync": "true"})

    @staticmethod
    def _missing(answer: Answer, id_field: str, part: list) -> set:
        """The ids of ``part`` that a 404 "... do not exist" answer names (empty otherwise)."""
        if not answer.detail.startswith("HTTP 404"):
            return set()
        text = answer.body.decode("utf-8", "replace")
        if _MISSING not in text:
            return set()
        size = ANNOTATION_KINDS["span_annotations" if id_field == "span_id" else "trace_annotations"][2]
        named = set(re.findall(rf"\b[0-9a-f]{{{size}}}\b", text))
        return {i for i in part if i in named}

    def _mark_unsupported(self, kind: str, path: str, answer: Answer) -> None:
        with self._lock:
            first = kind not in self._unsupported
            self._unsupported[kind] = answer.detail
        if first:
            self._warn(f"Phoenix {self.url} has no {path} ({answer.detail}); "
                       f"{kind.replace('_', ' ')} are not written (Phoenix 20 or newer has them)")

    def close(self) -> None:
        """Close the connection pool (safe twice)."""
        if self._closed:
            return
        self._closed = True
        self._http.close()


def _result(counts: dict, retryable: bool, errors: tuple, failed_keys: tuple,
            unknown_keys: tuple = ()) -> SendResult:
    result = SendResult()
    for kind, (sent, failed, unsupported) in counts.items():
        result += SendResult.of(kind, sent=sent, failed=failed, unsupported=unsupported)
    return SendResult(result.counts, retryable, errors, failed_keys, unknown_keys)
