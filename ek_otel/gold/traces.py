"""Gold tasks from the runs people already have: the work of ``ek-otel gold from-traces``.

:func:`gold_from_episodes` takes episodes built with their requests (each run's first user
message and tool definitions in ``meta``), keeps the selected runs, groups them into tasks
and makes one task per group with :func:`ek_otel.gold.generalise.generalise`. Core shapes
in, gold tasks out: reading the trace dumps is :func:`ek_otel.gold_from_traces.from_traces`,
above the pipeline.

- **Selection** (all given ones apply): ``trace_ids``; ``task_ids``; ``judged``: the runs a
  JSON report of ``ek-otel score --json`` judged ``verdict`` ``"pass"``/``"fail"``
  (:func:`runs_of_report`: each episode's ``label``, else its ``success``); ``phoenix_url`` with ``annotation`` and ``label`` (the runs
  a person labelled in Phoenix, :mod:`ek_otel.gold.phoenix_labels`).
- **Grouping**: ``"task"``: runs of one task id make one task (a run without one is grouped
  by its input, as below); ``"input"``: runs with the same normalised first user message make
  one task (its id: the runs' task id when they share one, else ``input-<hash>``).
- Every run left out is listed with the reason (:attr:`FromTraces.left_out`).

:func:`merge_tasks` adds new tasks to an existing gold file without overwriting one silently.

Example:
    >>> from ek_otel.core.episode import Step, Trajectory
    >>> run = Episode("weather-paris", Trajectory([Step("get_weather", {"city": "Paris"})]),
    ...               meta={"input": "Weather in Paris?", "tools": ()})
    >>> (task,) = gold_from_episodes([run, run]).tasks
    >>> task.task_id, task.input, [tool for tool, _ in task.gold]
    ('weather-paris', 'Weather in Paris?', ['get_weather'])
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Optional

from ..core.episode import Episode, TaskSpec
from ..core.ignore import check_ignore_patterns, without_ignored
from ..errors import InputError
from .generalise import Run, generalise, normalised_input
from .native import task_to_dict

__all__ = ["GROUP_BY", "VERDICTS", "FromTraces", "gold_from_episodes", "check_selection",
           "runs_of_report", "merge_tasks", "TaskChange", "run_of_episode", "input_task_id"]

#: How runs are grouped into tasks.
GROUP_BY = ("task", "input")
#: The verdicts a report selects on (:func:`runs_of_report`).
VERDICTS = ("pass", "fail")


@dataclass(frozen=True)
class FromTraces:
    """What :func:`from_traces` made: the tasks, how many runs went in, and every run left
    out with the reason (``(trace_id, reason)``).

    Example:
        >>> FromTraces((), runs=0, seen=2, left_out=(("ab", "not selected"),)).left_out[0][1]
        'not selected'
    """

    tasks: tuple
    runs: int = 0
    seen: int = 0
    left_out: tuple = ()


def input_task_id(text: Optional[str], trace_id: str = "") -> str:
    """The id of a task made from runs without a task id: ``input-`` and a hash of the
    normalised input (stable across files and runs), else ``trace-<trace id>``.

    Example:
        >>> input_task_id("Weather in Paris?") == input_task_id("  weather in   paris? ")
        True
        >>> input_task_id(None, "ab" * 16)
        'trace-abababababababababababababababab'
    """
    key = normalised_input(text)
    if key is None:
        return f"trace-{trace_id}"
    return "input-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def run_of_episode(episode: Episode, ignore_tools: Sequence[str] = ()) -> Run:
    """The :class:`~ek_otel.gold.generalise.Run` of an episode built with ``read_request``.

    Example:
        >>> from ek_otel.core.episode import Step, Trajectory
        >>> e = Episode("t", Trajectory([Step("f", {"x": 1}), Step("final_answer", {"a": "ok"})]),
        ...             meta={"input": "hi", "tools": ()})
        >>> run_of_episode(e, ["final_answer"]).calls
        (('f', {'x': 1}),)
    """
    if ignore_tools:
        episode, _ = without_ignored(episode, tuple(ignore_tools))
    provenance = episode.provenance
    return Run(
        calls=tuple((tool, dict(args)) for tool, args in episode.calls),
        input=episode.meta.get("input"),
        tools=tuple(episode.meta.get("tools") or ()),
        answer=episode.output if isinstance(episode.output, str) else None,
        trace_id=getattr(provenance, "trace_id", "") or "",
        service=getattr(provenance, "service_name", None),
        model=getattr(episode.run, "model", "") or "",
        ended_ns=getattr(provenance, "root_end_ns", 0) or 0,
        args_captured=getattr(provenance, "args_captured", True),
    )


def runs_of_report(path: str, verdict: str = "pass") -> set:
    """The trace ids of the episodes a JSON report (``ek-otel score --json``) judged ``verdict``.

    An episode's ``verdict`` or ``label`` (``pass``/``fail``) is read when present, else its
    ``success``.

    Raises:
        InputError: the file cannot be read, is not a report, or ``verdict`` is unknown.

    Example:
        >>> import json, os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), "r.json")
        >>> _ = open(p, "w").write(json.dumps({"episodes": [
        ...     {"trace_id": "a", "success": True}, {"trace_id": "b", "label": "fail"}]}))
        >>> runs_of_report(p), runs_of_report(p, "fail")
        ({'a'}, {'b'})
    """
    check_selection(verdict=verdict)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not a JSON report: {exc}", path=path) from None
    episodes = data.get("episodes") if isinstance(data, dict) else None
    if not isinstance(episodes, list):
        raise InputError("not a JSON report of ek-otel score (no episodes list)", path=path)
    found = set()
    for row in episodes:
        if not isinstance(row, dict) or not isinstance(row.get("trace_id"), str):
            continue
        said = row.get("verdict", row.get("label"))
        if said not in VERDICTS:
            said = "pass" if row.get("success") else "fail"
        if said == verdict:
            found.add(row["trace_id"])
    return found


def _trace_ids(episode: Episode) -> set:
    ids = set(episode.meta.get("trace_ids") or ())
    trace_id = getattr(episode.provenance, "trace_id", "")
    if trace_id:
        ids.add(trace_id)
    return ids


def check_selection(*, group_by: str = "task", verdict: str = "pass",
                    phoenix_url: Optional[str] = None, annotation: Optional[str] = None,
                    label: Optional[str] = None) -> None:
    """Refuse an incomplete or unknown selection before any run is read.

    Raises:
        InputError: an unknown ``group_by`` or ``verdict``; ``phoenix_url`` without
            ``annotation`` and ``label``, or the other way round.

    Example:
        >>> check_selection(group_by="input")
        >>> check_selection(phoenix_url="http://localhost:6006", annotation="correct")
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: a Phoenix selection needs the annotation name and the label (e.g. annotation='correct', label='yes')
    """
    if group_by not in GROUP_BY:
        raise InputError(f"group_by must be one of {', '.join(GROUP_BY)}, not {group_by!r}")
    if verdict not in VERDICTS:
        raise InputError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    if phoenix_url and not (annotation and label):
        raise InputError("a Phoenix selection needs the annotation name and the label "
                         "(e.g. annotation='correct', label='yes')")
    if (annotation or label) and not phoenix_url:
        raise InputError("an annotation selection needs the Phoenix URL")


def gold_from_episodes(
    episodes: Sequence[Episode],
    *,
    trace_ids: Iterable[str] = (),
    task_ids: Iterable[str] = (),
    judged: Optional[set] = None,
    judged_by: str = "the report",
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
    not_a_run: Optional[Callable[[Episode], Optional[str]]] = None,
) -> FromTraces:
    """Make gold tasks from episodes built with their requests (see the module docstring).

    Args:
        episodes: The runs, built with ``read_request`` (their ``meta`` holds the first
            user message and the tool definitions).
        trace_ids, task_ids: Keep only these runs (when given).
        judged, judged_by, verdict: Keep only the runs whose trace id is in ``judged`` (the
            trace ids a report judged ``verdict``: :func:`runs_of_report`; ``judged_by``
            names the report in the reasons).
        phoenix_url, annotation, label: Keep only the runs labelled so in Phoenix
            (``phoenix_project``, ``phoenix_api_key``).
        group_by: ``"task"`` or ``"input"``.
        with_answer: Propose each task's ``answer`` from the runs' final answers.
        ordered: Force ``ordered`` on every task (None: inferred).
        ignore_tools: Framework-internal tools: their calls are left out of the tasks, and
            the names written to each task's ``ignore_tools``.
        not_a_run: Why an episode is not an agent run (an MCP ping...), or None: such
            episodes are left out with that reason.

    Raises:
        InputError: a selection is incomplete (:func:`check_selection`), Phoenix cannot be
            read, or no run is left to make a task from.

    Example:
        >>> from ek_otel.core.episode import Step, Trajectory
        >>> runs = [Episode("w", Trajectory([Step("get_weather", {"city": city})]),
        ...                 meta={"input": "Weather?", "tools": ()}) for city in ("Paris", "Oslo")]
        >>> (task,) = gold_from_episodes(runs).tasks
        >>> task.task_id, task.gold[0][0], task.gold[0][1]["city"]
        ('w', 'get_weather', AnyOf(values=('Paris', 'Oslo')))
    """
    check_selection(group_by=group_by, verdict=verdict, phoenix_url=phoenix_url,
                    annotation=annotation, label=label)
    ignore = check_ignore_patterns(ignore_tools) if ignore_tools else ()
    wanted_traces = set(trace_ids)
    wanted_tasks = set(task_ids)
    episodes = list(episodes)
    left_out: list = []
    kept: list = []
    for episode in episodes:
        ids = _trace_ids(episode)
        trace_id = getattr(episode.provenance, "trace_id", "") or ""
        if wanted_traces and not ids & wanted_traces:
            continue  # not asked for: not "left out"
        why = not_a_run(episode) if not_a_run is not None else None
        if why:  # an MCP ping, an initialize: no task to make of it
            left_out.append((trace_id, f"not an agent run: {why}"))
            continue
        if wanted_tasks and episode.task_id not in wanted_tasks:
            continue
        if judged is not None and not ids & judged:
            left_out.append((trace_id, f"not judged '{verdict}' in {judged_by}"))
            continue
        kept.append(episode)
    for missing in sorted(wanted_traces - set().union(*(_trace_ids(e) for e in episodes))):
        left_out.append((missing, "trace id not found in the traces"))
    if phoenix_url:
        from .phoenix_labels import labelled_traces

        good = labelled_traces(phoenix_url, [(getattr(e.provenance, "trace_id", ""),
                                              getattr(e.provenance, "root_span_id", ""))
                                             for e in kept],
                               name=annotation, label=label, project=phoenix_project,
                               api_key=phoenix_api_key)
        still = []
        for episode in kept:
            if getattr(episode.provenance, "trace_id", "") in good:
                still.append(episode)
            else:
                left_out.append((episode.provenance.trace_id,
                                 f"no Phoenix annotation '{annotation}' labelled '{label}'"))
        kept = still
    if not kept:
        why = "; ".join(sorted({reason for _, reason in left_out})) or "no run matched the selection"
        raise InputError(f"no run to make a task from ({len(episodes)} read: {why})")
    groups: dict = {}
    for episode in kept:
        run = run_of_episode(episode, ignore)
        if group_by == "task" and episode.task_id:
            key = ("task", episode.task_id)
        else:
            text = normalised_input(run.input)
            key = ("input", text) if text is not None else ("trace", run.trace_id)
        groups.setdefault(key, []).append((episode.task_id, run))
    tasks = []
    used_ids: set = set()
    for (kind, value), members in groups.items():
        runs = [run for _, run in members]
        if kind == "task":
            task_id = value
        else:
            shared = {task_id for task_id, _ in members}
            task_id = shared.pop() if len(shared) == 1 and "" not in shared else input_task_id(
                runs[0].input, runs[0].trace_id)
        base, n = task_id, 2
        while task_id in used_ids:  # two input groups under one task id: keep both, apart
            task_id = f"{base}-{n}"
            n += 1
        used_ids.add(task_id)
        tasks.append(generalise(task_id, runs, with_answer=with_answer, ordered=ordered,
                                ignore_tools=ignore))
    return FromTraces(tuple(tasks), runs=len(kept), seen=len(episodes), left_out=tuple(left_out))


@dataclass(frozen=True)
class TaskChange:
    """A task id both in the existing file and among the new tasks, with different content.

    ``diff`` is a unified diff of the two tasks (indented JSON); ``replaced`` says which was
    kept.
    """

    task_id: str
    diff: str
    replaced: bool


def _pretty(task: TaskSpec) -> list:
    return json.dumps(task_to_dict(task), indent=2, ensure_ascii=False).splitlines(keepends=True)


def merge_tasks(existing: Sequence[TaskSpec], new: Sequence[TaskSpec], *, replace: bool = False,
                name: str = "existing") -> tuple:
    """``(tasks, added, changes)``: ``existing`` with the new tasks added after it; a task id
    present in both keeps the existing task unless ``replace`` (each such difference is a
    :class:`TaskChange`); an identical task is kept once, silently.

    Example:
        >>> old = [TaskSpec("a", gold=[("f", {"x": 1})])]
        >>> new = [TaskSpec("a", gold=[("f", {"x": 2})]), TaskSpec("b")]
        >>> tasks, added, changes = merge_tasks(old, new)
        >>> [t.task_id for t in tasks], added, changes[0].replaced, tasks[0].gold
        (['a', 'b'], ['b'], False, (('f', {'x': 1}),))
        >>> print(changes[0].diff, end="")
        --- existing: a
        +++ from traces: a
        @@ -4,7 +4,7 @@
             {
               "f": {
                 "x": [
        -          1
        +          2
                 ]
               }
             }
    """
    by_id = {task.task_id: i for i, task in enumerate(existing)}
    tasks = list(existing)
    added: list = []
    changes: list = []
    for task in new:
        if task.task_id not in by_id:
            by_id[task.task_id] = len(tasks)
            tasks.append(task)
            added.append(task.task_id)
            continue
        old = tasks[by_id[task.task_id]]
        before, after = _pretty(old), _pretty(task)
        if before == after:
            continue
        diff = "".join(difflib.unified_diff(before, after, f"{name}: {task.task_id}",
                                            f"from traces: {task.task_id}"))
        changes.append(TaskChange(task.task_id, diff, replace))
        if replace:
            tasks[by_id[task.task_id]] = task
    return tasks, added, changes
