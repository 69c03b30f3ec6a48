"""Each fuzz harness runs in its own process for a bounded number of inputs with a fixed
seed, and must pass: no undocumented exception, no input over 2 s of CPU, a peak memory
under 512 MiB. ``EK_OTEL_FUZZ_SCALE`` multiplies the inputs (e.g. 10 for a longer run).

The figures of the last run (inputs, slowest input, peak memory) are written to
``$EK_OTEL_FUZZ_REPORT`` when it is set (the closing note of issue 23 quotes them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fuzz.harness import MAX_INPUT_CPU_S

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: The most memory one harness process may reach.
MAX_PEAK_RSS_MIB = 512

#: Inputs per harness in CI (about 5 minutes in all on the CI machine).
INPUTS = {"dump": 800, "gold": 400, "bfcl": 1200, "http": 1000, "matchers": 1000}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_harness_passes_within_its_bounds(name):
    scale = float(os.environ.get("EK_OTEL_FUZZ_SCALE", "1"))
    examples = max(1, int(INPUTS[name] * scale))
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "tests.fuzz.harness", name, str(examples)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith('{"harness"')]
    assert done.returncode == 0, f"{name} harness failed:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    figures = json.loads(lines[-1])
    assert figures["inputs"] >= examples, figures
    assert figures["max_cpu_s"] <= MAX_INPUT_CPU_S, figures
    assert figures["peak_rss_mib"] <= MAX_PEAK_RSS_MIB, figures
    report = os.environ.get("EK_OTEL_FUZZ_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(figures) + "\n")
