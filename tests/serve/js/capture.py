"""Regenerate tests/serve/fixtures/js-*: the bodies the OpenTelemetry JS exporters send.

Runs ``send_genai.js`` once per protocol against tiny capture servers (OTLP/HTTP and
OTLP/gRPC, raw bytes) and writes each request body as it arrived, in arrival order, with
the request's headers in ``js-headers.json``. Needs node and ``npm install`` in this
directory (package.json pins the versions). Run from anywhere:

    cd tests/serve/js && npm install && python capture.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from ek_otel.testing.otlp_capture import OtlpCapture

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures")
SEEDS = {"json": 1, "proto": 2, "grpc": 3}
RUNS = 3


def main() -> int:
    current = {"protocol": ""}
    # Raw bodies as the exporters sent them (gzip kept), each labelled with the protocol
    # being run; the gRPC requests come from the same capture's gRPC server.
    with OtlpCapture(grpc=True, keep_gzip=True, label=lambda: current["protocol"]) as capture:
        for protocol, seed in SEEDS.items():
            current["protocol"] = protocol
            url = (f"http://127.0.0.1:{capture.grpc_port}" if protocol == "grpc"
                   else capture.http_url)
            subprocess.run(["node", os.path.join(HERE, "send_genai.js"), protocol, url,
                            str(RUNS), str(seed)], cwd=HERE, check=True, timeout=120)
        captured = [(r.protocol, r.signal, r.encoding, r.headers, r.body)
                    for r in capture.requests]
    for name in os.listdir(OUT) if os.path.isdir(OUT) else ():
        if name.startswith("js-"):
            os.remove(os.path.join(OUT, name))
    os.makedirs(OUT, exist_ok=True)
    index = []
    counters: dict = {}
    for protocol, signal, ext, headers, body in captured:
        n = counters[protocol] = counters.get(protocol, 0) + 1
        name = f"js-{protocol}-{n:02d}-{signal}.{ext}"
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)
        index.append({"file": name, "protocol": protocol, "signal": signal, "headers": headers})
    versions = {}
    for pkg in ("sdk-trace-base", "exporter-trace-otlp-proto", "exporter-trace-otlp-http",
                "exporter-trace-otlp-grpc", "sdk-logs"):
        meta = os.path.join(HERE, "node_modules", "@opentelemetry", pkg, "package.json")
        with open(meta) as f:
            versions[f"@opentelemetry/{pkg}"] = json.load(f)["version"]
    with open(os.path.join(OUT, "js-index.json"), "w") as f:
        json.dump({"generator": "tests/serve/js/capture.py", "runs_per_protocol": RUNS,
                   "seeds": SEEDS, "versions": versions, "requests": index}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(index)} bodies to {OUT}")
    return 0


if __name__ == "__main__":
    if shutil.which("node") is None:
        sys.exit("capture.py: node is not installed")
    sys.exit(main())
