"""The docs hold: every command has help with an Example: and is in the README; the runnable
blocks of the README and of the guide (``docs/*.md``) run: every ``ek-otel`` command of an
``sh`` block, every ``python`` block (``shell``/``bash``/``text`` blocks are shown, not run);
examples/api_example.py runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from ek_otel.cli import cli
from ek_otel.gold.native import task_from_dict
from ek_otel.gold.pricing import pricing_from_dict

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README and the guide, by path relative to the repository.
DOCS = {"README.md": README} | {
    str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "docs").glob("*.md"))}


def all_commands(group: click.Group = cli, prefix: tuple = ()):
    """Every (path, command) below ``group``, groups included."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = prefix + (name,)
        yield path, command
        if isinstance(command, click.Group):
            yield from all_commands(command, path)


COMMANDS = list(all_commands())


def code_blocks(language: str, text: str = README) -> list[str]:
    return re.findall(r"```" + language + r"\n(.*?)```", text, re.S)


def test_there_are_commands():
    assert ("gold", "validate") in [path for path, _ in COMMANDS]


@pytest.mark.parametrize("path, command", COMMANDS, ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_command_has_help_with_an_example(path, command):
    help_text = command.help or ""
    assert help_text.strip(), f"ek-otel {' '.join(path)} has no help"
    assert "Example:" in help_text, f"ek-otel {' '.join(path)}: its help needs an 'Example:'"
    assert f"ek-otel {' '.join(path)}" in help_text.split("Example:", 1)[1], "the example should run the command"


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=" ".join)
def test_every_command_is_in_the_readme(path):
    assert f"ek-otel {' '.join(path)}" in README, f"README.md never mentions `ek-otel {' '.join(path)}`"


def test_readme_starts_with_its_title_then_the_two_commands():
    lines = README.splitlines()
    assert lines[0] == "# ek-otel"
    fence = lines.index("```sh")
    assert all(not line.startswith("```") for line in lines[1:fence])  # a paragraph, no code
    install_and_run, install_and_test, end = lines[fence + 1:fence + 4]
    assert install_and_run.startswith("pip install -e . && ek-otel ")
    assert install_and_test == "pip install -e '.[test]' && bash .ci/run"
    assert end == "```"


def test_readme_is_short_and_links_every_guide_page():
    assert len(README.splitlines()) <= 250
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in README or page.name == "README.md" and "docs/README.md" in README, page
    index = DOCS["docs/README.md"]
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert page.name == "README.md" or f"({page.name}" in index, f"docs/README.md lacks {page.name}"


def test_ci_installs_the_test_extra_and_runs_the_whole_suite():
    """``.ci/run`` (the README's test command) installs the test extra and runs every test."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pip install -q -e '.[test]'" in ci
    pytest_lines = [line for line in ci.splitlines() if line.startswith("python -m pytest ")]
    assert pytest_lines == ["python -m pytest -q -rs --skip-allowlist tests/skip_allowlist.txt"]


@pytest.mark.parametrize("doc", sorted(name for name, text in DOCS.items()
                                        if code_blocks("python", text)))
def test_python_blocks_run(doc, tmp_path, monkeypatch):
    for name in ("examples", "tests"):  # the paths the docs name, from a scratch directory
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    for block in code_blocks("python", DOCS[doc]):
        if block.startswith("# test_"):
            continue  # a test file for pytest: tests/testing/test_readme_example.py runs it
        exec(compile(block, doc, "exec"), {"__name__": "docs"})


def test_the_gold_example_is_a_valid_task():
    (block,) = code_blocks("json", DOCS["docs/gold-files.md"])
    task = task_from_dict(json.loads(block))
    assert task.grammar().field_cost("refund", "amount") == 20.0


def test_the_pricing_example_is_a_valid_pricing_file():
    (block,) = code_blocks("yaml", DOCS["docs/gold-files.md"])
    obj = yaml.safe_load(block.replace("https://...", "https://example.com"))
    assert pricing_from_dict(obj).table.price_of("gpt-4o-2024-08-06").input == 2.5


def test_api_example_runs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "api_example.py")],
        capture_output=True, text=True, check=False, cwd=str(ROOT.parent),
    )
    assert proc.returncode == 0, proc.stderr
    assert "corpus: precision=" in proc.stdout
    assert "refund-order-1042" in proc.stdout
    assert "2 of 4 runs passed; tasks: 2 pass, 0 flaky, 2 fail" in proc.stdout
    assert "refund-order-1042  fail (0/1)" in proc.stdout
    # the irrelevance slice expects no call: its recall is undefined, not 0
    assert "slice irrelevance  precision=0.000 recall=n/a f1=0.000" in proc.stdout


# The README's shell examples that name no file of the repo: placeholders for the user's own.
PLACEHOLDER_PATHS = ("dumps/",)


def block_commands(block: str) -> list[str]:
    """The ``ek-otel`` commands of one ``sh`` block, in order, continuation lines joined."""
    commands = []
    text = block.replace("\\\n", " ")
    for line in text.splitlines():
        line = line.split("  #", 1)[0].strip()
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("ek-otel") and not any(p in part for p in PLACEHOLDER_PATHS):
                commands.append(part)
    return commands


def readme_commands(text: str = README) -> list[str]:
    """Every ``ek-otel`` command of a page's ``sh`` blocks."""
    return [c for block in code_blocks("sh", text) for c in block_commands(block)]


def test_readme_has_shell_commands_to_run():
    commands = readme_commands()
    assert commands[0] == "ek-otel score examples/traces.jsonl --gold examples/tasks.jsonl"
    assert any("--emit-file" in c for c in readme_commands(DOCS["docs/scoring.md"]))


#: Every runnable block of the README and the guide: (page, block number, its commands).
DOC_BLOCKS = [(doc, n, commands) for doc, text in DOCS.items()
              for n, commands in enumerate(map(block_commands, code_blocks("sh", text)), 1)
              if commands]


def test_long_running_commands_are_not_in_runnable_blocks():
    for doc, n, commands in DOC_BLOCKS:
        assert not any(c.startswith("ek-otel serve") for c in commands), (
            f"{doc}, sh block {n}: `ek-otel serve` runs until stopped: show it in a `shell` block")


@pytest.mark.parametrize("doc, n, commands", DOC_BLOCKS,
                         ids=[f"{d} block {n}" for d, n, _ in DOC_BLOCKS])
def test_doc_shell_block_runs_as_written(doc, n, commands, tmp_path):
    """The commands of one block run in order in one scratch directory (a later command may
    read what an earlier one wrote), each exiting 0 with no traceback."""
    import shlex

    for name in ("examples", "tests"):  # the paths the docs name, from a scratch directory
        (tmp_path / name).symlink_to(ROOT / name)
    for command in commands:
        args = shlex.split(command)
        proc = subprocess.run([sys.executable, "-m", "ek_otel", *args[1:]], capture_output=True,
                              text=True, check=False, cwd=str(tmp_path))
        assert proc.returncode == 0, f"{doc}: {command}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
        for option in ("--json", "--emit-file", "--out"):  # what the command says it writes
            if option in args:
                assert (tmp_path / args[args.index(option) + 1]).stat().st_size > 0


def test_readme_names_the_json_report_keys_that_exist(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "ek_otel", "score", "examples/traces.jsonl",
                           "--gold", "examples/tasks.jsonl", "--json", str(out)],
                          capture_output=True, text=True, check=False, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    section = DOCS["docs/scoring.md"].split("`--json OUT` writes", 1)[1].split("When the runs differ", 1)[0]
    aggregate = section.split('"aggregate": {', 1)[1].split("}", 1)[0]
    for key in re.findall(r"[a-z_][a-z_0-9]*", aggregate):
        assert key in report["aggregate"], f"README names aggregate key {key!r}"
    episode = section.split('"episodes": [{', 1)[1].split("}", 1)[0]
    for key in re.findall(r"[a-z_][a-z_0-9]*", episode):
        assert key in report["episodes"][0], f"README names episode key {key!r}"
    top = section.split("}],", 1)[1].split("(", 1)[0]
    assert re.findall(r'"([a-z_]+)"', top)
    for key in re.findall(r'"([a-z_]+)"', top):
        assert key in report, f"README names report key {key!r}"
