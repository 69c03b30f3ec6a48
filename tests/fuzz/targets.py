"""The fuzz targets: each takes one input and raises only when ek-otel behaves in an
undocumented way (an exception that is not a documented ek-otel error, a value no writer
can write). Shared by the hypothesis suite (CI) and the atheris harnesses (``fuzz/``).

Documented outcomes: a result, an :class:`~ek_otel.errors.EkOtelError` (one line, exit 2
in the CLI), a BFCL :class:`~ek_otel.bfcl.decode.DecodeError`, an HTTP status of the
receiver's table (never 500).

Example:
    >>> run_bfcl("[f(a=1)]")
    >>> run_gold(b'{"task_id": "t", "calls": []}', "jsonl")
"""

from __future__ import annotations

import asyncio
import io
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from ek_otel.errors import EkOtelError

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "examples" / "tasks.jsonl"
PRICING = ROOT / "examples" / "pricing.yaml"

#: Where the targets write their one input file (per process).
_WORK = tempfile.mkdtemp(prefix="ek-otel-fuzz-")


class Undocumented(AssertionError):
    """ek-otel did something no documentation allows for this input."""


@lru_cache(maxsize=1)
def _scoring():
    from ek_otel.scoring.link import load_settings

    return load_settings(str(GOLD), task_id=None, level="call", strategy="best_first",
                         matcher="ek", pricing=str(PRICING), task_id_keys=(), group_by="trace")


def _path(name: str, data: bytes) -> str:
    path = os.path.join(_WORK, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


# ---------------------------------------------------------------------------
# dumps: decode + episodes + scoring + doctor + every writer
# ---------------------------------------------------------------------------

def run_dump(data: bytes, *, html: bool = False) -> dict:
    """One dump file through ``score`` (JSON report, tables, optionally the HTML page),
    ``episodes`` (JSON lines) and ``doctor``, in process; the bad-input counts."""
    from ek_otel.scoring.report_json import indented_json_chunks
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.ingest.episode_dict import episode_to_json
    from ek_otel.pipeline import diagnose_dumps, read_episodes, score_dump

    path = _path("dump", data)
    tasks, settings = _scoring()
    report = BadInputReport()
    try:
        run = score_dump([path], tasks, settings, report=report, jobs=1)
    except EkOtelError:
        return dict(report.counts)
    payload = run.to_dict(lazy_episodes=False)
    payload["bad_input"] = {"total": report.total, "counts": dict(report.counts),
                            "cases": [str(c) for c in report.cases]}
    text = b"".join(indented_json_chunks(payload))
    text.decode("utf-8")  # strict: what a reader of the report does
    _tables(run, report)
    if html:
        from ek_otel.report.html import render_run
        from ek_otel.report.model import report_from_dict

        render_run(report_from_dict(payload, "fuzz")).encode("utf-8")
    for episode in read_episodes([path], report=BadInputReport()):
        episode_to_json(episode).encode("utf-8")
    diagnosis = diagnose_dumps([path], report=BadInputReport())
    import json

    json.dumps(diagnosis.to_dict(), ensure_ascii=False).encode("utf-8", "strict") \
        if _no_surrogates(diagnosis.to_dict()) else None
    return dict(report.counts)


def _no_surrogates(value) -> bool:
    from ek_otel.core.text import has_lone_surrogates

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_lone_surrogates(item):
                raise Undocumented(f"a lone surrogate reached a writer: {item[:80]!r}")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return True


def _tables(run, report) -> None:
    from rich.console import Console

    from ek_otel.cli._tables import groups_table, slices_table, tasks_table, unmatched_table

    console = Console(file=io.StringIO(), width=120)
    for make in (tasks_table, slices_table, groups_table, unmatched_table):
        try:
            table = make(run)
        except TypeError:
            continue
        if table is not None:
            console.print(table)
    console.file.getvalue().encode("utf-8")


# ---------------------------------------------------------------------------
# gold and pricing files
# ---------------------------------------------------------------------------

def run_gold(data: bytes, kind: str) -> None:
    """A gold file (``kind``: jsonl, json, yaml) through ``gold validate`` and
    ``load_tasks``; an unusable file must be a :class:`GoldFileError` naming the file."""
    from ek_otel.errors import GoldFileError
    from ek_otel.gold.native import load_tasks, validate_file

    path = _path(f"gold.{kind}", data)
    try:
        validation = validate_file(path)
    except GoldFileError as exc:
        _names_file(exc, path)
    else:
        for error in validation.errors:
            _names_file(error, path)
    try:
        load_tasks(path)
    except GoldFileError as exc:
        _names_file(exc, path)


def run_pricing(data: bytes, kind: str) -> None:
    """A pricing file (``kind``: json, yaml) through ``read_pricing``."""
    from ek_otel.errors import PricingError
    from ek_otel.gold.pricing import read_pricing

    path = _path(f"pricing.{kind}", data)
    try:
        read_pricing(path)
    except PricingError as exc:
        _names_file(exc, path)


def _names_file(exc: Exception, path: str) -> None:
    if not str(exc).startswith(path):
        raise Undocumented(f"the error does not name the file: {exc}")
    if "\n" in str(exc):
        raise Undocumented(f"the error is not one line: {exc!r}")


# ---------------------------------------------------------------------------
# BFCL decoders
# ---------------------------------------------------------------------------

def run_bfcl(text: str) -> None:
    """A model result through every BFCL decoder (Python, Java, JavaScript prompting,
    function calling, execute)."""
    from ek_otel.bfcl.decode import DecodeError, decode_ast, decode_execute

    for call in (lambda: decode_ast(text, "python"), lambda: decode_ast(text, "java"),
                 lambda: decode_ast(text, "javascript"), lambda: decode_execute(text),
                 lambda: decode_ast([{"f": text}]), lambda: decode_execute([{"f": text}])):
        try:
            call()
        except DecodeError:
            pass


# ---------------------------------------------------------------------------
# the HTTP receiver, in process (aiohttp's test client)
# ---------------------------------------------------------------------------

#: What the receiver may answer (``serve.responses``); 500 never.
DOCUMENTED_STATUSES = frozenset({200, 400, 401, 404, 405, 408, 413, 415, 503})


class Receiver:
    """A real receiver (intake, group commit into a store, trace index) behind aiohttp's
    test server, for one process's whole fuzz run."""

    def __init__(self, gold: str = str(GOLD)):
        from aiohttp.test_utils import TestClient, TestServer

        from ek_otel.serve.config import ServeConfig
        from ek_otel.serve.groupcommit import GroupCommitWriter
        from ek_otel.serve.http_receiver import make_app
        from ek_otel.serve.intake import Intake
        from ek_otel.serve.store import Store
        from ek_otel.serve.trace_index import TraceIndex

        store_path = os.path.join(tempfile.mkdtemp(prefix="ek-otel-fuzz-serve-"), "store.db")
        self.config = ServeConfig(gold=gold, store=store_path, max_body_bytes=4 << 20)
        self.writer = GroupCommitWriter(lambda: Store(store_path))
        self.writer.start()
        cfg = self.config
        index = TraceIndex(grace_s=cfg.grace_s, max_wait_s=cfg.max_wait_s,
                           max_open_traces=cfg.max_open_traces,
                           max_pending_bytes=cfg.max_pending_bytes, retry_after_s=cfg.retry_after_s)
        self.intake = Intake(self.writer, index)
        self.loop = asyncio.new_event_loop()
        app = make_app(self.intake, cfg, ready=lambda: True)
        # as HttpReceiver runs it: bodies decompressed by ek-otel's capped decoder, not aiohttp
        server = TestServer(app, host="127.0.0.1", port=0)
        self.loop.run_until_complete(server.start_server(
            self.loop, auto_decompress=False, access_log=None, handle_signals=False))
        self.client = TestClient(server, loop=self.loop)
        self.loop.run_until_complete(self.client.start_server())

    def post(self, path: str, body: bytes, content_type: str, encoding: str = "") -> int:
        headers = {"Content-Type": content_type}
        if encoding:
            headers["Content-Encoding"] = encoding

        async def send() -> int:
            response = await self.client.post(path, data=body, headers=headers)
            await response.read()
            return response.status

        status = self.loop.run_until_complete(send())
        if status not in DOCUMENTED_STATUSES:
            raise Undocumented(f"POST {path} ({content_type}, {encoding or 'identity'}): {status}")
        return status

    def healthy(self) -> None:
        async def get() -> int:
            response = await self.client.get("/healthz")
            await response.read()
            return response.status

        status = self.loop.run_until_complete(get())
        if status != 200:
            raise Undocumented(f"/healthz answered {status}")

    def close(self) -> None:
        self.loop.run_until_complete(self.client.close())
        self.loop.close()
        self.writer.stop()


_CONTENT_TYPES = ("application/x-protobuf", "application/json", "application/protobuf",
                  "text/plain", "")
_ENCODINGS = ("", "gzip", "deflate", "zstd", "br")


@lru_cache(maxsize=1)
def receiver() -> Receiver:
    """The process's one receiver."""
    return Receiver()


def run_http(body: bytes, selector: int = 0) -> int:
    """One request to the receiver: the body as it is, with a content type and encoding
    chosen by ``selector``; then ``/healthz`` must answer 200."""
    r = receiver()
    path = "/v1/logs" if selector & 1 else "/v1/traces"
    content_type = _CONTENT_TYPES[(selector >> 1) % len(_CONTENT_TYPES)]
    encoding = _ENCODINGS[(selector >> 4) % len(_ENCODINGS)]
    status = r.post(path, body, content_type, encoding)
    r.healthy()
    return status
