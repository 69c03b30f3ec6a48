"""examples/live_agent.py runs as documented: instrumented agent → ek-otel serve → report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "live_agent.py"


def test_live_agent_example_runs_end_to_end():
    pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    pytest.importorskip("openai")
    proc = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=240, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 runs sent, 6 scored live" in proc.stderr
    assert "paris-weather-time" in proc.stdout and "pass^2" in proc.stdout
