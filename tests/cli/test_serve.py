"""`ek-otel serve` as a command: start, receive over gRPC and HTTP, SIGTERM → exit 0; bad options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "serve"))

from serve_helpers import (  # noqa: E402
    GOLD_TASKS, ServerProcess, emit_run, make_provider, server_processes, wait_for)  # noqa: F401


@pytest.fixture()
def gold_file(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in GOLD_TASKS))
    return str(path)


def test_serve_scores_and_stops_gracefully_on_sigterm(tmp_path, gold_file, monkeypatch):
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    monkeypatch.setenv("EK_TEST_TOKEN", "t0ken")   # inherited by the server process
    scores = tmp_path / "scores.jsonl"
    server = ServerProcess(["--gold", gold_file, "--store", str(tmp_path / "s.db"),
                            "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--grace", "0.2",
                            "--emit-file", str(scores), "--auth-token-env", "EK_TEST_TOKEN"],
                           str(tmp_path / "serve.log"))
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/readyz", timeout=10) as r:
            assert r.status == 200
        exporter = OTLPSpanExporter(endpoint=f"127.0.0.1:{server.grpc_port}", insecure=True,
                                    headers={"authorization": "Bearer t0ken"})
        provider = make_provider(exporter)
        ids = {emit_run(provider.get_tracer("t"), i) for i in range(2)}
        provider.shutdown()
        wait_for(lambda: scores.exists() and all(i in scores.read_text() for i in ids), 60,
                 "both scores in the file")
    finally:
        code = server.terminate()
        server.close()
    assert code == 0
    log = open(tmp_path / "serve.log").read()
    assert "stopped" in log and "Traceback" not in log


@pytest.mark.parametrize("args, message", [
    (["--tls-cert", "{gold}"], "ek-otel: error: --tls-cert and --tls-key go together\n"),
    (["--auth-token-env", "EK_NO_SUCH_VARIABLE_SET"], "not set"),
    (["--http", "nowhere"], "HOST:PORT"),
    (["--http", "off", "--grpc", "off"], "at least one receiver"),
    (["--grace", "10", "--max-wait", "1"], "--max-wait must be at least --grace"),
    (["--grace", "-1"], "--grace must be >= 0 and --max-wait > 0"),
    (["--scorers", "-1"], "--scorers must be >= 0"),
    (["--export-give-up", "-5"], "--export-give-up must be a finite number of seconds >= 0"),
    (["--export-give-up", "nan"], "--export-give-up must be a finite number of seconds >= 0"),
    (["--max-open-traces", "0"], "--max-open-traces must be positive"),
    (["--emit-endpoint", "127.0.0.1:4317"], "http:// or https://"),
    (["--emit-header", "novalue"], "KEY=VALUE"),
    (["--ignore-tool", "*"], "would ignore every call"),
    (["--ignore-tool", "get_*"], "expects a call to 'get_weather', which --ignore-tool 'get_*' removes"),
])
def test_bad_options_are_one_line_and_exit_2(gold_file, args, message):
    args = [a.replace("{gold}", gold_file) for a in args]
    proc = subprocess.run([sys.executable, "-m", "ek_otel", "serve", "--gold", gold_file, *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_a_port_in_use_is_one_line_and_exit_2(gold_file, tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "ek_otel", "serve", "--gold", gold_file, "--store",
             str(tmp_path / "s.db"), "--grpc", "127.0.0.1:0", "--http", f"127.0.0.1:{port}"],
            capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "cannot start the receivers" in proc.stderr and "Traceback" not in proc.stderr


def _serve(gold_file, store, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "ek_otel", "serve", "--gold", gold_file, "--store", str(store),
         "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=timeout)


def test_a_store_that_is_not_ours_is_one_line_and_exit_2(gold_file, tmp_path):
    """Regression: a corrupt store ended in a traceback (exit 1), and another application's
    SQLite database got ek-otel's tables added to it."""
    import sqlite3

    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not sqlite\n" * 10)
    foreign = tmp_path / "app.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE users(name)")
    conn.commit()
    conn.close()
    from ek_otel.serve.store import STORE_FORMAT, Store

    newer = tmp_path / "newer.db"
    Store(str(newer)).close()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version={STORE_FORMAT + 1}")
    conn.close()
    for store, message in ((corrupt, "not a database"),
                           (foreign, "not an ek-otel store (it holds other tables: users); "
                                     "choose another --store\n"),
                           (newer, f"written by a newer ek-otel (store format {STORE_FORMAT + 1}; "
                                   f"this one reads up to {STORE_FORMAT}); upgrade ek-otel or "
                                   "choose another --store\n")):
        proc = _serve(gold_file, store)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    conn = sqlite3.connect(foreign)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")] == [
        "users"]
    conn.close()


def test_a_second_server_on_the_same_store_is_refused(gold_file, tmp_path, server_processes):
    """Two servers on one store would score and export every run twice."""
    store = tmp_path / "s.db"
    first = ServerProcess(["--gold", gold_file, "--store", str(store), "--http", "127.0.0.1:0",
                           "--grpc", "127.0.0.1:0"], str(tmp_path / "first.log"))
    server_processes.append(first)
    proc = _serve(gold_file, store)
    assert proc.returncode == 2, proc.stderr
    assert "in use by another ek-otel serve" in proc.stderr and "Traceback" not in proc.stderr
    first.kill9()                      # the kernel drops the lock: a restart is not blocked
    second = ServerProcess(["--gold", gold_file, "--store", str(store), "--http", "127.0.0.1:0",
                            "--grpc", "127.0.0.1:0"], str(tmp_path / "second.log"))
    server_processes.append(second)
    assert second.terminate() == 0


def test_serve_raises_the_open_files_limit_and_rate_limits_accept_errors():
    """Regression: with the usual soft limit of 1024 open files, a flood of idle connections
    stopped the server from accepting, and asyncio then logged a traceback on every accept
    attempt (85k lines in seconds)."""
    code = (
        "import resource, logging\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))\n"
        "from ek_otel.cli.serve import _raise_fd_limit, RepeatFilter\n"
        "_raise_fd_limit()\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard or hard <= 256)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.strip() == "True", proc.stderr
    import logging

    from ek_otel.cli.serve import RepeatFilter

    f = RepeatFilter(interval_s=60.0)
    record = logging.LogRecord("asyncio", logging.ERROR, "", 0,
                               "socket.accept() out of system resource", (), None)
    assert [f.filter(record) for _ in range(1000)].count(True) == 1
