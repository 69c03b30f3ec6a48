"""What became of a send: per-signal counts, and how a backend's answer is classified.

A backend's answer to one request is one of four :data:`OUTCOMES`:

- ``"sent"``: accepted (HTTP 2xx, gRPC ``OK``);
- ``"unsupported"``: the backend has no such endpoint (HTTP 404/405/501, gRPC
  ``UNIMPLEMENTED``). Permanent, and not an error: a backend that stores traces only (Phoenix,
  Jaeger, Tempo) has no ``/v1/logs``. The sink stops sending that signal there;
- ``"retry"``: worth trying again later (HTTP 408/429 and 5xx but 501, gRPC ``UNAVAILABLE``,
  ``DEADLINE_EXCEEDED``, ``RESOURCE_EXHAUSTED``, ``ABORTED``, ``CANCELLED``, connection errors,
  timeouts);
- ``"rejected"``: a permanent refusal of this request (other 4xx: bad request, auth, ...).

A sink's ``send()`` returns a :class:`SendResult`: per signal (``"spans"``, ``"logs"``,
``"file"``, ``"annotations"``) how many scores were sent, failed or could not be sent because
the backend lacks the endpoint. It is true when nothing failed, so code that only asks
"did it work?" (``if not sink.send(batch)``) keeps working, and ``unsupported`` is not a
failure.

This module is pure: no OTel, no network.

Example:
    >>> classify_http(200), classify_http(405), classify_http(503), classify_http(400)
    ('sent', 'unsupported', 'retry', 'rejected')
    >>> r = SendResult.of("spans", sent=3) + SendResult.of("logs", unsupported=3)
    >>> bool(r), r.to_dict()["logs"]
    (True, {'sent': 0, 'failed': 0, 'unsupported': 3})
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional

__all__ = [
    "OUTCOMES",
    "UNSUPPORTED_HTTP",
    "RETRYABLE_GRPC",
    "Answer",
    "SignalCount",
    "SendResult",
    "classify_http",
    "classify_grpc",
    "retrying",
]

#: The classes of a backend's answer.
OUTCOMES = ("sent", "unsupported", "retry", "rejected")
#: HTTP statuses meaning "this server has no such endpoint".
UNSUPPORTED_HTTP = frozenset({404, 405, 501})
#: gRPC status code names worth retrying (the OTLP specification's list).
RETRYABLE_GRPC = frozenset(
    {"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED", "CANCELLED",
     "OUT_OF_RANGE", "DATA_LOSS"}
)


def classify_http(status: int) -> str:
    """The outcome of an HTTP status.

    Example:
        >>> [classify_http(s) for s in (204, 404, 501, 500, 429, 408, 401)]
        ['sent', 'unsupported', 'unsupported', 'retry', 'retry', 'retry', 'rejected']
    """
    if 200 <= status < 300:
        return "sent"
    if status in UNSUPPORTED_HTTP:
        return "unsupported"
    if status >= 500 or status in (408, 429):
        return "retry"
    return "rejected"


def classify_grpc(code_name: str) -> str:
    """The outcome of a gRPC status code, by name (``grpc.StatusCode.X.name``).

    Example:
        >>> classify_grpc("OK"), classify_grpc("UNIMPLEMENTED"), classify_grpc("UNAVAILABLE")
        ('sent', 'unsupported', 'retry')
        >>> classify_grpc("PERMISSION_DENIED")
        'rejected'
    """
    if code_name == "OK":
        return "sent"
    if code_name == "UNIMPLEMENTED":
        return "unsupported"
    if code_name in RETRYABLE_GRPC:
        return "retry"
    return "rejected"


@dataclass(frozen=True)
class Answer:
    """A backend's answer to one request: its outcome, and a short description of it.

    Args:
        outcome: One of :data:`OUTCOMES`.
        detail: What the backend said (``"HTTP 405"``, ``"gRPC UNIMPLEMENTED"``,
            ``"connection refused"``), for messages.
        body: The response body, when the caller needs it (e.g. ids of created rows).

    Example:
        >>> Answer("retry", "HTTP 503").retryable, Answer("sent", "HTTP 200").ok
        (True, True)
    """

    outcome: str
    detail: str = ""
    body: bytes = b""

    @property
    def ok(self) -> bool:
        """True when the backend accepted the request."""
        return self.outcome == "sent"

    @property
    def retryable(self) -> bool:
        """True when trying again later may succeed."""
        return self.outcome == "retry"


@dataclass(frozen=True)
class SignalCount:
    """How many scores of one signal were sent, failed, or met a backend without the endpoint.

    Example:
        >>> SignalCount(sent=2) + SignalCount(failed=1)
        SignalCount(sent=2, failed=1, unsupported=0)
    """

    sent: int = 0
    failed: int = 0
    unsupported: int = 0

    def __add__(self, other: "SignalCount") -> "SignalCount":
        return SignalCount(self.sent + other.sent, self.failed + other.failed,
                           self.unsupported + other.unsupported)


@dataclass(frozen=True)
class SendResult:
    """What a sink's ``send()`` did, per signal; true when nothing failed.

    Args:
        counts: signal -> :class:`SignalCount`, as ``(signal, count)`` pairs in a stable order.
        retryable: False when a failure is permanent (re-sending the same scores cannot work).
        errors: One line per failure, for the log.
        failed_keys: The :attr:`~ek_otel.emit.envelope.ScoreEnvelope.key` of each score that
            failed, when the sink knows which (a sink that writes some scores of a batch and
            not others); empty when it does not (then every score of a failed send failed).
        unknown_keys: The keys, among ``failed_keys``, of scores whose run the backend said it
            does not have (Phoenix 404 "... do not exist", MLflow ``RESOURCE_DOES_NOT_EXIST``):
            not a transient failure, so an outbox gives them up after a bounded time.

    Example:
        >>> r = SendResult.of("spans", failed=2, error="HTTP 503 from http://x")
        >>> bool(r), r.failed, r.errors
        (False, 2, ('HTTP 503 from http://x',))
        >>> bool(SendResult()), SendResult().to_dict()
        (True, {})
    """

    counts: tuple = ()
    retryable: bool = True
    errors: tuple = field(default=(), compare=False)
    failed_keys: tuple = field(default=(), compare=False)
    unknown_keys: tuple = field(default=(), compare=False)

    @classmethod
    def of(cls, signal: str, *, sent: int = 0, failed: int = 0, unsupported: int = 0,
           retryable: bool = True, error: Optional[str] = None) -> "SendResult":
        """A result for one signal.

        Example:
            >>> SendResult.of("file", sent=4).get("file").sent
            4
        """
        return cls(((signal, SignalCount(sent, failed, unsupported)),), retryable,
                   (error,) if error else ())

    @classmethod
    def from_bool(cls, ok: bool, n: int, signal: str = "scores") -> "SendResult":
        """Wrap the bool of a sink that only says yes or no (third-party sinks, tests).

        Example:
            >>> SendResult.from_bool(False, 3).to_dict()
            {'scores': {'sent': 0, 'failed': 3, 'unsupported': 0}}
        """
        if isinstance(ok, SendResult):
            return ok
        return cls.of(signal, sent=n if ok else 0, failed=0 if ok else n)

    def get(self, signal: str) -> SignalCount:
        """The counts of ``signal`` (zeros when it was not sent).

        Example:
            >>> SendResult().get("logs")
            SignalCount(sent=0, failed=0, unsupported=0)
        """
        for name, count in self.counts:
            if name == signal:
                return count
        return SignalCount()

    @property
    def signals(self) -> tuple:
        """The signals this result counts, in order."""
        return tuple(name for name, _ in self.counts)

    @property
    def failed(self) -> int:
        """Scores that failed, over every signal."""
        return sum(count.failed for _, count in self.counts)

    def __bool__(self) -> bool:
        return self.failed == 0

    def __add__(self, other: "SendResult") -> "SendResult":
        merged: dict = dict(self.counts)
        for name, count in other.counts:
            merged[name] = merged.get(name, SignalCount()) + count
        retryable = (self.retryable or not self.failed) and (other.retryable or not other.failed)
        return SendResult(tuple(merged.items()), retryable, self.errors + other.errors,
                          self.failed_keys + other.failed_keys,
                          self.unknown_keys + other.unknown_keys)

    def to_dict(self) -> dict:
        """``{signal: {sent, failed, unsupported}}`` for the JSON report.

        Example:
            >>> SendResult.of("spans", sent=1).to_dict()
            {'spans': {'sent': 1, 'failed': 0, 'unsupported': 0}}
        """
        return {name: {"sent": c.sent, "failed": c.failed, "unsupported": c.unsupported}
                for name, c in self.counts}


def retrying(call: Callable[[], Answer], *, timeout_s: float, initial_s: float = 0.5,
             max_s: float = 8.0, sleep: Callable[[float], None] = time.sleep) -> Answer:
    """Call ``call()`` until its answer is not ``"retry"`` or ``timeout_s`` would be exceeded.

    Waits ``initial_s * 2**n`` (capped at ``max_s``, ±20% jitter) between attempts; the
    last answer is returned, whatever it is. ``call`` must not raise.

    Example:
        >>> answers = iter([Answer("retry", "HTTP 503"), Answer("sent", "HTTP 200")])
        >>> retrying(lambda: next(answers), timeout_s=5, sleep=lambda s: None).detail
        'HTTP 200'
        >>> retrying(lambda: Answer("retry", "HTTP 503"), timeout_s=0).outcome
        'retry'
    """
    deadline = time.monotonic() + timeout_s
    attempt = 0
    while True:
        answer = call()
        if answer.outcome != "retry":
            return answer
        delay = min(max_s, initial_s * (2 ** attempt)) * random.uniform(0.8, 1.2)
        if time.monotonic() + delay > deadline:
            return answer
        sleep(delay)
        attempt += 1

