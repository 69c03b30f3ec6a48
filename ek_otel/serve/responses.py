"""What both receivers answer: the Export responses, and ONE table from error to status.

The codes follow the OTLP specification (https://opentelemetry.io/docs/specs/otlp/).

Every refusal is an exception; :func:`refusal_for` looks it up in :data:`STATUS_TABLE`
(first match wins, so a class comes before its bases) and gives the HTTP status and the gRPC
code together, so OTLP/HTTP and OTLP/gRPC can never classify an error differently. The
split follows :mod:`ek_otel.errors` (the Collector's ``consumererror``): a
:class:`~ek_otel.errors.PermanentError` is never retried by the client, a
:class:`~ek_otel.errors.RetryableError` is answered with its delay (``Retry-After`` /
``RetryInfo``), and any other exception is a failure of ours, logged with its traceback and
answered as retryable, since the client's data is fine.

==========================================  ======  ===================  =====================
error                                       HTTP    gRPC                 the client
==========================================  ======  ===================  =====================
:class:`Unauthenticated`                    401     UNAUTHENTICATED      fixes its token
:class:`MethodNotAllowed`                   405     UNIMPLEMENTED        uses POST
``UnsupportedMediaType``                    415     INVALID_ARGUMENT     drops the data
``BodyTooLarge`` (after decompression)      413     RESOURCE_EXHAUSTED   drops the data
:class:`BodyTimeout`                        408     DEADLINE_EXCEEDED    drops the data
:class:`ClientGone` (hung up mid-body)      400     INVALID_ARGUMENT     (nobody listens)
``DecodeError``, ``RecursionError``         400     INVALID_ARGUMENT     drops the data
any other ``PermanentError``                400     INVALID_ARGUMENT     drops the data
``RetryableError`` (``Overloaded``,         503     UNAVAILABLE          retries after
:class:`NotReady`)                                  + ``RetryInfo``      ``retry_after_s``
any other exception (ours)                  503     UNAVAILABLE          retries after the
                                                    + ``RetryInfo``      configured delay
==========================================  ======  ===================  =====================

A request that is stored answers 200 / OK with an ``Export{Trace,Logs}ServiceResponse``,
with ``partial_success`` when some records were rejected (:func:`response_body`). Error
bodies of OTLP/HTTP are ``google.rpc.Status`` in the request's content type
(:func:`status_body`).

Example:
    >>> from ek_otel.errors import Overloaded
    >>> r = refusal_for(Overloaded("open traces at the cap; retry later", retry_after_s=2))
    >>> r.http_status, r.grpc_code.name, r.retry_after_s, r.http_headers()
    (503, 'UNAVAILABLE', 2, {'Retry-After': '2'})
    >>> r = refusal_for(DecodeError("truncated protobuf"), noun="request")
    >>> r.http_status, r.grpc_code.name, r.retry_after_s, r.message
    (400, 'INVALID_ARGUMENT', None, 'undecodable request: truncated protobuf')
    >>> r = refusal_for(KeyError("x"), retry_after_s=3)
    >>> r.http_status, r.message, r.retry_after_s, r.ours
    (503, 'temporary failure: KeyError', 3, True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Optional

import grpc

from ..errors import DecodeError, PermanentError, RetryableError
from .body import BodyTooLarge, UnsupportedMediaType

__all__ = [
    "Unauthenticated",
    "MethodNotAllowed",
    "BodyTimeout",
    "ClientGone",
    "NotReady",
    "Refusal",
    "STATUS_TABLE",
    "refusal_for",
    "status_body",
    "retry_status",
    "response_body",
]

#: Longest message sent back in an error (it may quote the client's bytes).
MAX_MESSAGE = 1000


class Unauthenticated(PermanentError):
    """A token is required and the request has none, or a wrong one."""


class MethodNotAllowed(PermanentError):
    """An OTLP/HTTP request with another method than POST."""


class BodyTimeout(PermanentError):
    """The body did not arrive within the body timeout (a slow or stalled client)."""


class ClientGone(PermanentError):
    """The client hung up, or broke the chunked framing, mid-body: nothing was stored.

    Not a failure of ours: it is answered (if anyone still listens) and never logged as an
    error, or any client could flood the log by hanging up.
    """


class NotReady(RetryableError):
    """The store is not open yet, or the server is shutting down."""


@dataclass(frozen=True)
class Refusal:
    """How a receiver answers one error.

    ``retry_after_s`` is None for a permanent refusal, else the delay sent as
    ``Retry-After`` (HTTP) or ``RetryInfo`` (gRPC). ``ours`` marks a failure of the server
    (logged with its traceback), not of the request.
    """

    http_status: int
    grpc_code: grpc.StatusCode
    message: str
    retry_after_s: Optional[int] = None
    headers: tuple = ()
    ours: bool = False

    @property
    def rpc_code(self) -> int:
        """The numeric ``google.rpc.Code`` (what an OTLP/HTTP error body carries)."""
        return self.grpc_code.value[0]

    def http_headers(self) -> dict:
        """Headers of the OTLP/HTTP answer (``Retry-After`` when retryable)."""
        headers = dict(self.headers)
        if self.retry_after_s is not None:
            headers["Retry-After"] = str(self.retry_after_s)
        return headers

    def grpc_trailers(self) -> tuple:
        """Trailing metadata of the gRPC answer: ``RetryInfo`` when retryable, else none."""
        if self.retry_after_s is None:
            return ()
        return (("grpc-status-details-bin",
                 retry_status(self.rpc_code, self.message, self.retry_after_s)),)


@dataclass(frozen=True)
class _Row:
    errors: tuple
    http_status: int
    grpc_code: grpc.StatusCode
    message: Callable[[BaseException, str], str] = lambda exc, noun: str(exc)
    headers: tuple = ()


def _undecodable(exc: BaseException, noun: str) -> str:
    return f"undecodable {noun}: {exc}"


def _incomplete(exc: BaseException, noun: str) -> str:
    return f"incomplete {noun}: {exc}"


_CODE = grpc.StatusCode

#: error classes → HTTP status, gRPC code, message, extra HTTP headers; first match wins.
#: Retryable rows get ``Retry-After`` / ``RetryInfo`` from :func:`refusal_for`.
STATUS_TABLE: tuple = (
    _Row((Unauthenticated,), 401, _CODE.UNAUTHENTICATED, headers=(("WWW-Authenticate", "Bearer"),)),
    _Row((MethodNotAllowed,), 405, _CODE.UNIMPLEMENTED, headers=(("Allow", "POST"),)),
    _Row((UnsupportedMediaType,), 415, _CODE.INVALID_ARGUMENT),
    _Row((BodyTooLarge,), 413, _CODE.RESOURCE_EXHAUSTED),
    _Row((BodyTimeout,), 408, _CODE.DEADLINE_EXCEEDED),
    _Row((ClientGone,), 400, _CODE.INVALID_ARGUMENT, _incomplete),
    _Row((DecodeError, RecursionError), 400, _CODE.INVALID_ARGUMENT, _undecodable),
    _Row((PermanentError,), 400, _CODE.INVALID_ARGUMENT),
    _Row((RetryableError,), 503, _CODE.UNAVAILABLE),
)


def refusal_for(exc: BaseException, *, retry_after_s: int = 1, noun: str = "body") -> Refusal:
    """The answer to ``exc``: its row of :data:`STATUS_TABLE`, or a retryable failure of ours.

    ``retry_after_s`` is the delay of a failure of ours (a :class:`RetryableError` carries
    its own); ``noun`` is what the message calls the request (``"body"`` over HTTP,
    ``"request"`` over gRPC).

    Example:
        >>> r = refusal_for(MethodNotAllowed("GET is not allowed; use POST"))
        >>> r.http_status, r.grpc_code.name, r.http_headers()
        (405, 'UNIMPLEMENTED', {'Allow': 'POST'})
        >>> refusal_for(ClientGone("Connection lost")).message
        'incomplete body: Connection lost'
    """
    for row in STATUS_TABLE:
        if isinstance(exc, row.errors):
            delay = exc.retry_after_s if isinstance(exc, RetryableError) else None
            return Refusal(row.http_status, row.grpc_code, row.message(exc, noun)[:MAX_MESSAGE],
                           retry_after_s=delay, headers=row.headers)
    return Refusal(503, _CODE.UNAVAILABLE, f"temporary failure: {type(exc).__name__}",
                   retry_after_s=retry_after_s, ours=True)


def status_body(fmt: str, code: int, message: str) -> bytes:
    """A ``google.rpc.Status`` error body, protobuf or JSON.

    Example:
        >>> status_body("json", 3, "bad")
        b'{"code": 3, "message": "bad"}'
    """
    if fmt == "json":
        return json.dumps({"code": code, "message": message}).encode()
    from google.rpc import status_pb2

    return status_pb2.Status(code=code, message=message).SerializeToString()


def retry_status(code: int, message: str, retry_after_s: int) -> bytes:
    """A serialized ``google.rpc.Status`` carrying a ``RetryInfo`` detail.

    Example:
        >>> from google.rpc import status_pb2
        >>> st = status_pb2.Status.FromString(retry_status(14, "busy", 2))
        >>> st.code, st.details[0].type_url
        (14, 'type.googleapis.com/google.rpc.RetryInfo')
    """
    from google.protobuf import duration_pb2
    from google.rpc import error_details_pb2, status_pb2

    info = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=retry_after_s))
    status = status_pb2.Status(code=code, message=message)
    status.details.add().Pack(info)
    return status.SerializeToString()


def response_body(signal: str, fmt: str, rejected: int = 0, message: str = "") -> bytes:
    """An ``Export{Trace,Logs}ServiceResponse`` (``signal``: ``"traces"`` or ``"logs"``),
    with ``partial_success`` when something was rejected; what both receivers answer.

    Example:
        >>> response_body("logs", "json"), response_body("traces", "json", 1, "invalid id")
        (b'{}', b'{"partialSuccess": {"rejectedSpans": "1", "errorMessage": "invalid id"}}')
    """
    if fmt == "json":
        if not rejected and not message:
            return b"{}"
        field = "rejectedSpans" if signal == "traces" else "rejectedLogRecords"
        return json.dumps({"partialSuccess": {field: str(rejected), "errorMessage": message}}).encode()
    if signal == "traces":
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceResponse,
        )

        resp = ExportTraceServiceResponse()
        if rejected or message:
            resp.partial_success.rejected_spans = rejected
            resp.partial_success.error_message = message
    else:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceResponse,
        )

        resp = ExportLogsServiceResponse()
        if rejected or message:
            resp.partial_success.rejected_log_records = rejected
            resp.partial_success.error_message = message
    return resp.SerializeToString()
