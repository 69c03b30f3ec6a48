"""Match modes and hard rules end to end: a gold file using them, ``ek-otel score`` with its
JSON report, terminal summary, JUnit file and page; ``gold validate`` on a bad value."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "ek_otel", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=env)


def _gold(tmp_path):
    tasks = []
    for line in open(os.path.join(ROOT, "examples", "tasks.jsonl"), encoding="utf-8"):
        if line.strip() and not line.lstrip().startswith("#"):
            task = json.loads(line)
            if task["task_id"] == "joke-no-tool":  # a spurious get_weather: now forbidden
                task.update(match="subset", forbid=["get_*"])
            if task["task_id"] == "refund-order-1042":
                task.update(match="superset", args_by_tool={"refund": "ignore"}, max_calls={"*": 5})
            tasks.append(task)
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    return path


def test_score_reports_modes_and_hard_rules_everywhere(tmp_path):
    gold = _gold(tmp_path)
    proc = _run("score", os.path.join(ROOT, "examples", "traces.jsonl"), "--gold", str(gold),
                "--json", "r.json", "--junit", "r.xml", "--html", "r.html", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {(e["task_id"], e["success"]): e for e in report["episodes"]}
    joke = rows["joke-no-tool", False]
    assert joke["match"] == "subset"
    assert joke["violations"] == [{"kind": "forbidden_call", "tool": "get_weather", "detail": "get_*"}]
    assert "forbidden: get_weather called" in joke["explanation"]
    refunds = [e for e in report["episodes"] if e["task_id"] == "refund-order-1042"]
    assert all(e["success"] for e in refunds) and all(e["match"] == "superset" for e in refunds)
    # the task is ordered; refund's arguments are ignored, so the wrong amount passes
    assert refunds[0]["explanation"] == ("superset, in order: 2 of 2 gold calls made in order; "
                                         "2/2 calls matched exactly")
    assert joke["precision"] == 0.0  # the figures keep their meaning: the call was spurious
    plain = [e for e in report["episodes"] if e["task_id"] == "weather-paris"]
    assert all("match" not in e and "violations" not in e for e in plain)
    assert "forbidden call" in proc.stdout + proc.stderr
    junit = (tmp_path / "r.xml").read_text()
    assert "forbidden: get_weather called" in junit
    page = (tmp_path / "r.html").read_text()
    assert "forbidden_call" in page and "forbidden call" in page


def test_gold_validate_names_a_bad_mode_in_one_line(tmp_path):
    (tmp_path / "g.jsonl").write_text('{"task_id": "t", "calls": [], "match": "any_order"}\n')
    proc = _run("gold", "validate", "g.jsonl", cwd=tmp_path)
    assert proc.returncode == 2
    assert 'g.jsonl:1: match must be one of "exact", "superset", "subset", got "any_order"' in proc.stdout + proc.stderr


def test_match_override_on_the_command_line(tmp_path):
    """--match superset --unordered overrides every task's modes; the provenance names them."""
    traces = os.path.join(ROOT, "examples", "traces.jsonl")
    gold = os.path.join(ROOT, "examples", "tasks.jsonl")
    plain = _run("score", traces, "--gold", gold, "--json", "a.json", cwd=tmp_path)
    over = _run("score", traces, "--gold", gold, "--json", "b.json", "--match", "superset",
                "--unordered", cwd=tmp_path)
    assert plain.returncode in (0, 1) and over.returncode in (0, 1), over.stderr
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert "match" not in a["provenance"]["matcher"]
    assert b["provenance"]["matcher"]["match"] == "superset"
    assert b["provenance"]["matcher"]["ordered"] is False
    assert all(e["match"] == "superset" and e["explanation"].startswith("superset: ")
               for e in b["episodes"])
    # the figures keep their meaning; a run with an extra call now passes, none fails anew
    for x, y in zip(a["episodes"], b["episodes"]):
        assert (x["precision"], x["recall"]) == (y["precision"], y["recall"])
        assert y["success"] or not x["success"]
    extra = [y for x, y in zip(a["episodes"], b["episodes"])
             if not x["success"] and y["success"]]
    assert extra and all(y["precision"] < 1 and y["recall"] in (1, None) for y in extra)
    bad = _run("score", traces, "--gold", gold, "--match", "any_order", cwd=tmp_path)
    assert bad.returncode == 2 and "Invalid value for '--match'" in bad.stderr
    bfcl = _run("score", traces, "--gold", gold, "--match", "subset", "--matcher", "bfcl", cwd=tmp_path)
    assert bfcl.returncode == 2
    assert "--match and --ordered/--unordered need --matcher ek" in bfcl.stderr
    assert "Traceback" not in bad.stderr + bfcl.stderr
