"""The README's "In your test suite" example runs as shown: extracted from README.md, saved
under its own name and run by pytest (in a new process: it instruments the openai client)."""

from __future__ import annotations

import re

from plugin_run import REPO, outcomes, prepare, run_subprocess, summary_line

pytest_plugins = ("pytester",)


def readme_test_file() -> tuple:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## In your test suite", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    name = block.splitlines()[0].lstrip("# ").strip()
    return name, block


def test_the_readme_example_runs_as_shown(pytester, monkeypatch):
    prepare(pytester, monkeypatch)
    name, source = readme_test_file()
    assert name == "test_weather.py" and len(source.splitlines()) <= 14
    pytester.path.joinpath(name).write_text(source)
    result = run_subprocess(pytester)
    assert outcomes(result) == {"passed": 1}, result.stdout.str()
    assert summary_line(result) == "ek-otel: 1 task: 1 pass, 0 flaky, 0 fail (1 trial)"


def test_the_readme_example_fails_when_the_agent_is_wrong(pytester, monkeypatch):
    prepare(pytester, monkeypatch)
    name, source = readme_test_file()
    pytester.path.joinpath(name).write_text(source.replace('"city": ["Paris"]', '"city": ["Lyon"]'))
    result = run_subprocess(pytester)
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(["E*get_weather.city: expected 'Lyon', got 'Paris'*",
                                 'E*city*"Paris"*"Lyon"*wrong value'])
