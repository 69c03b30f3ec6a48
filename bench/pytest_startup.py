"""Start-up cost of the ek-otel pytest plugin for a run that does not use it, as a ratio.

Two sides, alternated ``--repeat`` times in one run (so both see the same machine load):

- **without**: ``python -m pytest`` on a small project of plain tests, plugin autoloading
  off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``);
- **with**: the same, plus ``-p ek_otel.testing.pytest_plugin`` (what the ``pytest11``
  entry point loads).

The figure is the ratio of the best wall times (``with / without``), and of the median;
both also as milliseconds. The plugin module imports pytest and the standard library only
(the OTel SDK and ek-otel's scoring are imported when a test uses ``ek_trace`` or
``ek_trials``), so the ratio should be 1.00 within the noise. For scale, the same ratio is
printed for a run whose tests do use the fixture (``--used``: what a run that uses it pays,
once).

Usage:
    python bench/pytest_startup.py                # 15 rounds
    python bench/pytest_startup.py --repeat 30 --used
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PLAIN = '''
def test_one():
    assert 1 + 1 == 2

def test_two():
    assert "ek" in "ek-otel"
'''

USED = '''
def test_uses_it(ek_trace):
    assert ek_trace.episodes == []
'''


def _run(project: Path, plugin: bool) -> float:
    env = dict(os.environ)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if plugin:
        args += ["-p", "ek_otel.testing.pytest_plugin"]
    start = time.perf_counter()
    done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {project}:\n{done.stdout}{done.stderr}")
    return elapsed


def measure(source: str, repeat: int, with_plugin_only: bool = False) -> tuple:
    """``(without, with)`` wall times of ``repeat`` alternated runs each."""
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "test_plain.py").write_text(source)
        without, with_ = [], []
        _run(project, True)  # warm the file cache (and the .pyc files) for both sides
        for _ in range(repeat):
            if not with_plugin_only:
                without.append(_run(project, False))
            with_.append(_run(project, True))
    return without, with_


IMPORT_TIME = (
    "import time, pytest\n"
    "t = time.perf_counter(); import ek_otel.testing.pytest_plugin as m; t = time.perf_counter() - t\n"
    "import sys; heavy = [n for n in ('opentelemetry.sdk', 'ek_otel.scoring', 'ek_otel.pipeline') if n in sys.modules]\n"
    "print(t, ','.join(heavy))\n")
PYTEST_IMPORT = "import time; t = time.perf_counter(); import pytest; print(time.perf_counter() - t)"


def _python(code: str) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout


def import_cost(repeat: int) -> tuple:
    """``(plugin module import, pytest import)``: the best of ``repeat`` fresh processes each,
    and the heavy modules the plugin module pulled in (none expected)."""
    plugin, own, heavy = [], [], set()
    for _ in range(repeat):
        seconds, *pulled = _python(IMPORT_TIME).split()
        plugin.append(float(seconds))
        heavy.update(",".join(pulled).split(",") if pulled else ())
        own.append(float(_python(PYTEST_IMPORT)))
    return min(plugin), min(own), sorted(heavy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--used", action="store_true",
                        help="also time a run whose test uses the fixture (against the plain run)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    without, with_ = measure(PLAIN, args.repeat)
    best = min(with_) / min(without)
    median = statistics.median(with_) / statistics.median(without)
    print(f"pytest start-up, plain tests, {args.repeat} alternated rounds (load {load:.1f}):")
    print(f"  without the plugin: best {min(without) * 1000:.0f} ms, "
          f"median {statistics.median(without) * 1000:.0f} ms")
    print(f"  with the plugin:    best {min(with_) * 1000:.0f} ms, "
          f"median {statistics.median(with_) * 1000:.0f} ms")
    print(f"  ratio with/without: best {best:.3f}, median {median:.3f}")
    plugin_s, pytest_s, heavy = import_cost(args.repeat)
    print(f"  importing the plugin module: best {plugin_s * 1000:.1f} ms = "
          f"{plugin_s / pytest_s:.3f} of importing pytest itself ({pytest_s * 1000:.0f} ms); "
          f"heavy modules it imported: {', '.join(heavy) or 'none'}")
    if args.used:
        _, used = measure(USED, args.repeat, with_plugin_only=True)
        print(f"  a run that uses ek_trace: best {min(used) * 1000:.0f} ms "
              f"(ratio {min(used) / min(without):.2f} against plain tests without the plugin: "
              "the OTel SDK and ek-otel's scoring, imported once)")


if __name__ == "__main__":
    main()
