"""``ek-otel score PATH... --gold GOLD``: score trace dumps against gold tasks.

Reads the dumps, rebuilds the episodes, links each to its task, scores its tool calls, prints
a table per task, per slice and in total (and the unmatched episodes), and optionally writes
the scores back: ``gen_ai.evaluation.result`` events and evaluation spans, to an OTLP JSON
Lines file (``--emit-file``), an OTLP endpoint (``--emit-endpoint``), or both.

With ``--phoenix-url`` each score is also written as a Phoenix span annotation (on the run's
root span) and trace annotation (see :mod:`ek_otel.emit.phoenix`); with
``--mlflow-tracking-uri``, as an MLflow feedback assessment (:mod:`ek_otel.emit.mlflow`).

Exit codes: 0 when scoring ran (whatever the scores) and everything the backends can take was
delivered (a backend without a logs endpoint gets one warning, not a failure); 2 with one
line for unreadable input, a gold or pricing file that cannot be used, or bad emit settings;
1 when scores could not be written back (the table and the JSON report are still produced).

Example:
    ek-otel score examples/traces.jsonl --gold examples/tasks.jsonl
    ek-otel score dumps/ --gold tasks.jsonl --level arg --json report.json \\
        --emit-file scores.jsonl --emit-endpoint http://127.0.0.1:4318 --emit-protocol http
    ek-otel score smolagents.jsonl --gold tasks.jsonl --ignore-tool final_answer
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional

import click

from ..errors import InputError
from ..ingest.bad_input import BadInputReport
from ..ingest.episodes import GROUP_BY_CHOICES
from ._common import (
    emit_options,
    nothing_read_error,
    parse_headers,
    phoenix_api_key,
    progress,
    check_mode_overrides,
    scoring_options,
    stderr_console,
    stdout_console,
    write_json,
    wrote,
)
from ._gates import check_gate_options, gate_options, write_run_gates
from ._html import check_html_options, html_options

__all__ = ["score", "emitted_dict"]


def _check_writable(path: str, what: str) -> None:
    """Fail before any work when ``path`` cannot be written (its content is left as it is)."""
    try:
        open(path, "a", encoding="utf-8").close()
    except OSError as exc:
        raise InputError(f"cannot write {what}: {exc.strerror or exc}", path=path) from None


@click.command("score")
@click.argument("paths", nargs=-1, required=True)
@click.option("--gold", required=True, metavar="GOLD",
              help="The gold task file (JSON Lines, JSON array or YAML).")
@scoring_options
@click.option("--json", "json_out", metavar="OUT", help="Write the JSON report here ('-': stdout).")
@html_options
@gate_options
@click.option("--wide", is_flag=True,
              help="Every column of the tables, values whole (default: fit 80 columns, long "
                   "values cut with an ellipsis).")
@click.option("--transcripts", is_flag=True,
              help="Carry each run's transcript (user input, model turns, tool executions with "
                   "arguments and output, errors, final answer) in the JSON report and the page. "
                   "Off by default: it makes the report several times larger.")
@emit_options
@click.option("--group-by", type=click.Choice(GROUP_BY_CHOICES), default="trace", show_default=True,
              help="One episode per trace, or per gen_ai.conversation.id / session.id.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes that read, build and score (each the owner of 1/N of the traces; "
                   "the output is that of one). Default: one per available core, and one for "
                   "dumps under 4 MB in all, stdin, or --group-by conversation/session.")
def score(paths: tuple, gold: str, task_id: Optional[str], level: str, strategy: str, matcher: str,
          json_out: Optional[str], pricing: Optional[str], emit_file: Optional[str],
          emit_endpoint: Optional[str], emit_protocol: str, emit_headers: tuple,
          emit_timeout: float, emit_signals: tuple, phoenix: bool, phoenix_url: Optional[str],
          phoenix_api_key_env: Optional[str], mlflow_tracking_uri: Optional[str], group_by: str,
          task_id_keys: tuple, ignore_tools: tuple = (), link_by: str = "task",
          html_out: Optional[str] = None, trace_url: Optional[str] = None,
          jobs: Optional[int] = None, junit_out: Optional[str] = None,
          markdown_out: Optional[str] = None, transcripts: bool = False,
          wide: bool = False, match: Optional[str] = None,
          ordered: Optional[bool] = None) -> None:
    """Score trace dumps (files, directories, globs, or - for stdin) against a gold file.

    \b
    Example:
        ek-otel score examples/traces.jsonl --gold examples/tasks.jsonl --json report.json
        ek-otel score dumps/ --gold tasks.jsonl --emit-file scores.jsonl \\
            --emit-endpoint http://127.0.0.1:4317 --emit-protocol grpc
        ek-otel score dumps/ --gold tasks.jsonl --emit-endpoint http://127.0.0.1:6006 \\
            --emit-signals spans --phoenix-url http://127.0.0.1:6006
        ek-otel score big-dump.jsonl --gold tasks.jsonl --jobs 1   # one process
        ek-otel score replayed/ --gold gold.jsonl --link-by input   # runs without a task id
    """
    from ..emit.sinks import make_sink
    from ..pipeline import open_scoring
    from ..scoring.report import answer_figures
    from ..scoring.link import load_settings

    check_mode_overrides(matcher, match, ordered)
    tasks, settings = load_settings(gold, task_id=task_id, level=level, strategy=strategy,
                                    matcher=matcher, pricing=pricing, task_id_keys=task_id_keys,
                                    group_by=group_by, ignore_tools=ignore_tools, link_by=link_by,
                                    match=match, ordered=ordered)
    if transcripts or json_out is not None:
        from dataclasses import replace

        # --json: each process encodes the rows of the episodes it scores (ScoreSettings.json_rows)
        settings = replace(settings, transcripts=settings.transcripts or transcripts,
                           json_rows=json_out is not None)
    if json_out is not None and json_out != "-":
        _check_writable(json_out, "the JSON report")
    if emit_file is not None:
        _check_writable(emit_file, "the emit file")
    check_html_options(html_out, trace_url)
    check_gate_options(junit_out, markdown_out)
    emit = dict(file=emit_file, endpoint=emit_endpoint, protocol=emit_protocol,
                headers=parse_headers(emit_headers), timeout=emit_timeout, phoenix=phoenix,
                signals=emit_signals, phoenix_url=phoenix_url,
                phoenix_api_key=phoenix_api_key(phoenix_api_key_env),
                mlflow_tracking_uri=mlflow_tracking_uri)
    bad_input = BadInputReport()
    # The processes of a parallel run start here, before any thread (sinks, progress bar).
    with open_scoring(list(paths), tasks, settings, report=bad_input, jobs=jobs) as scoring:
        sink = make_sink(**emit, warn=_warn)
        try:
            with progress("scoring episodes") as advance:
                run = scoring.run(sink=sink, on_episode=lambda _: advance())
        finally:
            if sink is not None:
                sink.close()

    if not run.envelopes and not run.unmatched:
        error = nothing_read_error(bad_input, paths)
        if error is not None:
            raise error
    _check_linked(run, gold)
    # With --json - the JSON owns stdout, and the tables go to stderr.
    _print_report(run, bad_input, stderr_console() if json_out == "-" else stdout_console(), wide)
    answers = answer_figures(run.envelopes) if any(t.answer is not None for t in tasks.values()) else None
    if answers is not None:  # its own metric: never in the tool-call figures above
        click.echo(f"answers (ek.answer): {answers['passed']}/{answers['episodes']} passed "
                   f"({answers['rate']:.3f})", err=json_out == "-")
    from ._tables import cost_warnings

    for line in cost_warnings(run.report, pricing):
        _warn(line)
    if json_out is not None or html_out is not None or junit_out or markdown_out:
        data = run.to_dict(lazy_episodes=True)  # the episodes are made as they are written
        data["bad_input"] = {"total": bad_input.total, "counts": dict(bad_input.counts),
                             "cases": [str(c) for c in bad_input.cases]}
        data["emitted"] = emitted_dict(run, emit)
        if answers is not None:
            data["aggregate"]["answer"] = answers
    if json_out is not None:
        write_json(data, json_out)
        if json_out != "-":
            wrote("the JSON report", json_out)
    if html_out is not None:
        from ..report.html import write_run_page

        page_data = {**data, "episodes": list(data["episodes"]),  # the page embeds them all
                     "unmatched": list(data["unmatched"])}
        write_run_page(page_data, html_out, source=", ".join(paths), gold_path=gold,
                       trace_url=trace_url)
        wrote("the HTML page", html_out)
    if junit_out is not None or markdown_out is not None:
        write_run_gates(data, ", ".join(paths), junit_out, markdown_out)
    if sink is not None:
        _report_emit(run, ", ".join(w for w in (emit_file, emit_endpoint, phoenix_url,
                                                 mlflow_tracking_uri) if w))


def unlinked_line(unmatched: Any, scored: int, gold: str) -> Optional[str]:
    """Why runs were not scored, in one line naming the fixes (None when every run was).

    Example:
        >>> from ek_otel.scoring.link import NO_TASK_ID, UNKNOWN_TASK, Unmatched
        >>> print(unlinked_line([Unmatched("ab", "", NO_TASK_ID)] * 2, 0, "tasks.jsonl"))
        none of the 2 runs could be linked to a task in tasks.jsonl: 2 carry no task id; set ek.task.id on each run's root span (OTel SDK: span.set_attribute("ek.task.id", task_id)), or score with --task ID (one task for every run) or --task-id-key KEY (the attribute that holds the id)
        >>> print(unlinked_line([Unmatched("ab", "x", UNKNOWN_TASK)], 3, "tasks.jsonl"))
        1 of 4 runs could not be linked to a task in tasks.jsonl: 1 has a task id the gold file lacks (first: 'x'); they are listed as unmatched, not scored
        >>> unlinked_line([], 3, "tasks.jsonl") is None
        True
    """
    from ..ingest.instrumentations import TASK_ID_FIX
    from ..scoring.link import NO_TASK_ID, UNKNOWN_TASK

    unmatched = list(unmatched)
    if not unmatched:
        return None
    reasons = Counter(u.reason for u in unmatched)
    parts = []
    no_id = reasons.pop(NO_TASK_ID, 0)
    if no_id:
        parts.append(f"{no_id} carr{'ies' if no_id == 1 else 'y'} no task id")
    unknown = reasons.pop(UNKNOWN_TASK, 0)
    if unknown:
        first = next(u.task_id for u in unmatched if u.reason == UNKNOWN_TASK)
        parts.append(f"{unknown} ha{'s' if unknown == 1 else 've'} a task id the gold file "
                     f"lacks (first: {first!r})")
    parts += [f"{n}: {reason}" for reason, n in reasons.items()]
    total = scored + len(unmatched)
    head = (f"none of the {total} runs could be linked" if not scored
            else f"{len(unmatched)} of {total} runs could not be linked")
    line = f"{head} to a task in {gold}: {', '.join(parts)}"
    if no_id:
        return f"{line}; {TASK_ID_FIX}"
    return f"{line}; they are listed as unmatched, not scored" if scored else line


def _check_linked(run: Any, gold: str) -> None:
    """Exit 2 with one line when no run could be scored; a warning when only some could not."""
    scored = run.report.n_episodes
    line = unlinked_line(run.unmatched, scored, gold)
    if line is None:
        return
    if not scored:
        raise InputError(line)
    _warn(line)


def _warn(message: str) -> None:
    click.echo(f"ek-otel: warning: {message}", err=True)


def emitted_dict(run: Any, emit: dict) -> dict:
    """The JSON report's ``emitted``: where scores went, and per signal what was delivered.

    ``spans`` and ``logs`` are the OTLP endpoint's, ``file`` the emit file's,
    ``span_annotations`` and ``trace_annotations`` Phoenix's, ``assessments`` MLflow's; each
    counts scores as ``{sent, failed, unsupported}`` (``unsupported``: the backend has no
    endpoint for it).

    Example:
        >>> from ek_otel.scoring.run import score_episodes
        >>> from ek_otel.scoring.settings import ScoreSettings
        >>> d = emitted_dict(score_episodes([], {}, ScoreSettings()), {"signals": ("spans",)})
        >>> d["scores"], d["failed"], d["signals"]
        (0, 0, ['spans'])
    """
    endpoint = emit.get("endpoint")
    out: dict = {
        "file": emit.get("file"),
        "endpoint": endpoint,
        "protocol": emit.get("protocol") if endpoint else None,
        "phoenix_url": emit.get("phoenix_url"),
        "mlflow_tracking_uri": emit.get("mlflow_tracking_uri"),
        "signals": list(emit.get("signals", ())),
        "scores": run.emitted,
        "failed": run.emit_failures,
    }
    out.update(run.emit_result.to_dict())
    return out


def _print_report(run: Any, bad_input: BadInputReport, out: Any, wide: bool = False) -> None:
    from ._tables import print_run_tables

    print_run_tables(run, out, wide=wide, groups="table")
    ignored = run.ignored_calls
    if ignored:
        stderr_console().print(f"{ignored} call(s) to framework-internal tools were ignored "
                               "(--ignore-tool / ignore_tools): neither TP nor FP",
                               markup=False, highlight=False)
    if not bad_input.ok:
        stderr_console().print(bad_input.summary(), markup=False, highlight=False)


def _report_emit(run: Any, where: str) -> None:
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
