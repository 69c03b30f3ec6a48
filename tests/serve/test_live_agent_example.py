"""examples/live_agent.py runs as documented: instrumented agent → ek-otel serve → report,
against its own server and against one started as the README says (``--endpoint``)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "live_agent.py"


@pytest.fixture(autouse=True)
def _needs_the_examples_extra():
    pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    pytest.importorskip("openai")


def _check_output(proc) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 runs sent, 6 scored live" in proc.stderr
    assert "paris-weather-time" in proc.stdout and "pass^2" in proc.stdout
    summary = re.search(r"these 6 runs: tokens input (\d+), output (\d+).*; \$([0-9.]+); "
                        r"2 succeeded; dollars per success \$([0-9.]+)", proc.stdout)
    assert summary, proc.stdout
    assert int(summary.group(1)) > 0 and int(summary.group(2)) > 0
    dollars, per_success = float(summary.group(3)), float(summary.group(4))
    assert dollars > 0 and per_success == pytest.approx(dollars / 2, rel=1e-3)


def test_live_agent_example_runs_end_to_end():
    proc = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=240, check=False)
    _check_output(proc)


def test_live_agent_example_against_a_running_server(tmp_path):
    store = tmp_path / "ek.db"
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "ek_otel", "serve", "--gold", "examples/live_tasks.jsonl",
             "--pricing", "examples/pricing.yaml", "--store", str(store),
             "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--grace", "0.5"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not (found := re.search(r"listening on http [^:]+:(\d+)", log.read_text())):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        proc = subprocess.run([sys.executable, str(EXAMPLE), "--endpoint",
                               f"http://127.0.0.1:{found.group(1)}", "--store", str(store)],
                              capture_output=True, text=True, timeout=240, check=False)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(120)
    _check_output(proc)
