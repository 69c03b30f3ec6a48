"""Bodies of another SDK: what the OpenTelemetry JS exporters really send, replayed.

The fixtures (``fixtures/js-*``) were captured from ``@opentelemetry/exporter-trace-otlp-{proto,
http,grpc}`` and ``exporter-logs-otlp-{proto,http}`` (versions in ``fixtures/js-index.json``)
by ``js/capture.py``; they need no node to replay. The JS JSON encoding differs from the
Python SDK's: ``intValue`` is a JSON number, bodies come with ``Transfer-Encoding: chunked``
and no Content-Length, and log records carry ``eventName``. The HTTP bodies are replayed
chunked, as the JS exporters send them.
"""

from __future__ import annotations

import json
import os
import socket

import grpc

from serve_helpers import wait_for

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def _index() -> dict:
    with open(os.path.join(FIXTURES, "js-index.json")) as f:
        return json.load(f)


def post_chunked(port: int, path: str, content_type: str, body: bytes) -> int:
    """POST with Transfer-Encoding: chunked (two chunks), as the JS exporters do; the status."""
    half = len(body) // 2
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:half], body[half:]) if c)
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
            "User-Agent: OTel-OTLP-Exporter-JavaScript\r\nTransfer-Encoding: chunked\r\n"
            "Connection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head + chunks + b"0\r\n\r\n")
        data = b""
        while b"\r\n" not in data:
            more = sock.recv(4096)
            if not more:
                break
            data += more
    return int(data.split(b" ", 2)[1])


def replay(server, protocols=("json", "proto", "grpc")) -> int:
    """Send every captured body of ``protocols``; returns how many were sent."""
    sent = 0
    channel = grpc.insecure_channel(server.grpc_target)
    try:
        for item in _index()["requests"]:
            if item["protocol"] not in protocols:
                continue
            with open(os.path.join(FIXTURES, item["file"]), "rb") as f:
                body = f.read()
            if item["protocol"] == "grpc":
                service = ("opentelemetry.proto.collector.trace.v1.TraceService"
                           if item["signal"] == "traces"
                           else "opentelemetry.proto.collector.logs.v1.LogsService")
                call = channel.unary_unary(f"/{service}/Export")
                call(body, timeout=30)
            else:
                status = post_chunked(server.app.http_port, f"/v1/{item['signal']}",
                                      item["headers"]["content-type"], body)
                assert status == 200, (item["file"], status)
            sent += 1
    finally:
        channel.close()
    return sent


def episodes(server) -> dict:
    rows = server.app.writer.call(lambda s: s.latest_scores())
    return {r.trace_id: json.loads(r.envelope) for r in rows if r.envelope}


def test_js_exporter_bodies_are_scored(start_server):
    index = _index()
    server = start_server()
    assert replay(server) == len(index["requests"])
    runs = index["runs_per_protocol"] * len(index["seeds"])
    got = wait_for(lambda: (lambda e: e if len(e) == runs else None)(episodes(server)), 60,
                   "every JS run to be scored")
    by_seed: dict = {}
    for trace_id, env in got.items():
        assert trace_id.startswith("4a53"), trace_id
        by_seed.setdefault(int(trace_id[4:8], 16), []).append(env)
    assert sorted(by_seed) == sorted(index["seeds"].values())
    flat = json.dumps(got)
    for envs in by_seed.values():
        assert len(envs) == index["runs_per_protocol"]
    # every run: task-i, one tool call matched, input tokens 100+i, counted once
    counts = server.counts()
    assert counts["scored"] == runs and counts["open"] == 0, counts
    assert counts["spans"] == 3 * runs, counts
    assert "task-0" in flat and "task-2" in flat
    report = _report(server)
    tokens = sorted(e["cost"]["input_tokens"] for e in report["episodes"])
    assert tokens == sorted([100 + i for i in range(index["runs_per_protocol"])] * len(index["seeds"]))
    assert all(e["tp"] == 1.0 and e["fp"] == 0.0 and e["success"] for e in report["episodes"])
    assert {e["service"] for e in report["episodes"]} == {"js-agent"}


def test_js_bodies_sent_twice_count_once(start_server):
    """The same JS runs as JSON and again as protobuf (same ids): one episode each."""
    server = start_server()
    replay(server, ("json",))
    runs = _index()["runs_per_protocol"]
    wait_for(lambda: len(episodes(server)) == runs, 60, "the JSON runs to be scored")
    replay(server, ("json",))
    counts = server.counts()
    assert counts["spans"] == 3 * runs, counts
    report = _report(server)
    assert sorted(e["cost"]["input_tokens"] for e in report["episodes"]) == [
        100 + i for i in range(runs)]


def _report(server) -> dict:
    from ek_otel.serve.report import load_run

    return load_run(server.app.config.store).to_dict()
