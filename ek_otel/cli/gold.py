"""``ek-otel gold``: check and inspect gold task files.

Subcommands defined in other command modules (``gold from-bfcl``, in
:mod:`ek_otel.cli.bfcl`) are not imported here: they are listed in
:data:`ek_otel.cli.SUBCOMMANDS`, and the command line adds them to this group when it loads
it.
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from typing import Any

import click

from ..core.episode import AnyOf, TaskSpec
from ..core.rules import Rule
from ..errors import GoldFileError
from ..gold.native import GoldValidation, load_tasks, validate_file
from ._common import echo_errors

__all__ = ["gold", "summarize", "format_call"]


def summarize(validation: GoldValidation) -> str:
    """One line about a checked gold file: tasks, gold calls, distinct tools, slices.

    Example:
        >>> from ek_otel import TaskSpec, ToolSpec
        >>> v = GoldValidation("g.jsonl", tasks=(
        ...     TaskSpec("a", gold=[("f", {})], tools=[ToolSpec("f")], slice="s1"),
        ...     TaskSpec("b", slice="s1"), TaskSpec("c", gold=[("g", {}), ("f", {})])))
        >>> summarize(v)
        'g.jsonl: ok: 3 tasks, 3 gold calls, 2 tools, 1 with no call expected, slices: s1 (2), none (1)'
    """
    tasks = validation.tasks
    calls = sum(len(t.gold) for t in tasks)
    tools = {tool.name for t in tasks for tool in t.tools} | {name for t in tasks for name, _ in t.gold} | {
        name for t in tasks for alt in t.alternatives for name, _ in alt.calls}
    no_call = sum(1 for t in tasks if not t.gold)
    multi_turn = sum(1 for t in tasks if t.turns is not None)
    slices = Counter(t.slice if t.slice is not None else "none" for t in tasks)
    parts = [
        f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}",
        f"{calls} gold call{'s' if calls != 1 else ''}",
        f"{len(tools)} tool{'s' if len(tools) != 1 else ''}",
    ]
    if no_call:
        parts.append(f"{no_call} with no call expected")
    if multi_turn:
        parts.append(f"{multi_turn} multi-turn")
    alternatives = sum(1 for t in tasks if len(t.alternatives) > 1)
    if alternatives:
        parts.append(f"{alternatives} with alternatives (gold calls of the first counted)")
    answers = sum(1 for t in tasks if t.answer is not None)
    if answers:
        parts.append(f"{answers} with an expected answer")
    if set(slices) != {"none"}:
        parts.append("slices: " + ", ".join(f"{name} ({n})" for name, n in slices.most_common()))
    status = "ok" if validation.ok else f"{len(validation.errors)} error(s)"
    return f"{validation.path}: {status}: " + ", ".join(parts)


def _value_text(value: Any) -> str:
    """One value as JSON (strings quoted, so a comma inside a value reads as part of it); a
    rule as what it admits."""
    if isinstance(value, Rule):
        return f"<{value.describe()}{', optional' if value.optional else ''}>"
    if isinstance(value, AnyOf):
        shown = ["omitted" if v == "" else _value_text(v) for v in value.values]
        return " or ".join(shown) if shown else "omitted"
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def format_call(call: tuple) -> str:
    """One gold call: each argument's admissible values as JSON, joined by ``or``;
    ``omitted``: the argument may be left out; a rule is shown as what it admits.

    Example:
        >>> format_call(("get_weather", {"city": AnyOf(("Paris", "Paris, FR")),
        ...                              "unit": AnyOf(("celsius", ""))}))
        'get_weather(city="Paris" or "Paris, FR", unit="celsius" or omitted)'
        >>> from ek_otel.core.rules import AnyValue, Number
        >>> format_call(("refund", {"order_id": AnyValue(), "amount": Number(35.5, abs_tol=0.01)}))
        'refund(order_id=<any value>, amount=<35.5 ± 0.01>)'
    """
    tool, args = call
    return f"{tool}(" + ", ".join(f"{k}={_value_text(v)}" for k, v in args.items()) + ")"


#: What ``gold show`` writes under the tasks: how to read them.
SHOW_LEGEND = ('Values are JSON: "text" is a string, 35.5 a number. "a" or "b": either value is '
               'right; omitted: the argument may be left out. "in order": the calls must come in '
               "this order. [destructive]: a tool that changes state (the task's tools list).")


def _task_lines(task: TaskSpec) -> list:
    """The lines of one task in ``gold show``: a head line, then its input, calls and tools."""
    facts = [f"slice {task.slice}" if task.slice else None, f"value {task.value:g}",
             "in order" if task.ordered else None]
    lines = [f"{task.task_id}  ({', '.join(f for f in facts if f)})"]
    if isinstance(task.input, list) and all(isinstance(x, str) for x in task.input):
        lines += [f"  input, turn {i + 1}: {text}" for i, text in enumerate(task.input)]
    elif task.input is not None:
        lines.append(f"  input: {task.input if isinstance(task.input, str) else repr(task.input)}")
    numbered = task.ordered
    if task.turns is not None:
        for i, turn in enumerate(task.turns):
            lines.append(f"  turn {i + 1}:" + ("" if turn else " (no call expected)"))
            lines += [f"    {n + 1}. {format_call(c)}" if numbered else f"    {format_call(c)}"
                      for n, c in enumerate(turn)]
    elif len(task.alternatives) > 1:
        for i, alt in enumerate(task.alternatives):
            lines.append(f"  alternative {i + 1}: " + ("; ".join(
                format_call(c) + (" (optional)" if n in alt.optional else "")
                for n, c in enumerate(alt.calls)) or "(no call expected)"))
    elif not task.gold:
        lines.append("  (no call expected)")
    else:
        lines += [(f"  {n + 1}. " if numbered else "  ") + format_call(c)
                  + (" (optional)" if n in task.optional else "")
                  for n, c in enumerate(task.gold)]
    if task.tools:
        lines.append("  tools: " + ", ".join(t.name + (" [destructive]" if t.destructive else "")
                                              for t in task.tools))
    if task.ignore_tools:
        lines.append("  ignored: " + ", ".join(task.ignore_tools))
    if task.answer is not None:
        lines.append("  answer: " + _value_text(task.answer))
    return lines


@click.group("gold")
def gold() -> None:
    """Check and inspect gold task files (JSON Lines, JSON array or YAML).

    \b
    Example:
        ek-otel gold validate examples/tasks.jsonl
    """


@gold.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
def validate(files: tuple[str, ...]) -> None:
    """Check gold files; print a summary per file, or every error as FILE:LINE: message.

    Exits 2 when any file has an error (all errors of all files are printed first).

    \b
    Example:
        ek-otel gold validate examples/tasks.jsonl more-tasks.yaml
    """
    failed = 0
    for path in files:
        try:
            result = validate_file(path)
        except GoldFileError as exc:  # missing or unreadable file: still check the others
            result = GoldValidation(path=str(path), errors=(exc,))
        if result.ok:
            click.echo(summarize(result))
        else:
            failed += echo_errors(result.errors)
    if failed:
        click.get_current_context().exit(2)


@gold.command("show")
@click.argument("file", metavar="FILE")
def show(file: str) -> None:
    """Print the tasks of a gold file: each task's input, gold calls and tools, one per line.

    \b
    Example:
        ek-otel gold show examples/tasks.jsonl
    """
    tasks = load_tasks(file)
    click.echo(f"{file}: {len(tasks)} task{'s' if len(tasks) != 1 else ''}")
    for task in tasks:
        click.echo("")
        for line in _task_lines(task):
            click.echo(line)
    click.echo("")
    click.echo(textwrap.fill(SHOW_LEGEND, 80))
