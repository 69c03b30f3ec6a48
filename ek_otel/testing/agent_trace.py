"""The ``ek_trace`` fixture's object: the episodes a test recorded, and assertions on them
with ek-otel's matcher.

- :attr:`AgentTrace.episodes`: the episodes of the spans and log records captured during the
  test (or the current trial), built by :meth:`ek_otel.testing.capture.Capture.episodes`,
  the steps ``ek-otel episodes`` takes on a dump of them;
- :meth:`AgentTrace.assert_calls`: the calls of an episode against calls in the gold file's
  ``calls`` form (``[{"refund": {"amount": [10, 10.0]}}]``: each argument's admissible
  values), and any other field a gold task takes (``tools``, ``ignore_tools``, ...);
- :meth:`AgentTrace.score` / :meth:`AgentTrace.assert_task`: an episode against a
  :class:`~ek_otel.core.episode.TaskSpec`, a task object, or a task id of the gold file
  (``--ek-gold FILE`` or ``@pytest.mark.ek_gold(FILE)``).

Scores are made by :func:`ek_otel.scoring.link.score_linked`, the step ``ek-otel score``
takes, with the session's settings (``--ek-level``, ``--ek-strategy``, ``--ek-pricing``). A
failure says why in the words of the HTML page (:func:`ek_otel.report.text.score_text`).

Example:
    >>> from opentelemetry import trace
    >>> from ek_otel.testing.session import Session, SessionOptions
    >>> t = AgentTrace(Session(SessionOptions()), nodeid="test_weather")
    >>> with t.span("weather task"):
    ...     with trace.get_tracer("app").start_as_current_span(
    ...             "execute_tool get_weather", attributes={"gen_ai.operation.name": "execute_tool",
    ...             "gen_ai.tool.name": "get_weather",
    ...             "gen_ai.tool.call.arguments": '{"city": "Paris"}'}):
    ...         pass
    >>> [s.tool for s in t.episode.trajectory]
    ['get_weather']
    >>> bool(t.assert_calls([{"get_weather": {"city": ["Paris", "paris"]}}]))
    True
    >>> t.assert_calls([{"get_weather": {"city": ["Lyon"]}}])
    Traceback (most recent call last):
    ...
    AssertionError: task 'test_weather #2' failed on trace ...
    fail: 0/1 calls matched; get_weather.city: expected 'Lyon', got 'Paris'
    <BLANKLINE>
    differs  get_weather
      argument   got       expected   weight   difference
      city       "Paris"   "Lyon"     1        wrong value
    >>> t.close()
    >>> from ek_otel.testing.capture import uninstall
    >>> uninstall()
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Union

from ..core.episode import Episode, TaskSpec
from ..core.scores import EpisodeScore
from ..errors import InputError, UnknownTaskError
from .capture import Capture, install

__all__ = ["AgentTrace", "TraceResult", "TASK_SPAN_SCOPE"]

#: The instrumentation scope of :meth:`AgentTrace.span`'s spans.
TASK_SPAN_SCOPE = "ek_otel.testing"


@dataclass(frozen=True, repr=False)
class TraceResult:
    """One episode scored against one task. True when the task succeeded; its ``repr`` is
    the verdict and the explanation on one line (so ``assert result`` fails readably; pytest
    shows a repr on one line), :attr:`text` adds the call table.

    Example:
        >>> from ek_otel.core.scores import EpisodeScore
        >>> r = TraceResult(EpisodeScore("t", success=True, explanation="1/1 calls matched exactly"),
        ...                 TaskSpec("t"), Episode("t"))
        >>> bool(r), r.verdict, r
        (True, 'pass', <ek-otel pass on task 't': 1/1 calls matched exactly>)
    """

    score: EpisodeScore
    task: TaskSpec
    episode: Episode

    def __bool__(self) -> bool:
        return bool(self.score.success)

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"fail"``."""
        return "pass" if self.score.success else "fail"

    @property
    def text(self) -> str:
        """The explanation and the calls as the page shows them."""
        from ..report.text import score_text

        return score_text(self.score)

    def __repr__(self) -> str:
        return f"<ek-otel {self.verdict} on task {self.task.task_id!r}: {self.score.explanation}>"


def _episode_key(episode: Episode) -> tuple:
    from .session import _key

    return _key(episode)


def _describe(episode: Episode) -> str:
    provenance = episode.provenance
    trace_id = getattr(provenance, "trace_id", "") or "?"
    tools = ", ".join(s.tool for s in episode.trajectory) or "no call"
    task = f"task {episode.task_id!r}, " if episode.task_id else ""
    return f"trace {trace_id[:12]}\u2026 ({task}{tools})"


class AgentTrace:
    """What one test recorded (see the module doc). Made by the ``ek_trace`` fixture.

    Args:
        session: The :class:`~ek_otel.testing.session.Session`.
        nodeid: The test's id (names its spans' source and the tasks ``assert_calls`` makes).
        gold: A gold file of the test (``@pytest.mark.ek_gold``), before ``--ek-gold``.
        task_id: The test's task (``@pytest.mark.ek_task``): what :meth:`score` scores
            when given no task.
    """

    def __init__(self, session: Any, *, nodeid: str, gold: Optional[str] = None,
                 task_id: Optional[str] = None) -> None:
        install()
        self.session = session
        self.nodeid = nodeid
        self.gold_path = gold if gold is not None else session.options.gold
        self.task_id = task_id
        self.trial = 0
        self.trials_mode = False  # ek_trials records the trials itself
        self._capture: Optional[Capture] = None
        self._begin()

    # -- the capture ------------------------------------------------------------------------

    def _begin(self) -> None:
        suffix = f" trial {self.trial + 1}" if self.trial else ""
        self._capture = Capture(source=f"pytest {self.nodeid}{suffix}").__enter__()
        self._cached: Optional[tuple] = None
        self._checks = 0
        self._trial_tasks: dict = {}  # task id -> success in this trial
        self._task_of: dict = {}  # episode key -> task id

    def _end(self, body_passed: bool = True) -> None:
        capture, self._capture = self._capture, None
        if capture is None:
            return
        capture.__exit__(None, None, None)
        episodes = self._episodes_of(capture)
        self.session.add_captured(episodes, self._task_of)
        if not self.trials_mode:
            for task_id, success in self._trial_tasks.items():
                self.session.record_trial(task_id, success and body_passed)

    @property
    def trial_tasks(self) -> dict:
        """task id -> whether every score of it succeeded, in the current trial."""
        return dict(self._trial_tasks)

    def next_trial(self) -> None:
        """End the current trial and start capturing the next (``ek_trials`` calls it)."""
        self._end()
        self.trial += 1
        self._begin()

    def close(self, body_passed: bool = True) -> None:
        """End the capture and hand its episodes and trials to the session (the fixture's
        teardown; a task's trial succeeds when its scores did and the test body passed)."""
        self._end(body_passed)

    def _episodes_of(self, capture: Capture) -> list:
        spans, logs = capture.spans(), capture.logs()
        if self._cached is not None and self._cached[0] == (len(spans), len(logs)):
            return self._cached[1]
        episodes = capture.episodes(task_id_keys=self.session.base_settings.task_id_keys,
                                    report=self.session.bad_input)
        self._cached = ((len(spans), len(logs)), episodes)
        return episodes

    @property
    def capture(self) -> Capture:
        """The current :class:`~ek_otel.testing.capture.Capture`."""
        if self._capture is None:
            raise RuntimeError("this test's capture has ended")
        return self._capture

    @property
    def spans(self) -> tuple:
        """The SDK spans ended so far in this test (or trial)."""
        return self.capture.spans()

    @property
    def logs(self) -> tuple:
        """The SDK log records emitted so far in this test (or trial)."""
        return self.capture.logs()

    @property
    def episodes(self) -> list:
        """The episodes recorded so far in this test (or trial): one per trace."""
        return self._episodes_of(self.capture)

    @property
    def episode(self) -> Episode:
        """The one episode recorded; an AssertionError says so when there is none or several."""
        return self._pick(None, None)

    def write_dump(self, directory: str) -> list:
        """Write what was captured as ``traces.pb`` and ``logs.pb`` under ``directory`` (for
        ``ek-otel episodes``, ``doctor`` or ``score``); returns the paths."""
        return self.capture.write_dump(directory)

    @contextlib.contextmanager
    def span(self, name: str = "agent task", *, task_id: Optional[str] = None,
             attributes: Optional[Mapping[str, Any]] = None) -> Iterator[Any]:
        """A span around an agent's run, so that its model and tool calls make one trace (one
        episode), with ``ek.task.id`` when ``task_id`` is given. Made by the global tracer
        provider."""
        from opentelemetry import trace

        attrs = dict(attributes or {})
        if task_id is not None:
            attrs["ek.task.id"] = task_id
        tracer = trace.get_tracer(TASK_SPAN_SCOPE)
        with tracer.start_as_current_span(name, attributes=attrs) as span:
            yield span

    # -- scoring ----------------------------------------------------------------------------

    def _pick(self, episode: Union[Episode, int, None], task_id: Optional[str]) -> Episode:
        __tracebackhide__ = True
        if isinstance(episode, Episode):
            return episode
        episodes = self.episodes
        if isinstance(episode, int):
            return episodes[episode]
        if len(episodes) == 1:
            return episodes[0]
        if not episodes:
            capture = self.capture
            raise AssertionError(
                f"no episode was recorded during this test ({len(capture.spans())} span(s) and "
                f"{len(capture.logs())} log record(s) were captured): is the agent instrumented, "
                "and are its spans ended before the check? The plugin captures the spans of "
                "OpenTelemetry SDK tracer providers: the global one and any TracerProvider made "
                "in the process.")
        if task_id:
            mine = [e for e in episodes if e.task_id == task_id]
            if len(mine) == 1:
                return mine[0]
        listed = "; ".join(_describe(e) for e in episodes[:5])
        more = f" (+{len(episodes) - 5} more)" if len(episodes) > 5 else ""
        raise AssertionError(
            f"{len(episodes)} episodes were recorded during this test (one per trace): {listed}"
            f"{more}. Run the agent inside one span (`with ek_trace.span(): ...`) so that its "
            "calls make one trace, give each run its task id (ek.task.id), or pass episode=.")

    def _score(self, episode: Episode, task: TaskSpec, gold_path: str, level: Optional[str],
               strategy: Optional[str]) -> TraceResult:
        from ..scoring.link import check_tasks, score_linked

        settings = self.session.settings(level=level, strategy=strategy)
        check_tasks({task.task_id: task}, settings, path=gold_path or self.nodeid)
        self.session.use_task(task, gold_path, where=self.nodeid)
        score = score_linked(episode, task, settings)
        self._trial_tasks[task.task_id] = self._trial_tasks.get(task.task_id, True) and score.success
        key = _episode_key(episode)
        self._task_of[key] = task.task_id
        self.session.record_dollars(key, score.dollars)
        return TraceResult(score, task, episode)

    def _failed(self, result: TraceResult) -> AssertionError:
        trace_id = getattr(result.episode.provenance, "trace_id", "") or "?"
        return AssertionError(f"task {result.task.task_id!r} failed on trace {trace_id}:\n"
                              f"{result.text}")

    def assert_calls(self, expected: Any, *, ordered: bool = False, level: Optional[str] = None,
                     strategy: Optional[str] = None, task_id: Optional[str] = None,
                     episode: Union[Episode, int, None] = None, **task_fields: Any) -> TraceResult:
        """Check an episode's calls against ``expected``, the gold file's ``calls`` form;
        raises an AssertionError with the explanation and the call table when they do not
        match (``score.success``).

        Args:
            expected: ``[{"tool": {"arg": [admissible, ...]}}, ...]`` (``""`` among the
                values: the argument may be left out; ``[]``: no call expected).
            ordered: Whether call order matters.
            level: ``"call"`` or ``"arg"`` (default ``--ek-level``): what the F1 counts.
            strategy: How calls are paired (default ``--ek-strategy``).
            task_id: The task's id (default: the test's id, ``#2``... for later checks).
            episode: The episode (or its index); default: the only one recorded.
            task_fields: Any other field of a gold task (``tools``, ``ignore_tools``...).

        Raises:
            GoldFileError: ``expected`` or a field is not what a gold file takes.
        """
        __tracebackhide__ = True
        from ..gold.native import task_from_dict

        self._checks += 1
        if task_id is None:
            task_id = self.nodeid if self._checks == 1 else f"{self.nodeid} #{self._checks}"
        obj = {"task_id": task_id, "calls": expected, **task_fields}
        if ordered:
            obj["ordered"] = True
        task = task_from_dict(obj, path=f"{self.nodeid}: assert_calls")
        result = self._score(self._pick(episode, task_id), task, "", level, strategy)
        if not result:
            raise self._failed(result)
        return result

    def _task(self, task: Union[TaskSpec, Mapping, str, None], episode: Optional[Episode]) -> tuple:
        """``(TaskSpec, gold path)`` of what :meth:`score` was given."""
        from ..gold.native import task_from_dict

        if isinstance(task, TaskSpec):
            return task, ""
        if isinstance(task, Mapping):
            return task_from_dict(task, path=f"{self.nodeid}: score"), ""
        if task is not None and not isinstance(task, str):
            raise TypeError(f"score() takes a TaskSpec, a task object or a task id, got "
                            f"{type(task).__name__}")
        if task is None:
            task = self.task_id
        if self.gold_path is None:
            if task is None:
                raise InputError(f"{self.nodeid}: score() needs a task: a TaskSpec, a task object, "
                                 "or a task id of a gold file (--ek-gold FILE or "
                                 "@pytest.mark.ek_gold(FILE))")
            raise InputError(f"{self.nodeid}: task {task!r} needs a gold file: --ek-gold FILE or "
                             "@pytest.mark.ek_gold(FILE)")
        tasks, default = self.session.gold(self.gold_path)
        if task is None and episode is not None and episode.task_id in tasks:
            task = episode.task_id
        if task is None:
            task = default
        if task is None:
            raise InputError(f"{self.nodeid}: score() needs a task id: {self.gold_path} holds "
                             f"{len(tasks)} tasks (give one, or @pytest.mark.ek_task(ID))")
        if task not in tasks:
            raise UnknownTaskError(self.gold_path, task)
        return tasks[task], self.gold_path

    def score(self, task: Union[TaskSpec, Mapping, str, None] = None, *,
              episode: Union[Episode, int, None] = None, level: Optional[str] = None,
              strategy: Optional[str] = None) -> TraceResult:
        """Score an episode against a task, as ``ek-otel score`` does; a :class:`TraceResult`
        (true when the task succeeded; ``.score`` is the
        :class:`~ek_otel.core.scores.EpisodeScore`).

        Args:
            task: A :class:`~ek_otel.core.episode.TaskSpec`, a task object of the gold
                format, or a task id of the gold file; None: the ``ek_task`` marker's, else
                the episode's own task id, else the only task of the gold file.
            episode, level, strategy: As for :meth:`assert_calls`.

        Raises:
            GoldFileError: no gold file, or a task id that is not in it.
        """
        __tracebackhide__ = True
        wanted = task if isinstance(task, str) else (self.task_id if task is None else None)
        picked = self._pick(episode, wanted)
        spec, gold_path = self._task(task, picked)
        return self._score(picked, spec, gold_path, level, strategy)

    def assert_task(self, task: Union[TaskSpec, Mapping, str, None] = None, *,
                    episode: Union[Episode, int, None] = None, level: Optional[str] = None,
                    strategy: Optional[str] = None) -> TraceResult:
        """:meth:`score`, raising an AssertionError with the explanation and the call table
        when the task failed."""
        __tracebackhide__ = True
        result = self.score(task, episode=episode, level=level, strategy=strategy)
        if not result:
            raise self._failed(result)
        return result


def gold_of_marker(path: str, test_path: str) -> str:
    """A ``@pytest.mark.ek_gold(FILE)`` path, relative to the test file's directory.

    Example:
        >>> gold_of_marker("gold.jsonl", "/repo/tests/test_a.py")
        '/repo/tests/gold.jsonl'
        >>> gold_of_marker("/abs/gold.jsonl", "/repo/tests/test_a.py")
        '/abs/gold.jsonl'
    """
    return path if os.path.isabs(path) else os.path.join(os.path.dirname(test_path), path)
