"""Ingest benchmark: ek-otel's dump reading and ``ek-otel score`` against the decode floor.

Generates a dump of GenAI agent traces (default 100k spans, 10 spans per trace: an
``invoke_agent`` root, 5 ``chat`` spans with JSON input/output messages holding tool calls,
4 ``execute_tool`` spans with JSON arguments and results), written as OTLP protobuf frames
(4-byte big-endian length, the Collector file exporter's ``format: proto``) and as OTLP JSON
Lines (its ``format: json``), with one export batch of ``--batch`` spans per frame/line, so
traces spread over several lines. A matching gold file is written too.

Then, per format, it measures in one run:

1. **the decode floor**: parse each batch, walk every attribute into
   Python values, ``json.loads`` the tool arguments and messages, and group the spans by
   trace id (a trace is released when its root arrives). Minimal hand-written code with no
   validation: what any Python reader must at least pay. CPU time.
2. **ek-otel reading**: ``read_dump`` + ``group_traces`` (validation, records, bad-input
   report), in-process CPU time, and in a subprocess for its peak RSS.
3. **``ek-otel score`` end to end** in a subprocess (reading, episodes, matching against the
   gold file, the JSON report): CPU time (user + sys) and peak RSS of that process; the
   best CPU time of ``--score-repeat`` runs (the machine may be shared, as for the floor).

It prints spans/s for each and the ratios to the floor. Targets: ek-otel at least 0.5x the
floor for both formats; peak RSS under 1 GiB on a 1M-span JSON Lines dump
(``python bench/ingest.py --spans 1000000``).

Usage:
    python bench/ingest.py                      # 100k spans, both formats
    python bench/ingest.py --spans 1000000 --formats jsonl
    python bench/ingest.py --keep --out /tmp/ingest-bench
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ek_otel.ingest.anyvalue import value_to_pb  # the test data is encoded as the package does

FORMATS = ("frames", "jsonl")
FILE_NAMES = {"frames": "dump.frames", "jsonl": "dump.jsonl"}
JSON_ATTRIBUTES = frozenset({
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
})
N_TASKS = 50

TOOLS = [
    ("get_weather", lambda r: {"city": r.choice(["Paris", "Tokyo", "Lima", "Oslo"]), "unit": "celsius"}),
    ("search_flights", lambda r: {"origin": "CDG", "destination": r.choice(["NRT", "LIM", "OSL"]),
                                  "date": f"2026-0{r.randint(1, 9)}-1{r.randint(0, 9)}", "passengers": r.randint(1, 4)}),
    ("book_flight", lambda r: {"flight_id": f"AF{r.randint(100, 999)}", "seat": f"{r.randint(1, 40)}{r.choice('ABCDEF')}"}),
    ("send_email", lambda r: {"to": "traveller@example.com", "subject": "Your trip",
                              "body": "Dear traveller, your booking is confirmed. " * 3}),
]
TOOL_SCHEMAS = {
    "get_weather": {"city": "string", "unit": "string"},
    "search_flights": {"origin": "string", "destination": "string", "date": "string", "passengers": "integer"},
    "book_flight": {"flight_id": "string", "seat": "string"},
    "send_email": {"to": "string", "subject": "string", "body": "string"},
}


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------


@dataclass
class GenSpan:
    trace_id: bytes
    span_id: bytes
    parent_id: bytes
    name: str
    kind: int
    start: int
    end: int
    attributes: dict
    error: bool = False


def _task_calls(task_index: int) -> list:
    rng = random.Random(task_index)
    return [(name, make(rng)) for name, make in TOOLS]


def _trace_spans(index: int, rng: random.Random, t0: int) -> list:
    """The 10 spans of one agent run, root last (as the SDK exports it)."""
    trace_id = rng.getrandbits(128).to_bytes(16, "big")
    root_id = rng.getrandbits(64).to_bytes(8, "big")
    task_index = index % N_TASKS
    calls = _task_calls(task_index)
    if index % 7 == 0:  # some runs get an argument wrong
        name, args = calls[1]
        calls[1] = (name, dict(args, destination="SFO"))
    spans = []
    history = [{"role": "system", "parts": [{"type": "text", "content": "You are a travel agent. Use the tools."}]},
               {"role": "user", "parts": [{"type": "text", "content": "Plan my trip to Tokyo, book it and email me."}]}]
    clock = t0
    for step in range(5):
        chat_id = rng.getrandbits(64).to_bytes(8, "big")
        call = calls[step] if step < 4 else None
        output = [{"role": "assistant", "finish_reason": "tool_call" if call else "stop",
                   "parts": ([{"type": "tool_call", "id": f"call_{index}_{step}", "name": call[0], "arguments": call[1]}]
                             if call else [{"type": "text", "content": "All done: booked and emailed."}])}]
        spans.append(GenSpan(trace_id, chat_id, root_id, "chat gpt-4o-mini", 3, clock, clock + 800_000_000, {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
            "gen_ai.response.id": f"chatcmpl-{index}-{step}",
            "gen_ai.response.finish_reasons": ["tool_calls" if call else "stop"],
            "gen_ai.request.temperature": 0.2,
            "gen_ai.usage.input_tokens": 300 + 120 * step,
            "gen_ai.usage.output_tokens": 40 + step,
            "server.address": "api.openai.com",
            "server.port": 443,
            "gen_ai.input.messages": json.dumps(history[-3:]),
            "gen_ai.output.messages": json.dumps(output),
        }))
        clock += 800_000_000
        if call is None:
            break
        tool_id = rng.getrandbits(64).to_bytes(8, "big")
        result = {"status": "ok", "step": step, "detail": f"{call[0]} succeeded"}
        spans.append(GenSpan(trace_id, tool_id, root_id, f"execute_tool {call[0]}", 1, clock, clock + 50_000_000, {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call[0],
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": f"call_{index}_{step}",
            "gen_ai.tool.call.arguments": json.dumps(call[1]),
            "gen_ai.tool.call.result": json.dumps(result),
        }, error=(index % 11 == 0 and step == 2)))
        clock += 50_000_000
        history += output + [{"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{index}_{step}",
                                                          "response": result}]}]
    spans.append(GenSpan(trace_id, root_id, b"", "invoke_agent travel", 1, t0, clock, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "travel",
        "gen_ai.conversation.id": f"conv-{index}",
        "ek.task.id": f"bench-{task_index}",
    }))
    return spans


def generate_spans(n_spans: int, seed: int = 7) -> Iterator[GenSpan]:
    rng = random.Random(seed)
    index = 0
    produced = 0
    t0 = 1_760_000_000_000_000_000
    while produced < n_spans:
        for span in _trace_spans(index, rng, t0 + index * 10_000_000_000):
            yield span
            produced += 1
        index += 1


RESOURCE = {"service.name": "travel-agent", "service.version": "2.1.0", "telemetry.sdk.language": "python",
            "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.45.2"}


def batch_to_pb(batch: list) -> bytes:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    for key, value in RESOURCE.items():
        value_to_pb(value, resource_spans.resource.attributes.add(key=key).value)
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name, scope_spans.scope.version = "opentelemetry.instrumentation.openai_v2", "2.4b0"
    for span in batch:
        pb = scope_spans.spans.add(trace_id=span.trace_id, span_id=span.span_id, parent_span_id=span.parent_id,
                                   name=span.name, kind=span.kind, start_time_unix_nano=span.start,
                                   end_time_unix_nano=span.end)
        for key, value in span.attributes.items():
            value_to_pb(value, pb.attributes.add(key=key).value)
        if span.error:
            pb.status.code = 2
            pb.status.message = "tool failed"
    return request.SerializeToString()


def _json_value(value: Any) -> dict:
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"arrayValue": {"values": [_json_value(v) for v in value]}}


def _json_attributes(attributes: dict) -> list:
    return [{"key": k, "value": _json_value(v)} for k, v in attributes.items()]


def batch_to_json(batch: list) -> bytes:
    spans = []
    for span in batch:
        out = {"traceId": span.trace_id.hex(), "spanId": span.span_id.hex(), "name": span.name, "kind": span.kind,
               "startTimeUnixNano": str(span.start), "endTimeUnixNano": str(span.end),
               "attributes": _json_attributes(span.attributes), "status": {}}
        if span.parent_id:
            out["parentSpanId"] = span.parent_id.hex()
        if span.error:
            out["status"] = {"code": 2, "message": "tool failed"}
        spans.append(out)
    return orjson.dumps({"resourceSpans": [{
        "resource": {"attributes": _json_attributes(RESOURCE)},
        "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.4b0"},
                        "spans": spans}]}]})


def write_gold(path: str) -> None:
    with open(path, "w") as f:
        for task_index in range(N_TASKS):
            calls = [{name: {k: [v] for k, v in args.items()}} for name, args in _task_calls(task_index)]
            tools = [{"name": name, "parameters": {"type": "object", "properties": {
                k: {"type": t} for k, t in TOOL_SCHEMAS[name].items()}}} for name, _ in TOOLS]
            f.write(json.dumps({"task_id": f"bench-{task_index}", "calls": calls, "tools": tools, "ordered": True}) + "\n")


def generate(out_dir: str, n_spans: int, batch_size: int, formats: tuple) -> dict:
    """Write the dumps (streaming, one batch at a time) and the gold file; return their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {fmt: os.path.join(out_dir, FILE_NAMES[fmt]) for fmt in formats}
    files = {fmt: open(path, "wb") for fmt, path in paths.items()}
    try:
        batch: list = []

        def flush() -> None:
            if "frames" in files:
                body = batch_to_pb(batch)
                files["frames"].write(len(body).to_bytes(4, "big") + body)
            if "jsonl" in files:
                files["jsonl"].write(batch_to_json(batch) + b"\n")
            batch.clear()

        for span in generate_spans(n_spans):
            batch.append(span)
            if len(batch) >= batch_size:
                flush()
        if batch:
            flush()
    finally:
        for f in files.values():
            f.close()
    write_gold(os.path.join(out_dir, "gold.jsonl"))
    return paths


# ---------------------------------------------------------------------------
# The decode floor: minimal code, no validation
# ---------------------------------------------------------------------------


def _floor_value_pb(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_floor_value_pb(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _floor_value_pb(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def _floor_attrs_pb(key_values: Any) -> dict:
    out = {}
    for kv in key_values:
        value = _floor_value_pb(kv.value)
        if kv.key in JSON_ATTRIBUTES:
            value = json.loads(value)
        out[kv.key] = value
    return out


def _floor_value_json(value: dict) -> Any:
    for key, raw in value.items():
        if key == "stringValue":
            return raw
        if key == "intValue":
            return int(raw)
        if key == "arrayValue":
            return [_floor_value_json(v) for v in raw.get("values", ())]
        if key == "kvlistValue":
            return {kv["key"]: _floor_value_json(kv["value"]) for kv in raw.get("values", ())}
        return raw
    return None


def _floor_attrs_json(key_values: list) -> dict:
    out = {}
    for kv in key_values:
        value = _floor_value_json(kv["value"])
        if kv["key"] in JSON_ATTRIBUTES:
            value = json.loads(value)
        out[kv["key"]] = value
    return out


def _read_frames(path: str) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while True:
            prefix = f.read(4)
            if len(prefix) < 4:
                return
            yield f.read(int.from_bytes(prefix, "big"))


def floor(path: str, fmt: str) -> int:
    """The decode floor over a whole dump; returns the number of spans seen."""
    groups: dict = {}
    n = 0
    if fmt == "frames":
        for body in _read_frames(path):
            request = ExportTraceServiceRequest.FromString(body)
            for rs in request.resource_spans:
                res = _floor_attrs_pb(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        record = {"span_id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                                  "name": span.name, "start": span.start_time_unix_nano,
                                  "end": span.end_time_unix_nano, "status": span.status.code,
                                  "attributes": _floor_attrs_pb(span.attributes), "resource": res}
                        n += 1
                        trace_id = span.trace_id.hex()
                        groups.setdefault(trace_id, []).append(record)
                        if not span.parent_span_id:
                            del groups[trace_id]
    else:
        with open(path, "rb") as f:
            for line in f:
                request = orjson.loads(line)
                for rs in request["resourceSpans"]:
                    res = _floor_attrs_json(rs["resource"]["attributes"])
                    for ss in rs["scopeSpans"]:
                        for span in ss["spans"]:
                            record = {"span_id": span["spanId"], "parent": span.get("parentSpanId", ""),
                                      "name": span["name"], "start": int(span["startTimeUnixNano"]),
                                      "end": int(span["endTimeUnixNano"]), "status": span["status"].get("code", 0),
                                      "attributes": _floor_attrs_json(span["attributes"]), "resource": res}
                            n += 1
                            trace_id = span["traceId"]
                            groups.setdefault(trace_id, []).append(record)
                            if "parentSpanId" not in span:
                                del groups[trace_id]
    return n


# ---------------------------------------------------------------------------
# ek-otel
# ---------------------------------------------------------------------------


def floor_parse_group(path: str) -> int:
    """The receiver's floor (``otlp.md``): parse each frame and group spans by trace id."""
    n = 0
    for body in _read_frames(path):
        groups: dict = {}
        for rs in ExportTraceServiceRequest.FromString(body).resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    groups.setdefault(span.trace_id, []).append(span)
                    n += 1
    return n


def ek_split(path: str) -> int:
    """``split_traces`` (the live receiver's path) over every frame; returns the span count."""
    from ek_otel.ingest.split import split_traces

    n = 0
    for body in _read_frames(path):
        n += sum(len(chunk.span_ids) for chunk in split_traces(body, "protobuf").chunks)
    return n


def ek_read(path: str) -> tuple:
    """read_dump + group_traces over a dump; returns (spans, traces, bad input)."""
    from ek_otel.ingest.assemble import group_traces
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.ingest.dumps import read_dump

    report = BadInputReport()
    spans = traces = 0
    for group in group_traces(read_dump([path], report=report)):
        spans += len(group.spans)
        traces += 1
    return spans, traces, report.total


@dataclass
class ChildRun:
    cpu_s: float
    wall_s: float
    max_rss_mib: float
    returncode: int
    stderr: str


#: Run by :func:`run_child` between the bench and the measured command: the command's peak
#: RSS must be its own. Linux keeps a process's peak RSS across exec, and a child forked by
#: the bench starts with the bench's pages (after writing a 134 MB request, 750 MiB), so a
#: direct child's ``ru_maxrss`` is never below the bench's own size. This small process
#: starts the command instead, and reports its CPU, wall time, peak RSS and exit code.
_LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - start
with open(sys.argv[1], "w") as f:
    json.dump([usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, os.waitstatus_to_exitcode(status)], f)
"""


def run_child(argv: list) -> ChildRun:
    """Run a command; return its own CPU time and peak RSS (os.wait4 in a small launcher
    process, see ``_LAUNCHER``: the bench's size does not count), and its wall time."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        figures = f.name
    try:
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, figures, *argv],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        proc.wait()
        with open(figures) as f:
            cpu, wall, max_rss_kib, returncode = json.load(f)
    finally:
        os.unlink(figures)
    return ChildRun(cpu, wall, max_rss_kib / 1024, returncode, stderr[-2000:])


REPEAT = 1


def _cpu(fn, *args) -> tuple:
    """The best CPU time of ``REPEAT`` runs (the machine may be shared), and the result."""
    best = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        start = time.process_time()
        result = fn(*args)
        best = min(best, time.process_time() - start)
    return best, result


def _rate(spans: int, seconds: float) -> str:
    return f"{spans / seconds:>10,.0f}" if seconds > 0 else "         -"


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=512, help="spans per frame / JSON line")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--out", help="directory for the dumps (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the generated dumps")
    parser.add_argument("--no-score", action="store_true", help="skip the ek-otel score run")
    parser.add_argument("--no-floor", action="store_true", help="skip the in-process measures")
    parser.add_argument("--repeat", type=int, default=3, help="in-process measures: best of N runs")
    parser.add_argument("--score-repeat", type=int, default=None,
                        help="ek-otel score runs: best CPU time of N (default: --repeat); the RSS "
                             "shown is the highest of them")
    parser.add_argument("--child-read", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global REPEAT
    REPEAT = max(1, args.repeat)
    args.score_repeat = max(1, args.score_repeat if args.score_repeat is not None else REPEAT)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    import ek_otel.ingest.assemble  # noqa: F401  (imports are not part of the measures)
    import ek_otel.ingest.dumps  # noqa: F401

    if args.child_read:  # the subprocess that measures read_dump + group_traces alone
        spans, traces, bad = ek_read(args.child_read)
        print(spans, traces, bad)
        return 0

    formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
    out_dir = args.out or tempfile.mkdtemp(prefix="ek-otel-bench-")
    try:
        start = time.perf_counter()
        paths = generate(out_dir, args.spans, args.batch, formats)
        sizes = ", ".join(f"{fmt} {os.path.getsize(p) / 1e6:.0f} MB" for fmt, p in paths.items())
        print(f"generated {args.spans:,} spans ({args.spans // 10:,} traces) in {time.perf_counter() - start:.0f}s: "
              f"{sizes}  [{out_dir}]")
        print(f"{'format':<7} {'measure':<34} {'CPU s':>7} {'spans/s':>10} {'x floor':>8} {'peak RSS':>9}")
        for fmt in formats:
            path = paths[fmt]
            floor_rate = None
            if not args.no_floor:
                floor_s, n = _cpu(floor, path, fmt)
                floor_rate = n / floor_s
                print(f"{fmt:<7} {'decode floor (in-process)':<34} {floor_s:7.2f} {_rate(n, floor_s)} {1.0:8.2f}")
                read_s, (spans, traces, bad) = _cpu(ek_read, path)
                assert spans == n, (spans, n)
                print(f"{fmt:<7} {'read_dump+group_traces (in-proc)':<34} {read_s:7.2f} {_rate(spans, read_s)} "
                      f"{spans / read_s / floor_rate:8.2f}")
            if fmt == "frames" and not args.no_floor:
                group_s, n = _cpu(floor_parse_group, path)
                split_s, split_n = _cpu(ek_split, path)
                assert split_n == n, (split_n, n)
                print(f"{fmt:<7} {'receiver floor: parse + group':<34} {group_s:7.2f} {_rate(n, group_s)} {1.0:8.2f}")
                print(f"{fmt:<7} {'split_traces (receiver path)':<34} {split_s:7.2f} {_rate(n, split_s)} "
                      f"{group_s / split_s:8.2f}")
            child = run_child([sys.executable, os.path.abspath(__file__), "--child-read", path])
            ratio = f"{args.spans / child.cpu_s / floor_rate:8.2f}" if floor_rate else "       -"
            print(f"{fmt:<7} {'read_dump+group_traces (process)':<34} {child.cpu_s:7.2f} "
                  f"{_rate(args.spans, child.cpu_s)} {ratio} {child.max_rss_mib:7.0f} MiB")
            if not args.no_score:
                cli_path = shutil.which("ek-otel")
                cmd = [cli_path] if cli_path else [sys.executable, "-m", "ek_otel"]
                report_path = os.path.join(out_dir, f"score-{fmt}.json")
                runs = [run_child(cmd + ["score", path, "--gold", os.path.join(out_dir, "gold.jsonl"),
                                         "--json", report_path]) for _ in range(args.score_repeat)]
                failed = [r for r in runs if r.returncode != 0]
                child = failed[0] if failed else min(runs, key=lambda r: r.cpu_s)  # best of N
                peak_rss = max(r.max_rss_mib for r in runs)
                if child.returncode != 0:
                    print(f"{fmt:<7} ek-otel score failed ({child.returncode}): {child.stderr.strip()[-500:]}")
                    continue
                ratio = f"{args.spans / child.cpu_s / floor_rate:8.2f}" if floor_rate else "       -"
                with open(report_path) as f:
                    aggregate = json.load(f).get("aggregate", {})
                print(f"{fmt:<7} {'ek-otel score, end to end':<34} {child.cpu_s:7.2f} "
                      f"{_rate(args.spans, child.cpu_s)} {ratio} {peak_rss:7.0f} MiB"
                      f"   (episodes {aggregate.get('episodes')}, f1 {aggregate.get('f1', float('nan')):.3f},"
                      f" wall {child.wall_s:.1f}s)")
    finally:
        if not args.keep and not args.out:
            shutil.rmtree(out_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
