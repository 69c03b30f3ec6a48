"""Configuration of ``ek-otel serve``: one frozen dataclass, defaults in one place, validate().

Example:
    >>> cfg = ServeConfig(gold="gold.jsonl")
    >>> cfg.http, cfg.grpc, cfg.grace_s, cfg.max_body_bytes // 2**20
    (('127.0.0.1', 4318), ('127.0.0.1', 4317), 2.0, 64)
    >>> cfg.validate() is cfg
    True
    >>> parse_hostport("0.0.0.0:9000")
    ('0.0.0.0', 9000)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from ..errors import ConfigError, InputError

__all__ = [
    "DEFAULT_HTTP",
    "DEFAULT_GRPC",
    "DEFAULT_STORE",
    "DEFAULT_GRACE_S",
    "DEFAULT_MAX_WAIT_S",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_OPEN_TRACES",
    "DEFAULT_MAX_PENDING_BYTES",
    "DEFAULT_MAX_INFLIGHT_BYTES",
    "DEFAULT_RETRY_AFTER_S",
    "DEFAULT_BODY_TIMEOUT_S",
    "DEFAULT_SYNCHRONOUS",
    "ServeConfig",
    "parse_hostport",
]

DEFAULT_HTTP = ("127.0.0.1", 4318)
DEFAULT_GRPC = ("127.0.0.1", 4317)
DEFAULT_STORE = "./ek-otel.db"
#: Seconds with no new span, after the root span arrived, before a trace is scored.
DEFAULT_GRACE_S = 2.0
#: Seconds from a trace's first (unscored) span after which it is scored regardless.
DEFAULT_MAX_WAIT_S = 300.0
#: Cap on one request body after decompression (the OTLP spec's recommendation): 413 above.
DEFAULT_MAX_BODY_BYTES = 64 * 2**20
#: Seconds before a score a backend refuses for good, or whose run it lacks, is given up.
DEFAULT_EXPORT_GIVE_UP_S = 600.0
#: Cap on traces received but not yet scored: 503/UNAVAILABLE with retry above.
DEFAULT_MAX_OPEN_TRACES = 100_000
#: Cap on raw span bytes received but not yet scored: 503/UNAVAILABLE with retry above.
DEFAULT_MAX_PENDING_BYTES = 512 * 2**20
#: Cap on request bodies being read or processed at once (memory held by requests).
DEFAULT_MAX_INFLIGHT_BYTES = 256 * 2**20
#: The ``Retry-After`` (HTTP) / ``RetryInfo`` (gRPC) delay sent when overloaded.
DEFAULT_RETRY_AFTER_S = 1
#: Seconds a client has to send its whole body (slow clients get 408).
DEFAULT_BODY_TIMEOUT_S = 30.0
#: SQLite ``synchronous`` level. FULL: an acknowledged request survives a power loss too, not
#: only a crash; group commit pays the fsync once per batch of concurrent requests.
DEFAULT_SYNCHRONOUS = "FULL"


def default_scorers() -> int:
    """Scoring worker processes by default: one per core this process may run on.

    The workers run at a lower priority than the receiver (``nice 5``), so a busy receiver
    keeps its core, and between bursts every core scores (``bench/all.py``, serve scoring,
    2 cores: the last of 10k runs scored about a third sooner with 2 workers than with 1).

    Example:
        >>> default_scorers() >= 1
        True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_hostport(text: str) -> tuple[str, int]:
    """Parse ``HOST:PORT`` (``[::1]:PORT`` for IPv6); raises :class:`InputError` when malformed.

    Example:
        >>> parse_hostport("[::1]:4317")
        ('::1', 4317)
        >>> parse_hostport("nope")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: expected HOST:PORT, got 'nope'
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InputError(f"expected HOST:PORT, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


@dataclass(frozen=True)
class ServeConfig:
    """Everything ``ek-otel serve`` needs to run.

    Args:
        gold: The gold task file.
        http: Address of the OTLP/HTTP receiver, or None to disable it.
        grpc: Address of the OTLP/gRPC receiver, or None to disable it.
        store: Path of the SQLite store.
        emit_endpoint: OTLP endpoint scores are exported to (None: no OTLP export).
        emit_protocol: ``"http"`` or ``"grpc"``.
        emit_file: JSON-lines file scores are written to (None: none).
        emit_headers: ``(key, value)`` headers / metadata sent with every OTLP export.
        emit_timeout_s: Seconds one OTLP export may take, the exporter's retries included.
        emit_signals: Which OTLP signals the endpoint and file get (``"spans"``, ``"logs"``).
        phoenix: Also emit OpenInference EVALUATOR spans (for Phoenix).
        phoenix_url: Phoenix base URL: scores also become span and trace annotations there.
        phoenix_api_key: Phoenix API key (when Phoenix auth is on).
        mlflow_tracking_uri: MLflow tracking server: scores also become feedback assessments.
        trace_url: Link template for the trace ids on the live page (``GET /``), with one
            ``{trace_id}`` placeholder (None: trace ids without links).
        grace_s: Quiet time after the root span before a trace is scored.
        max_wait_s: Backstop from the first unscored span.
        auth_token: Bearer token required from clients (None: no auth).
        tls_cert, tls_key: PEM files; both or neither.
        max_body_bytes: Cap on one request body after decompression.
        max_open_traces, max_pending_bytes, max_inflight_bytes: Memory caps (503 above).
        retry_after_s: Delay suggested to clients when overloaded.
        body_timeout_s: Time a client has to send its body.
        synchronous: SQLite synchronous level, ``"FULL"`` or ``"NORMAL"``.
        export_give_up_s: Seconds after its first failed attempt before a score a backend
            refuses for good (401/403/400/422), or whose run it does not have (Phoenix or
            MLflow 404), is given up with one warning and counted as failed. Transient failures
            (5xx, connection errors) are retried for as long as it takes.
        scorer_processes: Scoring worker processes (0: a thread in the server process;
            default: :func:`default_scorers`).
        score_settings: The :class:`~ek_otel.scoring.settings.ScoreSettings` as JSON
            (``ScoreSettings.to_json()``; ``""``: the defaults for the gold file).
    """

    gold: str = ""
    http: Optional[tuple[str, int]] = DEFAULT_HTTP
    grpc: Optional[tuple[str, int]] = DEFAULT_GRPC
    store: str = DEFAULT_STORE
    emit_endpoint: Optional[str] = None
    emit_protocol: str = "http"
    emit_file: Optional[str] = None
    emit_headers: tuple = ()
    emit_timeout_s: float = 10.0
    emit_signals: tuple = ("spans", "logs")
    phoenix: bool = False
    phoenix_url: Optional[str] = None
    phoenix_api_key: Optional[str] = field(default=None, repr=False)
    mlflow_tracking_uri: Optional[str] = None
    trace_url: Optional[str] = None
    grace_s: float = DEFAULT_GRACE_S
    max_wait_s: float = DEFAULT_MAX_WAIT_S
    auth_token: Optional[str] = None
    tls_cert: Optional[str] = None
    tls_key: Optional[str] = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_open_traces: int = DEFAULT_MAX_OPEN_TRACES
    max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES
    max_inflight_bytes: int = DEFAULT_MAX_INFLIGHT_BYTES
    retry_after_s: int = DEFAULT_RETRY_AFTER_S
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S
    export_give_up_s: float = DEFAULT_EXPORT_GIVE_UP_S
    synchronous: str = DEFAULT_SYNCHRONOUS
    scorer_processes: int = field(default_factory=default_scorers)
    score_settings: str = ""

    def validate(self) -> "ServeConfig":
        """Check rules across fields; raises :class:`~ek_otel.errors.ConfigError` (naming the
        fields, which a CLI may show as its flags), returns ``self``.

        Example:
            >>> ServeConfig(gold="g", tls_cert="c.pem").validate()
            Traceback (most recent call last):
            ...
            ek_otel.errors.ConfigError: tls_cert and tls_key go together
            >>> ServeConfig(gold="g", grace_s=5, max_wait_s=1).validate()
            Traceback (most recent call last):
            ...
            ek_otel.errors.ConfigError: max_wait_s must be at least grace_s
        """
        if not self.gold:
            raise ConfigError("a gold file is required ({gold})", fields=("gold",))
        if self.http is None and self.grpc is None:
            raise ConfigError("enable at least one receiver ({http} or {grpc})",
                              fields=("http", "grpc"))
        if self.emit_protocol not in ("http", "grpc"):
            raise ConfigError(f"{{emit_protocol}} must be http or grpc, not {self.emit_protocol!r}",
                              fields=("emit_protocol",))
        if self.emit_endpoint and not self.emit_endpoint.startswith(("http://", "https://")):
            raise ConfigError(f"{{emit_endpoint}} must be an http:// or https:// URL, "
                              f"got {self.emit_endpoint!r}", fields=("emit_endpoint",))
        for name in ("phoenix_url", "mlflow_tracking_uri"):
            url = getattr(self, name)
            if url and not url.startswith(("http://", "https://")):
                raise ConfigError(f"{{{name}}} must be an http:// or https:// URL, got {url!r}",
                                  fields=(name,))
        if self.trace_url is not None:
            from ..report.page_data import validate_trace_url

            try:
                validate_trace_url(self.trace_url)
            except InputError as exc:
                raise ConfigError(str(exc).replace("--trace-url", "{trace_url}", 1),
                                  fields=("trace_url",)) from None
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ConfigError("{tls_cert} and {tls_key} go together", fields=("tls_cert", "tls_key"))
        if self.grace_s < 0 or self.max_wait_s <= 0:
            raise ConfigError("{grace_s} must be >= 0 and {max_wait_s} > 0",
                              fields=("grace_s", "max_wait_s"))
        if self.max_wait_s < self.grace_s:
            raise ConfigError("{max_wait_s} must be at least {grace_s}",
                              fields=("max_wait_s", "grace_s"))
        if self.synchronous.upper() not in ("FULL", "NORMAL"):
            raise ConfigError("{synchronous} must be FULL or NORMAL", fields=("synchronous",))
        for name in ("max_body_bytes", "max_open_traces", "max_pending_bytes", "max_inflight_bytes"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{{{name}}} must be positive", fields=(name,))
        if self.max_pending_bytes < self.max_body_bytes or self.max_inflight_bytes < self.max_body_bytes:
            raise ConfigError("the pending and in-flight byte caps must be at least the body cap")
        if not self.export_give_up_s >= 0 or self.export_give_up_s == float("inf"):
            raise ConfigError("{export_give_up_s} must be a finite number of seconds >= 0",
                              fields=("export_give_up_s",))
        if self.scorer_processes < 0:
            raise ConfigError("{scorer_processes} must be >= 0", fields=("scorer_processes",))
        return self

    def emit_options(self) -> dict:
        """Where scores go, as :func:`ek_otel.emit.sinks.make_sinks` takes it.

        Example:
            >>> ServeConfig(gold="g", emit_file="s.jsonl").emit_options()["file"]
            's.jsonl'
        """
        return {"file": self.emit_file or None, "endpoint": self.emit_endpoint or None,
                "protocol": self.emit_protocol, "headers": dict(self.emit_headers),
                "timeout": self.emit_timeout_s, "phoenix": self.phoenix,
                "signals": self.emit_signals, "phoenix_url": self.phoenix_url or None,
                "phoenix_api_key": self.phoenix_api_key,
                "mlflow_tracking_uri": self.mlflow_tracking_uri or None}

    @property
    def tls(self) -> bool:
        """True when both a certificate and a key are set."""
        return bool(self.tls_cert and self.tls_key)
