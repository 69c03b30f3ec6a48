"""``ek-otel serve``: an OTLP receiver that scores each finished run live.

Example:
    >>> from click.testing import CliRunner
    >>> r = CliRunner().invoke(serve, ["--help"])
    >>> "--grace" in r.output and "--emit-endpoint" in r.output
    True
"""

from __future__ import annotations

import logging
import os

import click

from ..errors import InputError
from ..serve.config import (
    DEFAULT_EXPORT_GIVE_UP_S,
    DEFAULT_GRACE_S,
    DEFAULT_MAX_OPEN_TRACES,
    DEFAULT_MAX_PENDING_BYTES,
    DEFAULT_MAX_WAIT_S,
    DEFAULT_STORE,
    ServeConfig,
    parse_hostport,
)
from ._common import (check_mode_overrides, emit_options, parse_headers, phoenix_api_key,
                      scoring_options)

__all__ = ["serve"]


class RepeatFilter(logging.Filter):
    """Let one record per message template through every ``interval_s`` seconds.

    asyncio logs "socket.accept() out of system resource" (with a traceback) on every
    accept attempt while the process is out of file descriptors: tens of thousands of
    lines a second under a connection flood. One line a minute says the same.

    Example:
        >>> f = RepeatFilter(interval_s=60.0, clock=iter([0.0, 1.0, 61.0]).__next__)
        >>> rec = logging.LogRecord("asyncio", logging.ERROR, "", 0, "out of %s", ("fds",), None)
        >>> [f.filter(rec) for _ in range(3)]
        [True, False, True]
    """

    def __init__(self, interval_s: float = 60.0, clock=None):
        super().__init__()
        import time

        self.interval_s = interval_s
        self.clock = clock or time.monotonic
        self._last: dict = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        last = self._last.get(record.msg)
        if last is not None and now - last < self.interval_s:
            return False
        self._last[record.msg] = now
        return True


def _raise_fd_limit() -> None:
    """Raise the soft open-files limit to the hard one (each client connection is a file
    descriptor; a low soft limit, often 1024, is what a connection flood exhausts first)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY:
            hard = max(soft, 1 << 20)
        if soft != resource.RLIM_INFINITY and soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: keep the limit
        pass


def _address(value: str):
    if value.lower() in ("", "off", "none"):
        return None
    return parse_hostport(value)


@click.command("serve")
@click.option("--gold", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold task file the runs are scored against.")
@click.option("--http", "http_addr", default="127.0.0.1:4318", show_default=True,
              metavar="HOST:PORT", help="OTLP/HTTP receiver address ('off' to disable).")
@click.option("--grpc", "grpc_addr", default="127.0.0.1:4317", show_default=True,
              metavar="HOST:PORT", help="OTLP/gRPC receiver address ('off' to disable).")
@click.option("--store", default=DEFAULT_STORE, show_default=True, type=click.Path(dir_okay=False),
              help="SQLite store: received spans, scores and the export outbox.")
@emit_options
@click.option("--grace", default=DEFAULT_GRACE_S, show_default=True, type=float,
              help="Seconds with no new span, after the root span, before a run is scored.")
@click.option("--max-wait", default=DEFAULT_MAX_WAIT_S, show_default=True, type=float,
              help="Seconds from a run's first span after which it is scored anyway.")
@click.option("--export-give-up", "export_give_up", default=DEFAULT_EXPORT_GIVE_UP_S,
              show_default=True, type=float, metavar="SECONDS",
              help="Give up a score a backend refuses for good (401/403/400/422) or whose run it "
                   "does not have (Phoenix/MLflow 404) this long after its first failed attempt: "
                   "one warning, counted as failed. 5xx and connection errors retry forever.")
@click.option("--auth-token-env", default=None, metavar="VAR",
              help="Require 'Authorization: Bearer <token>', the token read from this variable.")
@click.option("--tls-cert", default=None, type=click.Path(exists=True, dir_okay=False),
              help="PEM certificate: serve HTTPS and gRPC over TLS.")
@click.option("--tls-key", default=None, type=click.Path(exists=True, dir_okay=False),
              help="PEM private key of --tls-cert.")
@scoring_options
@click.option("--max-open-traces", default=DEFAULT_MAX_OPEN_TRACES, show_default=True, type=int,
              help="Cap on runs received but not yet scored (503 with Retry-After above).")
@click.option("--max-pending-mib", default=DEFAULT_MAX_PENDING_BYTES // 2**20, show_default=True,
              type=int, help="Cap on span bytes received but not yet scored, in MiB (503 above).")
@click.option("--scorers", default=None, type=int,
              help="Scoring worker processes (0: a thread in the server process).  "
                   "[default: one per available core]")
@click.option("--synchronous", type=click.Choice(["FULL", "NORMAL"], case_sensitive=False),
              default="FULL", show_default=True,
              help="SQLite durability: FULL survives power loss, NORMAL only process crashes.")
@click.option("--trace-url", "trace_url", metavar="TEMPLATE", default=None,
              help="Link each trace id on the live page (GET /) with this URL template, e.g. "
                   "'https://jaeger.example/trace/{trace_id}'.")
@click.option("-v", "--verbose", is_flag=True, help="Log warnings and progress to stderr.")
def serve(gold, http_addr, grpc_addr, store, emit_endpoint, emit_protocol, emit_file,
          emit_headers, emit_timeout, emit_signals, phoenix, phoenix_url, phoenix_api_key_env,
          mlflow_tracking_uri, grace,
          max_wait, export_give_up, auth_token_env, tls_cert, tls_key, task_id, level, strategy, matcher,
          pricing, task_id_keys, ignore_tools, link_by, match, ordered, max_open_traces, max_pending_mib, scorers,
          synchronous, trace_url, verbose) -> None:
    """Receive OTLP traces, score each finished run against the gold tasks, export the scores.

    A run (one trace) is scored once its root span has arrived and --grace seconds passed
    with no new span, or --max-wait after its first span. Late spans re-score it as a new
    revision. Spans are durable in --store before a request is acknowledged; after a crash,
    a restart scores and exports every acknowledged run exactly once. SIGTERM stops
    gracefully. See `ek-otel report` for the corpus report.

    \b
    Example:
        ek-otel serve --gold examples/tasks.jsonl --emit-file scores.jsonl
        ek-otel serve --gold examples/tasks.jsonl --emit-endpoint http://127.0.0.1:6006 \
            --emit-signals spans --phoenix-url http://127.0.0.1:6006
        ek-otel report --store ek-otel.db
    """
    from ..serve.app import serve as run

    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR,
                        format="ek-otel: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("asyncio").addFilter(RepeatFilter())
    _raise_fd_limit()
    if not verbose:
        # aiohttp logs every malformed request (bad chunked framing, bad headers) at ERROR with
        # a traceback; the client gets its 400 anyway. Without -v, a hostile client must not
        # be able to flood stderr.
        logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    token = None
    if auth_token_env:
        token = os.environ.get(auth_token_env)
        if not token:
            raise InputError(f"--auth-token-env {auth_token_env}: the variable is not set or empty")
    from ..scoring.link import load_settings

    # A bad gold file or option fails now, with one line; the settings travel as JSON.
    check_mode_overrides(matcher, match, ordered)
    _, settings = load_settings(gold, task_id=task_id, level=level, strategy=strategy,
                                matcher=matcher, pricing=pricing, task_id_keys=task_id_keys,
                                ignore_tools=ignore_tools, link_by=link_by,
                                match=match, ordered=ordered)
    config = ServeConfig(
        gold=gold, http=_address(http_addr), grpc=_address(grpc_addr), store=store,
        emit_endpoint=emit_endpoint, emit_protocol=emit_protocol, emit_file=emit_file,
        emit_headers=tuple(parse_headers(emit_headers).items()), emit_timeout_s=emit_timeout,
        emit_signals=emit_signals, phoenix=phoenix, phoenix_url=phoenix_url,
        phoenix_api_key=phoenix_api_key(phoenix_api_key_env),
        mlflow_tracking_uri=mlflow_tracking_uri, trace_url=trace_url,
        grace_s=grace, max_wait_s=max_wait, export_give_up_s=export_give_up, auth_token=token,
        tls_cert=tls_cert,
        tls_key=tls_key, max_open_traces=max_open_traces,
        max_pending_bytes=max_pending_mib * 2**20, synchronous=synchronous.upper(),
        **({} if scorers is None else {"scorer_processes": scorers}),
        score_settings=settings.to_json(),
    ).validate()  # a ConfigError names fields: the CLI's error_line shows them as flags
    code = run(config, log=lambda line: click.echo(line, err=True))
    raise SystemExit(code)
