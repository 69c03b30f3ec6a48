"""Transport: send encoded bytes over HTTP (httpx) or gRPC and say what the backend answered.

The SDK's OTLP exporters only return SUCCESS or FAILURE; a sink that must tell "this backend
has no ``/v1/logs``" from "the backend is down" needs the status itself. So the sinks encode
with the SDK's own encoders (:mod:`ek_otel.emit.encode`) and send the bytes here. Each call
returns an :class:`~ek_otel.emit.delivery.Answer` classified by
:func:`~ek_otel.emit.delivery.classify_http` / :func:`~ek_otel.emit.delivery.classify_grpc`;
nothing here raises for a failed request (connection refused, timeout, TLS error: ``"retry"``).

Example:
    >>> t = HttpTransport("http://127.0.0.1:1", timeout_s=0.5)   # nothing listens on port 1
    >>> a = t.post("/v1/traces", b"", "application/x-protobuf")
    >>> a.outcome, a.detail.startswith("cannot reach http://127.0.0.1:1/v1/traces")
    ('retry', True)
    >>> t.close()
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Optional
from urllib.parse import urlsplit

from .delivery import Answer, classify_grpc, classify_http

__all__ = ["HttpTransport", "GrpcTransport"]

_MAX_BODY_IN_DETAIL = 200


class HttpTransport:
    """POST bodies to paths under one base URL with a pooled httpx client.

    Args:
        base_url: ``http(s)://host:port`` (a path prefix is kept).
        headers: Sent with every request (e.g. ``authorization``).
        timeout_s: Seconds one request may take.

    Example:
        >>> HttpTransport("http://127.0.0.1:6006/").url("/v1/traces")
        'http://127.0.0.1:6006/v1/traces'
    """

    def __init__(self, base_url: str, *, headers: Optional[Mapping[str, str]] = None,
                 timeout_s: float = 10.0):
        import httpx

        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers or {})
        self.timeout_s = timeout_s
        self._client = httpx.Client(timeout=timeout_s, headers=self.headers)
        self._httpx = httpx

    def url(self, path: str) -> str:
        """The full URL of ``path``."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def request(self, method: str, path: str, *, content: Optional[bytes] = None,
                json: object = None, content_type: Optional[str] = None,
                params: Optional[Mapping[str, str]] = None) -> Answer:
        """Send one request; the answer carries the response body. Never raises."""
        url = self.url(path)
        headers = {"content-type": content_type} if content_type else None
        try:
            response = self._client.request(method, url, content=content, json=json,
                                            headers=headers, params=params)
        except self._httpx.HTTPError as exc:
            return Answer("retry", f"cannot reach {url}: {type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a transport must not raise
            return Answer("retry", f"cannot reach {url}: {type(exc).__name__}: {exc}")
        detail = f"HTTP {response.status_code} from {method} {url}"
        outcome = classify_http(response.status_code)
        is_html = response.headers.get("content-type", "").startswith("text/html")
        if outcome != "sent" and not is_html:  # an HTML error page says nothing more
            text = response.text.strip().replace("\n", " ")
            if text:
                detail += f": {text[:_MAX_BODY_IN_DETAIL]}"
        return Answer(outcome, detail, response.content)

    def post(self, path: str, body: bytes, content_type: str) -> Answer:
        """POST ``body``; the classified answer. Never raises."""
        return self.request("POST", path, content=body, content_type=content_type)

    def close(self) -> None:
        """Close the connection pool (safe twice)."""
        self._client.close()


class GrpcTransport:
    """Unary gRPC calls with already-serialized request bytes.

    Args:
        endpoint: ``http://host:port`` (plaintext) or ``https://host:port`` (TLS with the
            system roots); a bare ``host:port`` is plaintext.
        headers: Metadata sent with every call (keys lower-cased).
        timeout_s: Seconds one call may take.

    Example:
        >>> t = GrpcTransport("http://127.0.0.1:1", timeout_s=0.5)
        >>> t.call("/opentelemetry.proto.collector.logs.v1.LogsService/Export", b"").outcome
        'retry'
        >>> t.close()
    """

    def __init__(self, endpoint: str, *, headers: Optional[Mapping[str, str]] = None,
                 timeout_s: float = 10.0):
        import grpc

        parts = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
        self.target = parts.netloc
        self.secure = parts.scheme == "https"
        self.metadata = tuple((k.lower(), v) for k, v in (headers or {}).items())
        self.timeout_s = timeout_s
        self._grpc = grpc
        if self.secure:
            self._channel = grpc.secure_channel(self.target, grpc.ssl_channel_credentials())
        else:
            self._channel = grpc.insecure_channel(self.target)
        self._methods: dict = {}
        self._lock = threading.Lock()

    def call(self, method: str, body: bytes) -> Answer:
        """Call ``method`` (``/package.Service/Method``) with ``body``. Never raises."""
        with self._lock:
            stub = self._methods.get(method)
            if stub is None:
                stub = self._methods[method] = self._channel.unary_unary(method)
        try:
            response = stub(body, timeout=self.timeout_s, metadata=self.metadata or None)
        except self._grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            name = code.name if code is not None else "UNKNOWN"
            details = exc.details() if hasattr(exc, "details") else ""
            return Answer(classify_grpc(name),
                          f"gRPC {name} from {self.target}{method}" + (f": {details}" if details else ""))
        except Exception as exc:  # noqa: BLE001 - a transport must not raise
            return Answer("retry", f"gRPC call to {self.target}{method} failed: {exc}")
        return Answer("sent", f"gRPC OK from {self.target}{method}", bytes(response or b""))

    def close(self) -> None:
        """Close the channel (safe twice)."""
        self._channel.close()
