"""A loopback OTLP/HTTP capture server for the corpus plug-ins: what an exporter really sent,
written as the corpus files.

    traces.pb     the protobuf bodies merged into one ExportTraceServiceRequest (concatenated
                  protobuf messages of one type are their merge: the repeated
                  ``resource_spans`` fields add up)
    traces.jsonl  each JSON body as it was sent, re-encoded on one line (same values)

(imported by the plug-ins, which put this folder on sys.path; its leading underscore keeps
regen_corpus.py from taking it for a plug-in)
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from ek_otel.testing.otlp_capture import OtlpCapture


@contextlib.contextmanager
def capture_server():
    """A loopback OTLP/HTTP server on a free port (:class:`ek_otel.testing.otlp_capture.OtlpCapture`):
    yields ``(url, requests)``, where requests fills with
    :class:`~ek_otel.testing.otlp_capture.CapturedRequest` in arrival order."""
    with OtlpCapture() as capture:
        yield capture.http_url, capture.requests


def write_pb(out: Path, bodies: list) -> int:
    """traces.pb from the captured protobuf trace bodies; returns how many there were."""
    pb = [r.body for r in bodies if r.path.endswith("/v1/traces") and r.encoding == "pb"]
    if not pb:
        raise RuntimeError("no protobuf trace body was captured")
    (out / "traces.pb").write_bytes(b"".join(pb))
    return len(pb)


def write_trace_files(out: Path, bodies: list) -> int:
    """traces.pb and traces.jsonl from the captured trace bodies; returns the span count."""
    traces = [(r.encoding, r.body) for r in bodies if r.path.endswith("/v1/traces")]
    if not any(kind == "pb" for kind, _ in traces) or not any(k == "json" for k, _ in traces):
        raise RuntimeError(f"expected protobuf and JSON trace bodies, got {len(traces)} bodies")
    for stale in ("traces.pb", "logs.pb", "traces.jsonl", "logs.jsonl"):
        (out / stale).unlink(missing_ok=True)
    write_pb(out, bodies)
    lines = [json.dumps(json.loads(body), separators=(",", ":"))
             for kind, body in traces if kind == "json"]
    (out / "traces.jsonl").write_text("\n".join(lines) + "\n")
    return sum(len(scope.get("spans", ())) for line in lines
               for resource in json.loads(line).get("resourceSpans", ())
               for scope in resource.get("scopeSpans", ()))
