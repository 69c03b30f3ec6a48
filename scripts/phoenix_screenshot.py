"""Make docs/phoenix-traces.png: Phoenix's traces page with ek-otel's scores as annotations.

Starts a throw-away Phoenix (scripts/ci_backends.sh installs it), sends it the example traces,
scores them with ``ek-otel score --emit-endpoint ... --phoenix-url ...``, and screenshots the
traces page in Debian's headless Chromium (no browser download).

    python scripts/phoenix_screenshot.py [OUT.png]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "backends"))

from backend_servers import (DEFAULT_PHOENIX, PhoenixServer, send_otlp_json_file,  # noqa: E402
                             wait_until)

CHROMIUM = "/usr/bin/chromium"


def main(out: str) -> None:
    phoenix = PhoenixServer(os.environ.get("EK_OTEL_PHOENIX") or DEFAULT_PHOENIX).start()
    try:
        traces = os.path.join(ROOT, "examples", "traces.jsonl")
        sent = send_otlp_json_file(phoenix.url, traces)
        wait_until(lambda: sent <= set(phoenix.traces()), 120, "the traces in Phoenix")
        subprocess.run([sys.executable, "-m", "ek_otel", "score", traces, "--gold",
                        os.path.join(ROOT, "examples", "tasks.jsonl"), "--emit-endpoint",
                        phoenix.url, "--emit-signals", "spans", "--phoenix-url", phoenix.url],
                       check=True, stdout=subprocess.DEVNULL)
        project = phoenix.get("/v1/projects")["data"][0]["id"]
        with tempfile.TemporaryDirectory() as profile:
            subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                            "--window-size=1920,860", "--virtual-time-budget=20000",
                            f"--screenshot={os.path.abspath(out)}",
                            f"{phoenix.url}/projects/{project}/traces"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=180)
        print(f"wrote {out}")
    finally:
        phoenix.remove()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "phoenix-traces.png"))
