"""``ek-otel gold from-traces``: a gold file from good runs (added to the ``gold`` group).

The work is :func:`ek_otel.gold_from_traces.from_traces` (:mod:`ek_otel.gold.traces`) and
:func:`~ek_otel.gold.traces.merge_tasks`; this module parses flags, shows progress,
prints the runs left out and the differences with an existing file, and writes the file.
"""

from __future__ import annotations

import os
from typing import Optional

import click

from ._common import progress

__all__ = ["from_traces_command"]


@click.command("from-traces")
@click.argument("traces", nargs=-1, required=True, metavar="TRACES...")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The gold file to write (.jsonl, .json or .yaml).")
@click.option("--trace-id", "trace_ids", multiple=True, metavar="ID",
              help="Use this run only; repeat for several.")
@click.option("--task-id", "task_ids", multiple=True, metavar="ID",
              help="Use the runs of this task id only; repeat for several.")
@click.option("--from-report", "from_report", type=click.Path(dir_okay=False), metavar="REPORT.json",
              help="Use the runs a previous `ek-otel score --json` judged --verdict.")
@click.option("--verdict", type=click.Choice(["pass", "fail"]), default="pass", show_default=True,
              help="With --from-report: which runs to use.")
@click.option("--phoenix-url", metavar="URL", help="Use the runs labelled in this Phoenix "
              "(with --annotation and --label).")
@click.option("--annotation", metavar="NAME", help="The Phoenix annotation that marks good runs.")
@click.option("--label", metavar="LABEL", help="The label of --annotation that marks a good run.")
@click.option("--phoenix-project", default="default", show_default=True, metavar="PROJECT",
              help="The Phoenix project the traces are in.")
@click.option("--phoenix-api-key", envvar="PHOENIX_API_KEY", metavar="KEY",
              help="Phoenix API key (default: $PHOENIX_API_KEY).")
@click.option("--group-by", type=click.Choice(["task", "input"]), default="task", show_default=True,
              help="Runs of one task id, or with the same first user message, make one task.")
@click.option("--with-answer", is_flag=True, help="Propose each task's expected final answer.")
@click.option("--ordered/--unordered", "ordered", default=None,
              help="Force the call order to matter or not (default: ordered when 2+ runs agree).")
@click.option("--ignore-tool", "ignore_tools", multiple=True, metavar="NAME",
              help="A framework-internal tool (final_answer): left out of the tasks; repeatable.")
@click.option("--task-id-key", "task_id_keys", multiple=True, metavar="KEY",
              help="Attribute key holding the task id (repeatable; default: ek-otel's list).")
@click.option("--merge", "merge", type=click.Path(dir_okay=False, exists=True), metavar="EXISTING",
              help="Add the new tasks to this gold file; a task id already there keeps its task "
                   "(the difference is printed) unless --replace.")
@click.option("--replace", is_flag=True, help="With --merge: replace a task whose id is already there.")
def from_traces_command(traces: tuple, out: str, trace_ids: tuple, task_ids: tuple,
                        from_report: Optional[str], verdict: str, phoenix_url: Optional[str],
                        annotation: Optional[str], label: Optional[str], phoenix_project: str,
                        phoenix_api_key: Optional[str], group_by: str, with_answer: bool,
                        ordered: Optional[bool], ignore_tools: tuple, task_id_keys: tuple,
                        merge: Optional[str], replace: bool) -> None:
    """Make gold tasks from good runs: their calls, input and tool schemas, with the values
    that vary between runs turned into rules (see docs/gold.md).

    Each task's meta says which traces it came from and every value it generalised. The
    same traces give the same bytes. An existing --out is never overwritten: pass --merge.

    \b
    Example:
        ek-otel gold from-traces good-runs.jsonl --out gold.jsonl
        ek-otel gold from-traces dump/ --from-report report.json --verdict pass --out gold.jsonl
        ek-otel gold from-traces dump/ --group-by input --with-answer --out gold.jsonl
        ek-otel gold from-traces dump/ --phoenix-url http://localhost:6006 \\
            --annotation correct --label yes --out gold.jsonl
        ek-otel gold from-traces new-runs/ --merge gold.jsonl --out gold.jsonl
    """
    from ..gold.traces import merge_tasks
    from ..gold_from_traces import from_traces
    from ..gold.native import dump_tasks, load_tasks
    from ..ingest.bad_input import BadInputReport

    if replace and not merge:
        raise click.UsageError("--replace goes with --merge EXISTING")
    if os.path.exists(out) and (merge is None or os.path.abspath(merge) != os.path.abspath(out)):
        raise click.UsageError(f"{out} exists: pass --merge {out} to add to it "
                               "(a gold file is never overwritten silently)")
    report = BadInputReport()
    with progress("reading runs") as advance:
        result = from_traces(list(traces), trace_ids=trace_ids, task_ids=task_ids,
                             from_report=from_report, verdict=verdict, phoenix_url=phoenix_url,
                             annotation=annotation, label=label, phoenix_project=phoenix_project,
                             phoenix_api_key=phoenix_api_key, group_by=group_by,
                             with_answer=with_answer, ordered=ordered, ignore_tools=ignore_tools,
                             task_id_keys=task_id_keys or None, report=report,
                             on_episode=lambda _episode: advance())
    for trace_id, reason in result.left_out:
        click.echo(f"left out {trace_id or '(no trace id)'}: {reason}", err=True)
    if not report.ok:
        click.echo(report.summary(), err=True)
    tasks = list(result.tasks)
    note = ""
    if merge:
        existing = load_tasks(merge)
        tasks, added, changes = merge_tasks(existing, tasks, replace=replace, name=merge)
        for change in changes:
            click.echo(change.diff, err=True, nl=False)
            click.echo(f"{change.task_id}: {'replaced' if change.replaced else 'kept the task of ' + merge}"
                       f"{'' if change.replaced else ' (--replace to take the new one)'}", err=True)
        note = f", merged into {merge}: {len(added)} added, {len(changes)} differing"
    dump_tasks(tasks, out)
    generalised = sum(len(t.meta.get("generalised", ())) for t in result.tasks)
    click.echo(f"{out}: {len(result.tasks)} task(s) from {result.runs} of {result.seen} run(s), "
               f"{generalised} value(s) generalised{note}", err=True)
