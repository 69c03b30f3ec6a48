"""``ek-otel gold from-traces`` as a library call: trace dumps in, gold tasks out.

:func:`from_traces` reads the dumps the way ``ek-otel score`` does
(:func:`ek_otel.pipeline.read_episodes`, with each run's first user message and tool
definitions: ``read_request``), the report a selection names (:func:`ek_otel.gold.traces.runs_of_report`),
and hands the episodes to :func:`ek_otel.gold.traces.gold_from_episodes`, which selects,
groups and generalises them. It sits above the pipeline, so that ``gold`` imports ``core``
alone.

Example:
    >>> r = from_traces(["tests/ingest/corpus/traceloop-0.62.4/traces.pb"])
    >>> (task,) = r.tasks
    >>> task.task_id, task.input, [tool for tool, _ in task.gold]
    ('weather-paris', 'Weather and time in Paris, in Fahrenheit?', ['get_weather', 'get_time', 'convert_temperature'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Optional

from .core.episode import Episode
from .gold.traces import FromTraces, check_selection, gold_from_episodes, runs_of_report
from .ingest.bad_input import BadInputReport
from .ingest.episodes import DEFAULT_TASK_ID_KEYS, NOT_A_RUN
from .pipeline import read_episodes

__all__ = ["from_traces"]


def from_traces(
    paths: Sequence[str],
    *,
    trace_ids: Iterable[str] = (),
    task_ids: Iterable[str] = (),
    from_report: Optional[str] = None,
    verdict: str = "pass",
    phoenix_url: Optional[str] = None,
    annotation: Optional[str] = None,
    label: Optional[str] = None,
    phoenix_project: str = "default",
    phoenix_api_key: Optional[str] = None,
    group_by: str = "task",
    with_answer: bool = False,
    ordered: Optional[bool] = None,
    ignore_tools: Sequence[str] = (),
    task_id_keys: Optional[Sequence[str]] = None,
    report: Any = None,
    on_episode: Optional[Callable[[Episode], None]] = None,
) -> FromTraces:
    """Make gold tasks from the runs in trace dumps.

    Args:
        paths: Dump files, directories or globs, as ``ek-otel score`` reads them.
        from_report, verdict: Keep only the runs that JSON report judged ``verdict``.
        task_id_keys: Attribute keys tried for the task id (None: the default list).
        report: A :class:`~ek_otel.ingest.bad_input.BadInputReport` for bad input.
        on_episode: Called with each episode read (progress).
        The others: the selection, grouping and generalisation of
            :func:`~ek_otel.gold.traces.gold_from_episodes`.

    Raises:
        InputError: a path, the report or Phoenix cannot be read; a selection is incomplete
            (``annotation`` without ``label``); or no run is left to make a task from.
    """
    check_selection(group_by=group_by, verdict=verdict, phoenix_url=phoenix_url,
                    annotation=annotation, label=label)
    judged = runs_of_report(from_report, verdict) if from_report else None
    episodes = []
    for episode in read_episodes(list(paths), report=report if report is not None else BadInputReport(),
                                 task_id_keys=tuple(task_id_keys or DEFAULT_TASK_ID_KEYS),
                                 read_request=True):
        episodes.append(episode)
        if on_episode is not None:
            on_episode(episode)
    return gold_from_episodes(
        episodes, trace_ids=trace_ids, task_ids=task_ids, judged=judged, judged_by=from_report or "",
        verdict=verdict, phoenix_url=phoenix_url, annotation=annotation, label=label,
        phoenix_project=phoenix_project, phoenix_api_key=phoenix_api_key, group_by=group_by,
        with_answer=with_answer, ordered=ordered, ignore_tools=ignore_tools,
        not_a_run=lambda episode: episode.meta.get(NOT_A_RUN))
