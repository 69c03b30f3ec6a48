"""``ek-otel bfcl`` never gives an unofficial multi-turn figure unlabelled: on the real
submission, in a process where the official state checker cannot import (``mpmath``, which
bfcl-eval's MathAPI needs, blocked), it exits 2 naming what is missing; with
``--multi-turn ast`` every place that shows the figures labels them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(tmp_path, *args):
    blocker = tmp_path / "blocked"
    blocker.mkdir(exist_ok=True)
    (blocker / "mpmath.py").write_text(
        "raise ImportError(\"No module named 'mpmath' (blocked by the test)\")\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(blocker), str(REPO)]), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "ek_otel", "bfcl", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=600)


def test_without_the_state_checker_multi_turn_is_refused_then_labelled(bfcl_real, bfcl_data,
                                                                      tmp_path):
    result_dir = str(bfcl_real / "result")
    refused = _run(tmp_path, result_dir)
    assert refused.returncode == 2, refused.stderr
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "official state mode" in lines[0], refused.stderr
    assert "mpmath" in lines[0] and "--multi-turn ast" in lines[0]
    assert refused.stdout == ""

    out, scores = tmp_path / "v.json", tmp_path / "score"
    labelled = _run(tmp_path, result_dir, "--multi-turn", "ast", "--json", str(out),
                    "--score-dir", str(scores))
    assert labelled.returncode == 0, labelled.stderr
    overall = next(line for line in labelled.stdout.splitlines() if "Overall" in line)
    assert "Overall (ast mode, not the official figure)" in overall and "61.08%" in overall
    data = json.loads(out.read_text())
    assert set(data["not_official"]["figures"]) == {
        "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
        "multi_turn_long_context", "Multi-Turn", "Overall"}
    for path in scores.rglob("BFCL_v4_*_score.json"):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert ("note" in header) == ("/multi_turn/" in path.as_posix()), path
