"""``ek-otel episodes PATH...``: show the episodes ek-otel reads from trace dumps.

One JSON object per episode per line (``--table`` for a readable table instead); the
bad-input summary goes to stderr. The episodes are exactly those ``ek-otel score`` scores
(:func:`~ek_otel.pipeline.read_episodes`): ek-otel's own scores in a dump are skipped, and
spans that come after their trace was closed show the trace again, rebuilt from all its
spans, with ``"late": true`` in ``meta``. Exit 2 when nothing could be read at all. This is the first thing to run on a new dump: it shows
which calls, tokens and task ids ek-otel found.

Example:
    ek-otel episodes traces.jsonl logs.jsonl
    ek-otel episodes dumps/ --table --group-by conversation
    ek-otel episodes dump.pb --task-id-key my.task --task-id-key run.task_id
"""

from __future__ import annotations

from typing import Iterable, Optional

import click
from rich.table import Table

from ..core.episode import Episode
from ..ingest.bad_input import BadInputReport
from ..ingest.episode_dict import episode_to_json
from ..ingest.episodes import NOT_A_RUN, is_agent_run
from ..ingest.semconv.nonruns import NOT_AN_AGENT_RUN
from ..pipeline import read_episodes
from ..scoring.settings import task_id_key_list
from ._ids import short_ids
from ._common import nothing_read_error, reading_options, stderr_console, stdout_console

__all__ = ["episodes", "episodes_table", "not_runs_line"]


def _steps(episode: Episode) -> str:
    parts = []
    for step in episode.trajectory:
        text = step.tool if step.args_captured else f"{step.tool}(?)"
        if step.hosted:
            text += " (hosted)"
        parts.append(f"{text} [red]✗[/red]" if step.error else text)
    return ", ".join(parts) or "-"


def episodes_table(episodes: Iterable[Episode], wide: bool = False) -> Table:
    """A rich table: one row per episode (steps, tokens in/out, model; ``wide``: cached and
    reasoning tokens too, and values whole instead of cut with an ellipsis).

    A step whose arguments were not captured is shown as ``tool(?)``; a failed one with ✗; a
    hosted one (run by the model provider) with ``(hosted)``;
    a trace that is not an agent run says what it is. Trace ids are shown as their shortest
    unique prefix (at least 8 hex digits).

    Example:
        >>> episodes_table([Episode("t1")]).row_count
        1
    """
    from ._tables import name_column

    table = Table(title="episodes")
    table.add_column("trace", no_wrap=True, min_width=8)
    name_column(table, "task", wide)
    name_column(table, "steps", wide)
    tokens_shown = ("in", "out", "cached", "reasoning") if wide else ("in", "out")
    for column in tokens_shown:
        table.add_column(column, justify="right", no_wrap=True, min_width=5)
    name_column(table, "model", wide)
    episodes = list(episodes)
    ids = short_ids([e.provenance.trace_id if e.provenance is not None else ""
                     for e in episodes])
    for episode, trace_id in zip(episodes, ids):
        cost = episode.cost
        tokens = ((cost.input_tokens, cost.output_tokens, cost.cached_input_tokens,
                   cost.reasoning_tokens) if cost is not None else (0, 0, 0, 0))
        not_a_run = None if is_agent_run(episode) else episode.meta[NOT_A_RUN]
        table.add_row(
            trace_id,
            episode.task_id or "-",
            f"({NOT_AN_AGENT_RUN}: {not_a_run})" if not_a_run else _steps(episode),
            *(str(n) for n in tokens[:len(tokens_shown)]),
            (episode.run.model if episode.run is not None else "") or "-",
        )
    return table


def not_runs_line(kinds: dict) -> str:
    """The line that counts the traces that are not agent runs, by what they are.

    Example:
        >>> not_runs_line({"MCP initialize": 2, "MCP ping": 1})
        '3 traces are not agent runs (MCP initialize x2, MCP ping): no model call, tool call, agent or task id; `score` lists them as unmatched and never scores them'
    """
    n = sum(kinds.values())
    what = ", ".join(f"{kind} x{count}" if count > 1 else kind for kind, count in kinds.items())
    verb = "trace is not an agent run" if n == 1 else "traces are not agent runs"
    return (f"{n} {verb} ({what}): no model call, tool call, agent or task id; `score` lists "
            "them as unmatched and never scores them")


@click.command("episodes")
@click.argument("paths", nargs=-1, required=True)
@click.option("--table", "as_table", is_flag=True, help="Print a table instead of JSON lines.")
@click.option("--wide", is_flag=True, help="With --table: every column, values whole (default: "
              "fit the terminal, long values cut with an ellipsis).")
@reading_options
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes that read and build (as for `score`; the output is that of one).")
def episodes(paths: tuple, as_table: bool, group_by: str, task_id_keys: tuple,
             jobs: Optional[int] = None, wide: bool = False) -> None:
    """Print the episodes read from trace dumps (files, directories, globs, or - for stdin).

    Example:
        ek-otel episodes traces.jsonl --table
    """
    report = BadInputReport()
    evicted: list = []
    ours = [0]

    def count_ours(_record) -> None:
        ours[0] += 1

    found = read_episodes(list(paths), report=report, group_by=group_by,
                          task_id_keys=task_id_key_list(task_id_keys), evicted=evicted,
                          on_own_output=count_ours, jobs=jobs)
    shown = 0
    not_runs: dict = {}

    def counted(stream):
        for episode in stream:
            if not is_agent_run(episode):
                kind = episode.meta[NOT_A_RUN]
                not_runs[kind] = not_runs.get(kind, 0) + 1
            yield episode

    if as_table:
        listed = list(counted(found))
        shown = len(listed)
        from ._tables import print_table

        print_table(stdout_console(), episodes_table(listed, wide), wide)
    else:
        for episode in counted(found):
            click.echo(episode_to_json(episode))
            shown += 1
    if not report.ok:
        stderr_console().print(report.summary(), markup=False, highlight=False)
    if not_runs:
        click.echo(not_runs_line(not_runs), err=True)
    if ours[0]:
        click.echo(f"{ours[0]} record(s) of scores written back by ek-otel were read and "
                   "skipped (they are not runs of an agent)", err=True)
    if evicted:
        click.echo(f"{len(evicted)} late record group(s) came for traces no longer in memory "
                   "and were not shown", err=True)
    if not shown:
        error = nothing_read_error(report)
        if error is not None:
            raise error
