"""``ek-otel score PATH... --gold GOLD``: score trace dumps against gold tasks.

Reads the dumps, rebuilds the episodes, links each to its task, scores its tool calls, prints
a table per task, per slice and in total (and the unmatched episodes), and optionally writes
the scores back: ``gen_ai.evaluation.result`` events and evaluation spans, to an OTLP JSON
Lines file (``--emit-file``), an OTLP endpoint (``--emit-endpoint``), or both.

With ``--phoenix-url`` each score is also written as a Phoenix span annotation (on the run's
root span) and trace annotation (see :mod:`ek_otel.emit.phoenix`).

Exit codes: 0 when scoring ran (whatever the scores) and everything the backends can take was
delivered (a backend without a logs endpoint gets one warning, not a failure); 2 with one
line for unreadable input, a gold or pricing file that cannot be used, or bad emit settings;
1 when scores could not be written back (the table and the JSON report are still produced).

Example:
    ek-otel score examples/traces.jsonl --gold examples/tasks.jsonl
    ek-otel score dumps/ --gold tasks.jsonl --level arg --json report.json \\
        --emit-file scores.jsonl --emit-endpoint http://127.0.0.1:4318 --emit-protocol http
"""

from __future__ import annotations

from typing import Any, Optional

import click
from rich.table import Table

from ..errors import InputError
from ..emit.factory import EmitSettings, make_sinks
from ..emit.sinks import MultiSink
from ..ingest.bad_input import BadInputReport
from ..pipeline import (
    GROUP_BY_CHOICES,
    ScoreRun,
    ScoreSettings,
    Unmatched,
    load_settings,
    score_dump,
)
from ._common import (
    emit_options,
    nothing_read_error,
    parse_headers,
    phoenix_api_key,
    progress,
    scoring_options,
    stderr_console,
    stdout_console,
    write_json,
)

__all__ = ["score", "emitted_dict", "tasks_table", "slices_table", "groups_table", "unmatched_table"]

_MAX_UNMATCHED_ROWS = 20


def _rate(value: Optional[float]) -> str:
    return "-" if value is None or value != value else f"{value:.3f}"


def _money(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"${value:,.2f}" if value >= 100 else f"${value:.3g}"


def tasks_table(run: ScoreRun) -> Table:
    """Per-task figures and a total row (pass^k when tasks repeat; dollars when priced).

    Example:
        >>> from ek_otel.pipeline import score_episodes
        >>> tasks_table(score_episodes([], {}, ScoreSettings())).row_count
        1
    """
    report = run.report
    with_k = report.k > 1
    table = Table(title="tool-call scores by task")
    columns = ["task", "n", "prec", "recall", "F1", "exact"]
    if with_k:
        columns.append(f"pass^{report.k}")
    columns.append("dollars")
    for name in columns:
        if name == "task":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)

    def row(label: str, cut: Any, pass_hat: Optional[float], dollars) -> list:
        cells = [label, str(cut.n), _rate(cut.precision), _rate(cut.recall),
                 _rate(cut.f1), _rate(cut.exact_rate)]
        if with_k:
            cells.append(_rate(pass_hat))
        cells.append(_money(dollars))
        return cells

    for task_id, cut in report.per_task.items():
        table.add_row(*row(task_id, cut, report.pass_hat_k.get(task_id), run.task_dollars(task_id)))
    table.add_section()
    table.add_row(*row("total", report.overall, report.mean_pass_hat_k, report.dollars),
                  style="bold")
    return table


def slices_table(run: ScoreRun) -> Optional[Table]:
    """Per-slice figures, or None when no scored task has a slice.

    Example:
        >>> from ek_otel.pipeline import score_episodes
        >>> slices_table(score_episodes([], {}, ScoreSettings())) is None
        True
    """
    if not run.report.per_slice:
        return None
    table = Table(title="by slice")
    for name in ("slice", "n", "prec", "recall", "F1", "exact", "success"):
        if name == "slice":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for name, cut in run.report.per_slice.items():
        table.add_row(name, str(cut.n), _rate(cut.precision), _rate(cut.recall), _rate(cut.f1),
                      _rate(cut.exact_rate), _rate(cut.success_rate))
    return table


def groups_table(run: ScoreRun) -> Table:
    """Figures per provenance group (model, simulator, suite version, scaffold), when they differ.

    Example:
        >>> from ek_otel.pipeline import score_episodes
        >>> groups_table(score_episodes([], {}, ScoreSettings())).row_count
        0
    """
    table = Table(title="runs that differ in model or scaffold, apart")
    table.add_column("model / simulator / suite / scaffold", overflow="fold")
    for name in ("n", "prec", "recall", "F1", "exact"):
        table.add_column(name, justify="right", no_wrap=True)
    for group in run.report.groups:
        cut = group.report.overall
        label = " / ".join(str(part) if part else "-" for part in group.key)
        table.add_row(label, str(cut.n), _rate(cut.precision), _rate(cut.recall), _rate(cut.f1),
                      _rate(cut.exact_rate))
    return table


def unmatched_table(unmatched: tuple) -> Table:
    """The episodes that were not scored, and why (the first 20; a count of the rest).

    Example:
        >>> unmatched_table((Unmatched("ab" * 16, "x", "task id not in the gold file"),)).row_count
        1
    """
    table = Table(title=f"{len(unmatched)} unmatched episode{'s' if len(unmatched) != 1 else ''}")
    table.add_column("trace", no_wrap=True)
    for name in ("task id", "reason"):
        table.add_column(name, overflow="fold")
    for item in unmatched[:_MAX_UNMATCHED_ROWS]:
        table.add_row(item.trace_id or "-", item.task_id or "-", item.reason)
    if len(unmatched) > _MAX_UNMATCHED_ROWS:
        table.add_row("...", "", f"{len(unmatched) - _MAX_UNMATCHED_ROWS} more (see --json)")
    return table


def _check_writable(path: str, what: str) -> None:
    """Fail before any work when ``path`` cannot be written (its content is left as it is)."""
    try:
        open(path, "a", encoding="utf-8").close()
    except OSError as exc:
        raise InputError(f"cannot write {what}: {exc.strerror or exc}", path=path) from None


def _warn(message: str) -> None:
    click.echo(f"ek-otel: warning: {message}", err=True)


def _sink(settings: EmitSettings) -> Any:
    if settings.emit_file is not None:
        _check_writable(settings.emit_file, "the emit file")
    try:
        sinks = [sink for sink, _ in make_sinks(settings, warn=_warn).values()]
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if not sinks:
        return None
    return sinks[0] if len(sinks) == 1 else MultiSink(sinks)


@click.command("score")
@click.argument("paths", nargs=-1, required=True)
@click.option("--gold", required=True, metavar="GOLD",
              help="The gold task file (JSON Lines, JSON array or YAML).")
@scoring_options
@click.option("--json", "json_out", metavar="OUT", help="Write the JSON report here ('-': stdout).")
@emit_options
@click.option("--group-by", type=click.Choice(GROUP_BY_CHOICES), default="trace", show_default=True,
              help="One episode per trace, or per gen_ai.conversation.id / session.id.")
def score(paths: tuple, gold: str, task_id: Optional[str], level: str, strategy: str, matcher: str,
          json_out: Optional[str], pricing: Optional[str], emit_file: Optional[str],
          emit_endpoint: Optional[str], emit_protocol: str, emit_headers: tuple,
          emit_timeout: float, emit_signals: tuple, phoenix: bool, phoenix_url: Optional[str],
          phoenix_api_key_env: Optional[str], mlflow_tracking_uri: Optional[str], group_by: str,
          task_id_keys: tuple) -> None:
    """Score trace dumps (files, directories, globs, or - for stdin) against a gold file.

    \b
    Example:
        ek-otel score examples/traces.jsonl --gold examples/tasks.jsonl --json report.json
        ek-otel score dumps/ --gold tasks.jsonl --emit-file scores.jsonl \\
            --emit-endpoint http://127.0.0.1:4317 --emit-protocol grpc
    """
    tasks, settings = load_settings(gold, task_id=task_id, level=level, strategy=strategy,
                                    matcher=matcher, pricing=pricing, task_id_keys=task_id_keys,
                                    group_by=group_by)
    if json_out is not None and json_out != "-":
        _check_writable(json_out, "the JSON report")
    emit = EmitSettings(emit_file=emit_file, endpoint=emit_endpoint, protocol=emit_protocol,
                        headers=tuple(parse_headers(emit_headers).items()), timeout_s=emit_timeout,
                        signals=emit_signals, phoenix=phoenix, phoenix_url=phoenix_url,
                        phoenix_api_key=phoenix_api_key(phoenix_api_key_env),
                        mlflow_tracking_uri=mlflow_tracking_uri)
    sink = _sink(emit)
    bad_input = BadInputReport()
    try:
        with progress("scoring episodes") as advance:
            run = score_dump(list(paths), tasks, settings, report=bad_input, sink=sink,
                             on_episode=lambda _: advance())
    finally:
        if sink is not None:
            sink.close()

    if not run.envelopes and not run.unmatched:
        error = nothing_read_error(bad_input)
        if error is not None:
            raise error
    # With --json - the JSON owns stdout, and the tables go to stderr.
    _print_report(run, bad_input, stderr_console() if json_out == "-" else stdout_console())
    if pricing is not None and run.report.n_unpriced:
        click.echo(f"ek-otel: warning: {run.report.n_unpriced} of {run.report.n_episodes} scored "
                   f"episodes have no dollars: {pricing} has no price for their model (or "
                   "they recorded no model or tokens)", err=True)
    if json_out is not None:
        data = run.to_dict()
        data["bad_input"] = {"total": bad_input.total, "counts": dict(bad_input.counts),
                             "cases": [str(c) for c in bad_input.cases]}
        data["emitted"] = emitted_dict(run, emit)
        write_json(data, json_out)
    if sink is not None:
        _report_emit(run, ", ".join(w for w in (emit_file, emit_endpoint, phoenix_url,
                                                 mlflow_tracking_uri) if w))


def _print_report(run: ScoreRun, bad_input: BadInputReport, out: Any) -> None:
    out.print(tasks_table(run))
    sliced = slices_table(run)
    if sliced is not None:
        out.print(sliced)
    if run.report.groups:
        out.print(groups_table(run))
    if run.unmatched:
        out.print(unmatched_table(run.unmatched))
    if not bad_input.ok:
        stderr_console().print(bad_input.summary(), markup=False, highlight=False)


def emitted_dict(run: ScoreRun, emit: EmitSettings) -> dict:
    """The JSON report's ``emitted``: where scores went, and per signal what was delivered.

    ``spans`` and ``logs`` are the OTLP endpoint's, ``file`` the emit file's,
    ``span_annotations`` and ``trace_annotations`` Phoenix's, ``assessments`` MLflow's; each
    counts scores as
    ``{sent, failed, unsupported}`` (``unsupported``: the backend has no endpoint for it).

    Example:
        >>> from ek_otel.pipeline import score_episodes
        >>> d = emitted_dict(score_episodes([], {}, ScoreSettings()), EmitSettings())
        >>> d["scores"], d["failed"], d["signals"]
        (0, 0, ['spans', 'logs'])
    """
    counts = run.emit_result.to_dict()
    out: dict = {
        "file": emit.emit_file,
        "endpoint": emit.endpoint,
        "protocol": emit.protocol if emit.endpoint else None,
        "phoenix_url": emit.phoenix_url,
        "mlflow_tracking_uri": emit.mlflow_tracking_uri,
        "signals": list(emit.signals),
        "scores": run.emitted,
        "failed": run.emit_failures,
    }
    out.update(counts)
    return out


def _report_emit(run: ScoreRun, where: str) -> None:
    revised = f" ({run.revisions} revisions)" if run.revisions else ""
    parts = []
    for signal, count in run.emit_result.to_dict().items():
        pieces = [f"{count['sent']} sent"]
        pieces += [f"{count[k]} {k}" for k in ("failed", "unsupported") if count[k]]
        parts.append(f"{signal.replace('_', ' ')}: {', '.join(pieces)}")
    detail = f" ({'; '.join(parts)})" if parts else ""
    if run.emit_ok:
        stderr_console().print(f"wrote {run.emitted} scores{revised} back to {where}{detail}",
                               markup=False, highlight=False)
        return
    for error in dict.fromkeys(run.emit_result.errors):
        click.echo(f"ek-otel: error: {error}", err=True)
    click.echo(f"ek-otel: error: {run.emit_failures} of {run.emitted} scores could not be "
               f"written to {where}{detail}", err=True)
    raise SystemExit(1)
