"""The large-JSON scan (``ingest.json_document``) against the plain path, as ratios of CPU
measured in the same run (issue 31: one resourceSpans entry per span took 73.7 s for
8.9 MB on the scan, against 1.2 s on the plain path; each search for the next span ran to
the end of the body).

| figure | baseline (same run) |
|---|---|
| scan of N one-span resourceSpans entries, spans starting with a span field | the plain path (one ``orjson.loads``) of the same body |
| the same, spans starting with another key (``"zz"``: the regex's every search fails) | the plain path of that body |
| the scan of 4x the entries (linear: about 4) | the scan of N entries |

Usage:
    python bench/json_scan.py [--entries 12561]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ek_otel.ingest.json_document import decode_document  # noqa: E402
from ek_otel.ingest.records import Origin  # noqa: E402


def request(entries: int, first_key: str) -> bytes:
    """One OTLP JSON request of ``entries`` resourceSpans entries of one span each."""
    batches = []
    for i in range(entries):
        span = {first_key: 1} if first_key != "traceId" else {}
        span.update({"traceId": "%032x" % i, "spanId": "%016x" % i, "name": f"tool {i}", "kind": 1,
                     "startTimeUnixNano": "1", "endTimeUnixNano": "2",
                     "attributes": [{"key": f"k{j}", "value": {"stringValue": "v" * 40}} for j in range(8)]})
        batches.append({"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
                        "scopeSpans": [{"scope": {"name": "x"}, "spans": [span]}]})
    return json.dumps({"resourceSpans": batches}, separators=(",", ":")).encode()


def cpu(body: bytes, lazy: bool, repeat: int = 3) -> float:
    """The best CPU time of reading every record of ``body`` (``lazy``: the scan)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for _record in decode_document(body, Origin("bench.json", 1), lazy=lazy):
            pass
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=12561)
    n = parser.parse_args().entries
    for first_key in ("traceId", "zz"):
        body = request(n, first_key)
        scan, plain = cpu(body, True), cpu(body, False)
        print(f"{n} entries, spans starting with {first_key!r} ({len(body) / 1e6:.1f} MB): "
              f"scan {scan:.3f} s, plain {plain:.3f} s, ratio {scan / plain:.2f}")
    small, large = request(n // 4, "zz"), request(n, "zz")
    print(f"scan of 4x the entries / scan of 1x: {cpu(large, True) / cpu(small, True):.2f} (linear: about 4)")


if __name__ == "__main__":
    main()
