"""``ek-otel doctor TRACES...``: why a trace gives the episode it gives.

Per trace (``--total`` for the total only) and in total: the instrumentations found (scope
names and versions, the package, its conventions, the framework), what was read (model
calls, tool calls executed or only requested, arguments captured or not, call ids, tokens
by kind), each gap with the setting that fixes it, and the spans read as nothing; traces that
are not agent runs (MCP ``initialize``, ``ping``, ...) are listed apart, without gaps. ``--json``
gives the same as data (:meth:`ek_otel.ingest.diagnosis.Diagnosis.to_dict`). The knowledge
(scope name -> package and framework, gap -> fix) is one table:
:mod:`ek_otel.ingest.instrumentations`. Exit 2 with one line when nothing could be read.

Example:
    ek-otel doctor traces.jsonl
    ek-otel doctor dumps/ --total --group-by conversation
    ek-otel doctor dump.pb --json - | jq '.total.gaps'
"""

from __future__ import annotations

import os
from typing import Optional

import click

from ..errors import InputError
from ..ingest.bad_input import BadInputReport
from ..ingest.diagnosis import Diagnosis, Gap, Read, ScopeSeen, TraceDiagnosis
from ..scoring.settings import task_id_key_list
from ._common import nothing_read_error, progress, reading_options, stderr_console, write_json

__all__ = ["doctor", "render"]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _scope_line(scope: ScopeSeen) -> str:
    name = scope.name or "(no scope name)"
    version = f" {scope.version}" if scope.version else ""
    known = scope.known
    what = (f"{known.package} [{known.convention}] -> {known.framework}" if known is not None
            else "not a known instrumentation (read by its attributes alone)")
    carries = f"; attributes: {', '.join(scope.conventions)}" if scope.conventions else ""
    return f"    {name}{version}: {_count(scope.spans, 'span')}; {what}{carries}"


def _read_lines(read: Read) -> list:
    return [
        f"  model calls: {read.model_calls} ({read.model_calls_without_usage} without a token count"
        + (f", {read.failed_model_calls} failed" if read.failed_model_calls else "") + ")"
        + ("; none is traced, yet tokens were read: model calls were made"
           if not read.model_calls and (read.input_tokens or read.output_tokens) else ""),
        f"  tool calls: {read.tool_calls} ({read.executed} executed, {read.requested_only} only "
        f"requested); arguments captured for {read.args_captured}, missing for "
        f"{read.args_missing}; call ids {read.call_ids}",
        f"  tokens: input {read.input_tokens}, output {read.output_tokens}, cached "
        f"{read.cached_tokens}, reasoning {read.reasoning_tokens}",
    ]


def _gap_lines(gap: Gap, traces: Optional[int] = None) -> list:
    label = gap.item if gap.certain else f"{gap.item} (possible)"
    where = f" in {_count(traces, 'trace')}" if traces is not None else ""
    what = f": {gap.what}" if gap.what else ""
    of = ", ".join(part for part in (gap.package and f"package {gap.package}",
                                     gap.provider and f"provider {gap.provider}") if part)
    return [f"    {label}{where}{what}", *([f"      of: {of}"] if of else []),
            f"      fix: {gap.fix}"]


def _unread_line(unread: tuple) -> str:
    count = sum(n for _, n in unread)
    if not count:
        return "  read as nothing: no span"
    shown = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in unread[:8])
    more = f", ... ({len(unread) - 8} more names)" if len(unread) > 8 else ""
    return f"  read as nothing: {_count(count, 'span')} ({shown}{more})"


def _trace_lines(trace: TraceDiagnosis) -> list:
    head = f"trace {trace.trace_id or '(no trace id)'}"
    if trace.task_id:
        head += f"  task {trace.task_id}"
    if trace.service:
        head += f"  service {trace.service}"
    lines = [head, f"  framework: {trace.framework or 'none recognised'}",
             f"  instrumentations ({_count(trace.spans, 'span')}, {_count(trace.logs, 'log record')}):"]
    lines += [_scope_line(s) for s in trace.scopes]
    lines += _read_lines(trace.read)
    if trace.gaps:
        lines.append("  gaps:")
        for gap in trace.gaps:
            lines += _gap_lines(gap)
    else:
        lines.append("  gaps: none found")
    lines.append(_unread_line(trace.unread_spans))
    return lines


def render(diagnosis: Diagnosis, *, total_only: bool = False) -> str:
    """The doctor's report as plain text (no markup: strings from traces are untrusted).

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> from ek_otel.ingest.diagnose import diagnose
        >>> print(render(diagnose([(Episode("t"), [], [])]), total_only=True))
        total: 1 trace
          frameworks: (none recognised) x1
          instrumentations:
          model calls: 0 (0 without a token count)
          tool calls: 0 (0 executed, 0 only requested); arguments captured for 0, missing for 0; call ids 0
          tokens: input 0, output 0, cached 0, reasoning 0
          gaps: none found
          read as nothing: no span
    """
    lines: list = []
    if not total_only:
        for trace in diagnosis.traces:
            lines += _trace_lines(trace) + [""]
    if diagnosis.not_runs and not total_only:
        lines.append(f"{_count(len(diagnosis.not_runs), 'trace')} not an agent run (no model "
                     "call, tool call, agent or task id; never scored):")
        lines += [f"  trace {n.trace_id or '(no trace id)'}: {n.what} "
                  f"({_count(n.spans, 'span')})" for n in diagnosis.not_runs]
        lines.append("")
    total = diagnosis.total
    frameworks = ", ".join(f"{name} x{n}" for name, n in total.frameworks) or "-"
    lines += [f"total: {_count(total.traces, 'trace')}"]
    if total.not_runs:
        what = ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in total.not_runs)
        lines.append(f"  not agent runs: {sum(n for _, n in total.not_runs)} ({what})")
    lines += [f"  frameworks: {frameworks}", "  instrumentations:"]
    lines += [_scope_line(s) for s in total.scopes]
    lines += _read_lines(total.read)
    if total.gaps:
        lines.append("  gaps:")
        for gap, n in total.gaps:
            lines += _gap_lines(gap, n)
    else:
        lines.append("  gaps: none found")
    lines.append(_unread_line(total.unread_spans))
    return "\n".join(lines)


@click.command("doctor")
@click.argument("paths", nargs=-1, required=True)
@click.option("--json", "json_out", metavar="OUT", is_flag=False, flag_value="-",
              help="Write the diagnosis as JSON here ('-' or no value: stdout).")
@click.option("--total", "total_only", is_flag=True, help="Print the total only, not each trace.")
@reading_options
def doctor(paths: tuple, json_out: Optional[str], total_only: bool, group_by: str,
           task_id_keys: tuple) -> None:
    """Say why trace dumps (files, directories, globs, or - for stdin) give the episodes
    they give: instrumentations, what was read, each gap and its fix.

    \b
    Example:
        ek-otel doctor traces.jsonl
        ek-otel doctor dumps/ --total --json report.json
    """
    from ..pipeline import diagnose_dumps

    if json_out not in (None, "-") and any(os.path.exists(p) and os.path.samefile(p, json_out)
                                           for p in paths if p != "-" and os.path.exists(json_out)):
        raise InputError("--json would overwrite an input dump; name another file", path=json_out)
    report = BadInputReport()
    with progress("diagnosing traces") as advance:
        diagnosis = diagnose_dumps(list(paths), report=report, group_by=group_by,
                                   task_id_keys=task_id_key_list(task_id_keys),
                                   on_episode=lambda _: advance())
    if not diagnosis.traces and not diagnosis.not_runs:
        error = nothing_read_error(report, paths)
        if error is not None:
            raise error
    if json_out is not None:
        data = diagnosis.to_dict()
        if total_only:
            data.pop("traces")
            data.pop("not_agent_runs")
        data["bad_input"] = {"total": report.total, "counts": dict(report.counts),
                             "cases": [str(c) for c in report.cases]}
        write_json(data, json_out)
    if json_out != "-":
        click.echo(render(diagnosis, total_only=total_only))
    if not report.ok:
        stderr_console().print(report.summary(), markup=False, highlight=False)
