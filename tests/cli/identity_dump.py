"""A generated dump for the output-identity tests of ``ek-otel score`` (today's outputs vs main's).

Several files (JSON Lines and protobuf frames), several traces per line, traces spread over
two lines, a retried duplicate span, a line that is not JSON, a record of ek-otel's own output,
and a late span (it arrives ``LATE_GAP`` records after its trace's root: scored with
``close_after`` below that gap, it makes a revision).

``python tests/cli/identity_dump.py OUT_DIR`` writes the dump and the gold file;
``python tests/cli/identity_dump.py OUT_DIR --baseline`` also writes the outputs of the ek-otel
it runs with (the saved baseline ``tests/cli/data/output_baseline``, made with main before the
speed work, and again when main changes the report on purpose:
``PYTHONPATH=<main's tree> python tests/cli/identity_dump.py DIR --baseline`` run outside the repo).
"""

from __future__ import annotations

import json
import os
import random
import sys

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from ek_otel.ingest.anyvalue import value_to_pb

TOOLS = {"get_weather": ("city", ["Paris", "Lima", "Oslo"]), "search": ("q", ["dogs", "cats", "owls"])}
N_TASKS = 3
LATE_GAP = 40  # records between the late span and its trace's root
CLOSE_AFTER = 20  # for the pipeline-level test: below LATE_GAP


def _hex(rng: random.Random, nbytes: int) -> str:
    return rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big").hex()


def _trace(index: int, rng: random.Random) -> list:
    """The spans of one run (children first, root last), as plain dicts."""
    trace_id, root = _hex(rng, 16), _hex(rng, 8)
    t0 = 1_760_000_000_000_000_000 + index * 10_000_000_000
    spans = []
    for step, (tool, (arg, values)) in enumerate(TOOLS.items()):
        value = values[(index + step + (index % 4 == 1)) % len(values)]  # every 4th run errs
        call = {"type": "tool_call", "id": f"c{index}_{step}", "name": tool, "arguments": {arg: value}}
        spans.append({"trace_id": trace_id, "span_id": _hex(rng, 8), "parent": root, "name": "chat m",
                      "start": t0 + step, "end": t0 + step + 1, "error": False, "attributes": {
                          "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                          "gen_ai.request.model": "gpt-4o-mini",
                          "gen_ai.usage.input_tokens": 100 + index, "gen_ai.usage.output_tokens": 7 + step,
                          "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                              {"type": "text", "content": f"run {index}"}]}]),
                          "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}])}})
        spans.append({"trace_id": trace_id, "span_id": _hex(rng, 8), "parent": root, "name": f"execute_tool {tool}",
                      "start": t0 + step + 1, "end": t0 + step + 2, "error": index % 5 == 0, "attributes": {
                          "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                          "gen_ai.tool.call.id": f"c{index}_{step}",
                          "gen_ai.tool.call.arguments": json.dumps({arg: value})}})
    spans.append({"trace_id": trace_id, "span_id": root, "parent": "", "name": "invoke_agent a",
                  "start": t0, "end": t0 + 9, "error": False, "attributes": {
                      "gen_ai.operation.name": "invoke_agent", "ek.task.id": f"task-{index % N_TASKS}"}})
    return spans


def _json_value(value):
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"doubleValue": value}


def _json_line(spans: list, scope: str = "agent") -> str:
    out = [{"traceId": s["trace_id"], "spanId": s["span_id"], "name": s["name"], "kind": 1,
            "startTimeUnixNano": str(s["start"]), "endTimeUnixNano": str(s["end"]),
            "attributes": [{"key": k, "value": _json_value(v)} for k, v in s["attributes"].items()],
            **({"parentSpanId": s["parent"]} if s["parent"] else {}),
            **({"status": {"code": 2, "message": "tool failed"}} if s["error"] else {})} for s in spans]
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent"}}]},
        "scopeSpans": [{"scope": {"name": scope}, "spans": out}]}]})


def _frame(spans: list) -> bytes:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    value_to_pb("agent", resource_spans.resource.attributes.add(key="service.name").value)
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name = "agent"
    for s in spans:
        pb = scope_spans.spans.add(trace_id=bytes.fromhex(s["trace_id"]), span_id=bytes.fromhex(s["span_id"]),
                                   parent_span_id=bytes.fromhex(s["parent"]), name=s["name"], kind=1,
                                   start_time_unix_nano=s["start"], end_time_unix_nano=s["end"])
        for key, value in s["attributes"].items():
            value_to_pb(value, pb.attributes.add(key=key).value)
        if s["error"]:
            pb.status.code = Status.STATUS_CODE_ERROR
    body = request.SerializeToString()
    return len(body).to_bytes(4, "big") + body


def write_dump(out_dir: str) -> dict:
    """Write ``dump/a.jsonl``, ``dump/b.frames`` and ``gold.jsonl``; return their paths."""
    rng = random.Random(11)
    dump = os.path.join(out_dir, "dump")
    os.makedirs(dump, exist_ok=True)
    traces = [_trace(i, rng) for i in range(24)]
    # a.jsonl: traces 0-11, 4 runs per line, run 3's spans spread over lines 1 and 2, a retried
    # duplicate, a bad line, our own output; the late span of run 0 comes in the last line.
    late = traces[0].pop(0)
    lines = []
    for start in range(0, 12, 4):
        group = [s for t in traces[start:start + 4] for s in t]
        lines.append(group)
    lines[0] += traces[4][:2]  # run 4 begins in line 1
    lines[1] = [s for s in lines[1] if s not in traces[4][:2]]
    lines[1].append(traces[5][1])  # a retried duplicate
    rows = [_json_line(group) for group in lines]
    rows.insert(1, "not json {")
    rows.append(_json_line([{"trace_id": traces[1][0]["trace_id"], "span_id": _hex(rng, 8),
                             "parent": traces[1][-1]["span_id"], "name": "ek-otel eval", "start": 1,
                             "end": 2, "error": False, "attributes": {"gen_ai.evaluation.name": "x"}}],
                           scope="ek_otel.emit"))
    rows.append(_json_line([late]))
    with open(os.path.join(dump, "a.jsonl"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(dump, "b.frames"), "wb") as f:
        for start in range(12, 24, 3):
            f.write(_frame([s for t in traces[start:start + 3] for s in t]))
    gold = os.path.join(out_dir, "gold.jsonl")
    with open(gold, "w") as f:
        for task in range(N_TASKS):
            calls = [{tool: {arg: [values[(task + step) % len(values)]]}}
                     for step, (tool, (arg, values)) in enumerate(TOOLS.items())]
            f.write(json.dumps({"task_id": f"task-{task}", "calls": calls, "ordered": True}) + "\n")
    return {"dump": dump, "gold": gold}


def normalized_emit(text: str) -> str:
    """An emit file without what changes from run to run (instance id, times of the scoring run)."""
    import re

    text = re.sub(r'"service\.instance\.id","value":\{"stringValue":"[^"]*"', '"service.instance.id"', text)
    now = 1_770_000_000_000_000_000  # after every time in the dump: a time of the scoring run
    text = re.sub(r'"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"', '"now"', text)  # when it was scored
    return re.sub(r'"(\w+UnixNano)":"([0-9]+)"',
                  lambda m: f'"{m.group(1)}":"now"' if int(m.group(2)) > now else m.group(0), text)


def baseline(out_dir: str) -> dict:
    """The outputs to compare: name -> text."""
    import subprocess

    from ek_otel.cli._common import write_json
    from ek_otel.emit.sinks import make_sink
    from ek_otel.ingest.bad_input import BadInputReport
    from ek_otel.pipeline import score_dump
    from ek_otel.scoring.link import load_settings

    paths = write_dump(out_dir)
    report, emit = os.path.join(out_dir, "report.json"), os.path.join(out_dir, "scores.jsonl")
    argv = [sys.executable, "-m", "ek_otel", "score", paths["dump"], "--gold", paths["gold"],
            "--json", report, "--emit-file", emit]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=out_dir,
                          env=dict(os.environ, COLUMNS="1000"))
    assert done.returncode == 0, done.stderr
    out = {"cli.stdout": done.stdout, "cli.stderr": done.stderr,
           "cli.report.json": open(report).read(), "cli.scores.jsonl": normalized_emit(open(emit).read())}
    # Late spans: close traces early, so the late span makes a revision.
    tasks, settings = load_settings(paths["gold"])
    late_emit = os.path.join(out_dir, "late-scores.jsonl")
    sink = make_sink(file=late_emit)
    bad = BadInputReport()
    try:
        run = score_dump([paths["dump"]], tasks, settings, report=bad, sink=sink,
                         close_after=CLOSE_AFTER)
    finally:
        sink.close()
    late_report = os.path.join(out_dir, "late-report.json")
    write_json(run.to_dict(), late_report)
    out["late.report.json"] = open(late_report).read()
    out["late.scores.jsonl"] = normalized_emit(open(late_emit).read())
    out["late.bad_input"] = "\n".join(str(c) for c in bad.cases)
    return {name: text.replace(out_dir, "OUT") for name, text in out.items()}


if __name__ == "__main__":
    if "--baseline" in sys.argv:
        target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "output_baseline")
        os.makedirs(target, exist_ok=True)
        for name, text in baseline(sys.argv[1]).items():
            with open(os.path.join(target, name), "w") as f:
                f.write(text)
    else:
        print(write_dump(sys.argv[1]))
