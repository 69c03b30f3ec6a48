"""The report tables of `score`/`report`: verdicts, the headline, exact match shown once."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner
from rich.console import Console

from ek_otel.cli import cli
from ek_otel.cli._tables import headline_lines, tasks_table
from ek_otel.core.episode import TaskSpec
from ek_otel.core.aggregate import aggregate_scores
from ek_otel.core.scores import EpisodeScore

ROOT = Path(__file__).resolve().parents[2]
GOLD, TRACES = ROOT / "examples" / "tasks.jsonl", ROOT / "examples" / "traces.jsonl"


def _text(table) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(table)
    return out.getvalue()


def test_score_shows_each_task_verdict_and_the_headline():
    result = CliRunner().invoke(cli, ["score", str(TRACES), "--gold", str(GOLD)],
                                env={"COLUMNS": "200"}, catch_exceptions=False)
    assert result.exit_code == 0
    lines = {line.split("│")[1].strip(): line for line in result.output.splitlines()
             if line.startswith("│")}
    assert "flaky 2/3" in lines["weather-paris"] and "flaky 1/2" in lines["joke-no-tool"]
    assert "5/9" in lines["total"]
    assert "5 of 9 runs passed; tasks: 0 pass, 4 flaky, 0 fail" in result.output
    # success and exact match are the same figure on every task: one column, said so.
    assert "exact" not in result.output.split("by slice")[0].splitlines()[2]
    assert "success = exact match on every task (shown once)" in result.output


def _run(scores):
    tasks = {t: TaskSpec(t, gold=[("f", {})]) for t in {s.task_id for s in scores}}
    report = aggregate_scores(((s, None) for s in scores), tasks)
    return SimpleNamespace(report=report, task_dollars=lambda _t: None)


def test_exact_match_gets_its_column_where_it_differs_from_success():
    # A state check can make a run succeed whose calls did not match exactly (BFCL).
    run = _run([EpisodeScore("a", tp=1.0, exact=True, success=True),
                EpisodeScore("a", fn=1.0, exact=False, success=True),
                EpisodeScore("b", fn=1.0, exact=False, success=False)])
    text = _text(tasks_table(run))
    assert "exact" in text and "shown once" not in text
    row = next(line for line in text.splitlines() if line.startswith("│ a "))
    assert "pass 2/2" in row and "0.500" in row
    assert "fail 0/1" in next(line for line in text.splitlines() if line.startswith("│ b "))
    assert headline_lines(run) == ["2 of 3 runs passed; tasks: 1 pass, 0 flaky, 1 fail"]


def test_compare_and_the_page_do_not_import_scipy(tmp_path):
    # Issue 20: the page and compare must not pay scipy's import.
    code = (
        "import sys\n"
        "from ek_otel.cli import main\n"
        f"args = ['score', {str(TRACES)!r}, '--gold', {str(GOLD)!r}, '--json', {str(tmp_path / 'r.json')!r},"
        f" '--html', {str(tmp_path / 'r.html')!r}, '--junit', {str(tmp_path / 'r.xml')!r},"
        f" '--markdown', {str(tmp_path / 'r.md')!r}]\n"
        "try:\n    main(args)\nexcept SystemExit:\n    pass\n"
        f"try:\n    main(['compare', {str(tmp_path / 'r.json')!r}, {str(tmp_path / 'r.json')!r},"
        f" '--html', {str(tmp_path / 'c.html')!r}])\nexcept SystemExit:\n    pass\n"
        "print('scipy' in sys.modules, any(m.startswith('scipy') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "False False"
    assert (tmp_path / "c.html").exists()
