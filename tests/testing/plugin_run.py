"""Running pytest on a small project with the ek-otel plugin, for the plugin's tests.

The plugin is named explicitly (``-p ek_otel.testing.pytest_plugin``) with plugin
autoloading off, so the runs see this tree's plugin whether or not the installed
distribution registers its entry point, and no other plugin of the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Inline runs (pytester) forget the modules imported during the run, and numpy cannot be
# imported twice in a process: what the report imports is imported here once.
import ek_otel.report.html  # noqa: F401,E402
import ek_otel.testing.session  # noqa: F401,E402

PLUGIN = ("-p", "ek_otel.testing.pytest_plugin", "-p", "no:cacheprovider")
REPO = Path(__file__).resolve().parents[2]


def prepare(pytester, monkeypatch) -> None:
    """Plugin autoloading off (in this process and in subprocesses)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))


def run_inline(pytester, *args):
    """``pytest`` in this process, with the plugin (already imported here when this process
    collected the doctests of ``ek_otel``: pytest would warn that it cannot rewrite its
    asserts, which it has none of)."""
    return pytester.runpytest_inprocess(*PLUGIN, "-W", "ignore::pytest.PytestAssertRewriteWarning",
                                        *args)


def run_subprocess(pytester, *args, timeout: float = 240):
    """``pytest`` in a new process (instrumentors patch the clients for the whole process)."""
    return pytester.runpytest_subprocess(*PLUGIN, *args, timeout=timeout)


def outcomes(result) -> dict:
    """The counts of the final line, every category (``flaky`` too), warnings left out
    (some instrumentation packages warn)."""
    return {k: v for k, v in result.parseoutcomes().items() if k != "warnings"}


def ek_otel_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """``python -m ek_otel ARGS`` (the ek-otel command) of this tree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "ek_otel", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


def summary_line(result) -> str:
    """The plugin's line of the terminal summary."""
    lines = [line for line in result.outlines if line.startswith("ek-otel: ") and " task" in line]
    assert len(lines) == 1, result.outlines
    return lines[0]


def read_json(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
