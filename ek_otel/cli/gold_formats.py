"""``ek-otel gold import`` / ``gold export``: other tools' gold files (added to ``gold``).

The work is :mod:`ek_otel.gold.importers`; this module prints one line per task for what
the other format cannot express, and writes the file.
"""

from __future__ import annotations

import json
import os
from typing import Optional

import click

__all__ = ["import_command", "export_command"]

#: The formats (``ek_otel.gold.importers.FORMATS``; listed here so --help loads no importer).
FORMAT_NAMES = ["adk", "agentevals", "deepeval", "langchain"]


def _new_file(out: str) -> None:
    if os.path.exists(out):
        raise click.UsageError(f"{out} exists (never overwritten silently)")


def _echo_notes(notes: list) -> None:
    for note in notes:
        click.echo(note, err=True)


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMAT_NAMES))
@click.argument("file", metavar="FILE")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The gold file to write (.jsonl, .json or .yaml); never overwritten.")
@click.option("--config", "config", default=None, type=click.Path(dir_okay=False),
              help="adk/agentevals: the eval config (test_config.json) whose "
                   "tool_trajectory_avg_score criterion (match_type, ignore_args) sets the "
                   "tasks' match, ordered and args; default: test_config.json beside FILE.")
def import_command(fmt: str, file: str, out: str, config: Optional[str]) -> None:
    """Convert another tool's eval set into a gold file; every part the gold format cannot
    hold is named, one line per task.

    \b
    Formats:
        adk          Google ADK eval sets (*.evalset.json, *.test.json)
        agentevals   agentevals eval sets (ADK's shape; case_id, function_call parts)
        deepeval     DeepEval goldens with expected_tools (.json, .jsonl, .csv)
        langchain    LangChain agentevals reference trajectories (OpenAI message lists)
    \b
    Example:
        ek-otel gold import adk home_automation.test.json --out gold.jsonl
    """
    from ..gold.importers import import_file
    from ..gold.native import dump_tasks

    _new_file(out)
    tasks, notes = import_file(fmt, file, config=config)
    _echo_notes(notes)
    dump_tasks(tasks, out)
    click.echo(f"{out}: {len(tasks)} task(s) from {file} ({fmt}), {len(notes)} note(s)", err=True)


@click.command("export")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMAT_NAMES))
@click.argument("gold", metavar="GOLD")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The file to write (e.g. gold.evalset.json); never overwritten.")
@click.option("--config", "config", default=None, type=click.Path(dir_okay=False),
              help="adk/agentevals: also write the eval config (test_config.json) with the "
                   "tasks' tool_trajectory_avg_score criterion; never overwritten.")
def export_command(fmt: str, gold: str, out: str, config: Optional[str]) -> None:
    """Write a gold file in another tool's format; every part that format cannot hold is
    named, one line per task.

    \b
    Example:
        ek-otel gold export adk gold.jsonl --out my_agent.evalset.json
    """
    from ..gold.importers import export_tasks
    from ..gold.native import load_tasks

    _new_file(out)
    tasks = load_tasks(gold)
    data, notes = export_tasks(fmt, tasks)
    if config is not None:
        from ..errors import InputError
        from ..gold.adk import adk_config
        from ..gold.importers import CONFIG_FORMATS

        if fmt not in CONFIG_FORMATS:
            raise InputError(f"--config is written for {' and '.join(CONFIG_FORMATS)} only, not {fmt}")
        _new_file(config)
        settings = adk_config(tasks, notes)
    elif fmt in ("adk", "agentevals") and any(t.match != "exact" or t.args != "exact" for t in tasks):
        notes.append("the tasks' match modes go in ADK's eval config: pass --config test_config.json")
    _echo_notes(notes)
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if config is not None:
        with open(config, "w", encoding="utf-8") as f:
            f.write(json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    items = data.get("eval_cases", []) if isinstance(data, dict) else data
    click.echo(f"{out}: {len(items)} item(s) ({fmt}), {len(notes)} note(s)", err=True)
