"""The OTLP/gRPC receiver (grpcio): TraceService/Export and LogsService/Export.

Requests arrive as raw bytes (no deserializer), so the body is parsed once, by
:func:`~ek_otel.ingest.split.split_traces`. The receive limit is raised to the body cap
(64 MiB by default; grpcio's own default of 4 MiB would reject big batches as
non-retryable). Every refusal is an exception answered by the status table of
:mod:`ek_otel.serve.responses` (the one the HTTP receiver uses too): INVALID_ARGUMENT for an
undecodable request (not retried); UNAVAILABLE with ``RetryInfo`` in
``grpc-status-details-bin`` when at a cap, when the store is not ready, or on a failure of
ours (the SDK and the Collector retry it after the given delay); UNAUTHENTICATED when a
token is required and missing.

Memory bound. grpcio receives a unary request whole before the handler runs, so a byte
budget checked in the handler comes too late (30 concurrent 40 MiB requests once peaked at
1.7 GB). The Export methods are therefore served as client-streaming handlers (the wire
format is the same, unary clients see no difference): the handler runs *before* the message
is read, takes one of :attr:`GrpcReceiver.max_receives` receive slots, and only then reads
the one message. With no slot free it answers UNAVAILABLE + ``RetryInfo`` at once, the body
unread (an unread stream holds no more than its HTTP/2 flow-control window). Received
request bodies therefore hold at most ``max_receives * max_body_bytes``, which is at most
``max_inflight_bytes`` (``max_receives = max_inflight_bytes // max_body_bytes``, at least
1): 4 x 64 MiB = 256 MiB by default, plus the parse of those bodies. grpcio's own
``maximum_concurrent_rpcs`` (RESOURCE_EXHAUSTED without ``RetryInfo``, which OTLP clients
do not retry) only bounds RPCs waiting for a worker thread, and is set well above what the
quick UNAVAILABLE answers let pile up.

The loadbalancing exporter of the Collector speaks only OTLP/gRPC: this receiver is what
lets several ek-otel instances sit behind one Collector tier, routed by trace id.

Example:
    >>> TRACE_METHOD
    ('opentelemetry.proto.collector.trace.v1.TraceService', 'Export')
"""

from __future__ import annotations

import hmac
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Optional

import grpc

from ..errors import InputError, Overloaded
from .config import ServeConfig
from .intake import InflightBudget, Intake, Prepared
from .responses import NotReady, Unauthenticated, refusal_for, response_body

__all__ = ["TRACE_METHOD", "LOGS_METHOD", "GrpcReceiver"]

_log = logging.getLogger(__name__)

TRACE_METHOD = ("opentelemetry.proto.collector.trace.v1.TraceService", "Export")
LOGS_METHOD = ("opentelemetry.proto.collector.logs.v1.LogsService", "Export")


class GrpcReceiver:
    """A grpcio server exposing the two OTLP Export methods.

    Args:
        intake: The shared intake (split, admit, commit).
        config: Address, caps, token, TLS.
        ready: True once the store is open and the server is not stopping.
    """

    def __init__(self, intake: Intake, config: ServeConfig, *, ready: Callable[[], bool],
                 max_workers: int = 16):
        self.intake = intake
        self.config = config
        self.ready = ready
        self.budget = InflightBudget(config.max_inflight_bytes, config.retry_after_s)
        self.port: Optional[int] = None
        limit = config.max_body_bytes
        #: Requests received (read and held) at once; see the module doc for the bound.
        self.max_receives = max(1, config.max_inflight_bytes // limit)
        self._receive_slots = threading.BoundedSemaphore(self.max_receives)
        #: Requests being received or accepted now (at most :attr:`max_receives`).
        self.receiving = 0
        self._count_lock = threading.Lock()
        self.server = grpc.server(
            ThreadPoolExecutor(max_workers, thread_name_prefix="ek-otel-grpc"),
            options=[
                ("grpc.max_receive_message_length", limit),
                ("grpc.max_send_message_length", 4 * 2**20),
                ("grpc.so_reuseport", 0),
            ],
            maximum_concurrent_rpcs=max_workers * 8,
        )
        handlers = {
            TRACE_METHOD: self._traces,
            LOGS_METHOD: self._logs,
        }
        by_service: dict = {}
        for (service, method), fn in handlers.items():
            # client-streaming: the handler runs before the message is read (module doc)
            by_service.setdefault(service, {})[method] = grpc.stream_unary_rpc_method_handler(
                fn, request_deserializer=None, response_serializer=None)
        self.server.add_generic_rpc_handlers(
            tuple(grpc.method_handlers_generic_handler(s, m) for s, m in by_service.items()))

    def start(self) -> None:
        """Bind and start serving."""
        host, port = self.config.grpc
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if self.config.tls:
            with open(self.config.tls_key, "rb") as f:
                key = f.read()
            with open(self.config.tls_cert, "rb") as f:
                cert = f.read()
            creds = grpc.ssl_server_credentials([(key, cert)])
            add = lambda: self.server.add_secure_port(address, creds)  # noqa: E731
        else:
            add = lambda: self.server.add_insecure_port(address)  # noqa: E731
        try:
            self.port = add()
        except RuntimeError as exc:  # grpcio raises this for an address it cannot bind
            raise OSError(f"cannot bind the gRPC receiver to {address}: {exc}") from None
        if not self.port:
            raise OSError(f"cannot bind the gRPC receiver to {address} (address in use?)")
        self.server.start()

    def stop(self, grace_s: float = 5.0) -> None:
        """Stop accepting new RPCs; let running ones finish within ``grace_s``."""
        self.server.stop(grace_s).wait(grace_s + 1)

    # -- handlers ---------------------------------------------------------------------------

    def _authorized(self, context: grpc.ServicerContext) -> bool:
        token = self.config.auth_token
        if not token:
            return True
        for key, value in context.invocation_metadata() or ():
            if key.lower() == "authorization":
                scheme, _, given = str(value).partition(" ")
                if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                                      token.encode()):
                    return True
        return False

    def _refuse(self, context: grpc.ServicerContext, exc: Exception, signal: str):
        """Abort the RPC with the status of ``exc`` (:func:`~.responses.refusal_for`)."""
        refusal = refusal_for(exc, retry_after_s=self.config.retry_after_s, noun="request")
        if refusal.ours:
            _log.exception("receiving %s over gRPC failed", signal)
        trailers = refusal.grpc_trailers()
        if trailers:
            context.set_trailing_metadata(trailers)
        context.abort(refusal.grpc_code, refusal.message)

    def _export(self, signal: str, requests: Iterator[bytes],
                context: grpc.ServicerContext) -> Prepared:
        try:
            if not self._authorized(context):
                raise Unauthenticated("missing or invalid bearer token")
            if not self.ready():
                raise NotReady("not ready; retry later", self.config.retry_after_s)
            if not self._receive_slots.acquire(blocking=False):
                raise Overloaded(f"{self.max_receives} requests being received (cap); "
                                 "retry later", self.config.retry_after_s)
        except Exception as exc:
            self._refuse(context, exc, signal)
        with self._count_lock:
            self.receiving += 1
        try:
            body = next(iter(requests), None)
            if body is None:
                self._refuse(context, InputError("no request message"), signal)
            return self._accept(signal, body, context)
        finally:
            with self._count_lock:
                self.receiving -= 1
            self._receive_slots.release()

    def _accept(self, signal: str, body: bytes, context: grpc.ServicerContext) -> Prepared:
        held = 0
        try:
            self.budget.acquire(len(body))
            held = len(body)
            return self.intake.accept(signal, body, "protobuf")
        except Exception as exc:
            self._refuse(context, exc, signal)
        finally:
            self.budget.release(held)

    def _traces(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        prepared = self._export("traces", requests, context)
        return response_body("traces", "protobuf", prepared.rejected, prepared.error_message)

    def _logs(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
        prepared = self._export("logs", requests, context)
        return response_body("logs", "protobuf", prepared.rejected, prepared.error_message)
