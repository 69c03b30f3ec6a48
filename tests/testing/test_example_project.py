"""``examples/pytest_agent``, a small project tested with the plugin, run by pytest in a new
process: it passes and fails as its README says. The plugin comes from the installed
distribution's ``pytest11`` entry point when it declares one (``pip install -e .``: CI),
else it is named with ``-p``."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata

from plugin_run import REPO, read_json

EXAMPLE = REPO / "examples" / "pytest_agent"
ENTRY_POINT = ("ek_otel", "ek_otel.testing.pytest_plugin")


def _installed_entry_point() -> bool:
    return any((ep.name, ep.value) == ENTRY_POINT
               for ep in metadata.entry_points(group="pytest11"))


def test_the_entry_point_is_declared():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {ENTRY_POINT[0]: ENTRY_POINT[1]}


def _run_example(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    plugin = () if _installed_entry_point() else ("-p", ENTRY_POINT[1])
    return subprocess.run([sys.executable, "-m", "pytest", *plugin, "-v", *args], cwd=EXAMPLE,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_example_project_passes_and_fails_as_expected(tmp_path):
    run = _run_example("--ek-report", str(tmp_path / "report"))
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    for line in ("tests/test_calls.py::test_weather_calls PASSED",
                 "tests/test_calls.py::test_the_gold_task PASSED",
                 "tests/test_calls.py::test_celsius_only FAILED",
                 "tests/test_trials.py::test_good_enough FLAKY",
                 "tests/test_trials.py::test_every_time FAILED (flaky)",
                 "tests/test_trials.py::test_reliable_model PASSED",
                 "spurious convert_temperature",
                 "ek_trials: flaky, 4 of 5 trials passed; pass^5 = 0.000, needs every trial to pass",
                 "ek-otel: 6 tasks: 3 pass, 2 flaky, 1 fail (16 trials)",
                 "2 failed, 3 passed, 1 flaky"):
        assert line in out, out
    report = read_json(tmp_path / "report" / "report.json")
    assert report["aggregate"]["episodes"] == 16
    assert sorted(report["per_task"]) == sorted([
        "tests/test_calls.py::test_weather_calls", "weather-paris",
        "tests/test_calls.py::test_celsius_only", "weather-80", "weather-every-time",
        "weather-reliable"])
