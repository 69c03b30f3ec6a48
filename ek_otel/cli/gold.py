"""``ek-otel gold``: check and inspect gold task files.

Subcommands defined in other command modules (``gold from-bfcl``, in
:mod:`ek_otel.cli.bfcl`) are not imported here: they are listed in
:data:`ek_otel.cli.SUBCOMMANDS`, and the command line adds them to this group when it loads
it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import click
from rich.table import Table

from ..core.episode import AnyOf, TaskSpec
from ..core.rules import Rule
from ..errors import GoldFileError
from ..gold.native import GoldValidation, load_tasks, validate_file
from ._common import echo_errors, stdout_console

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
    if isinstance(value, Rule):
        return f"<{value.describe()}{', optional' if value.optional else ''}>"
    if isinstance(value, AnyOf):
        shown = ["<omitted>" if v == "" else _value_text(v) for v in value.values]
        return "|".join(shown)
    if isinstance(value, str):
        return value
    return repr(value)


def format_call(call: tuple) -> str:
    """A compact rendering of one gold call; ``|`` separates admissible values, a rule is
    shown as what it admits.

    Example:
        >>> format_call(("get_weather", {"city": AnyOf(("Paris", "Paris, FR")),
        ...                              "unit": AnyOf(("celsius", ""))}))
        'get_weather(city=Paris|Paris, FR, unit=celsius|<omitted>)'
        >>> from ek_otel.core.rules import AnyValue, Number
        >>> format_call(("refund", {"order_id": AnyValue(), "amount": Number(35.5, abs_tol=0.01)}))
        'refund(order_id=<any value>, amount=<35.5 ± 0.01>)'
    """
    tool, args = call
    return f"{tool}(" + ", ".join(f"{k}={_value_text(v)}" for k, v in args.items()) + ")"


def _task_row(task: TaskSpec) -> list[str]:
    if task.turns is not None:
        calls = "\n".join(
            f"turn {i + 1}: " + ("; ".join(format_call(c) for c in turn) or "(none)")
            for i, turn in enumerate(task.turns)
        )
    elif len(task.alternatives) > 1:
        calls = "\n".join(
            f"alternative {i + 1}: " + ("; ".join(
                format_call(c) + (" (optional)" if j in alt.optional else "")
                for j, c in enumerate(alt.calls)) or "(none)")
            for i, alt in enumerate(task.alternatives))
    else:
        calls = "\n".join(format_call(c) + (" (optional)" if j in task.optional else "")
                          for j, c in enumerate(task.gold)) or "(no call expected)"
    if task.ignore_tools:
        calls += "\nignored: " + ", ".join(task.ignore_tools)
    if task.answer is not None:
        calls += "\nanswer: " + _value_text(task.answer)
    tools = ", ".join(t.name + (" !" if t.destructive else "") for t in task.tools)
    if isinstance(task.input, list) and all(isinstance(x, str) for x in task.input):
        text = " / ".join(task.input)  # one user message per turn
    else:
        text = task.input if isinstance(task.input, str) else ("" if task.input is None else repr(task.input))
    return [
        task.task_id,
        task.slice or "",
        f"{task.value:g}",
        ("ordered\n" if task.ordered else "") + calls,
        tools,
        text if len(text) <= 60 else text[:57] + "...",
    ]


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
    """Print the tasks of a gold file as a table (a destructive tool is marked with !).

    \b
    Example:
        ek-otel gold show examples/tasks.jsonl
    """
    tasks = load_tasks(file)
    table = Table(title=f"{file}: {len(tasks)} task(s)", show_lines=True)
    table.add_column("task_id", no_wrap=True)
    table.add_column("slice", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("gold calls", overflow="fold", ratio=3)
    table.add_column("tools", overflow="fold", ratio=1)
    table.add_column("input", overflow="fold", ratio=2)
    for task in tasks:
        table.add_row(*_task_row(task))
    stdout_console().print(table)
