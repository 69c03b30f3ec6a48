"""``ek-otel score`` without the terminal: dump files → records → traces → episodes → scores.

- :func:`read_episodes` is what ``ek-otel score`` and ``ek-otel episodes`` both read: the
  dumps (streaming, :func:`~ek_otel.ingest.dumps.read_dump`) without ek-otel's own output
  (:func:`~ek_otel.ingest.own_output.is_own_output`, so a dump that already holds scores is
  scored the same and never produces revisions of itself), grouped by trace
  (:func:`~ek_otel.ingest.assemble.group_traces`), late records merged with their trace
  (:class:`~ek_otel.ingest.assemble.LateRecords`), built into episodes
  (:func:`~ek_otel.ingest.episodes.build_episodes`).
- :func:`diagnose_dumps` says why they are what they are (``ek-otel doctor``:
  :mod:`ek_otel.ingest.diagnose`).
- :func:`score_dump` scores them with :func:`ek_otel.scoring.score_episodes` (linking,
  revisions, the corpus report: :mod:`ek_otel.scoring`, which ``ek-otel serve`` shares).

**Late spans**: with a dump, a trace is closed some records after its root span; records
that arrive for it later are merged with the kept records of the most recently closed
traces (:data:`~ek_otel.ingest.assemble.KEEP_CLOSED_TRACES`), the episode is rebuilt and
scored again as a **revision** (``ek.revision`` 1, 2, ...); the report keeps only the latest
revision of each episode. Late records for a trace no longer kept are listed as unmatched
(reason :data:`~ek_otel.scoring.link.LATE_EVICTED`), never scored from half a trace.

**Conversations**: with ``group_by="conversation"`` (or ``"session"``) an episode spans
several traces; its score is written to the root span of its earliest trace.

Example:
    >>> from ek_otel.ingest.bad_input import BadInputReport
    >>> from ek_otel.scoring import ScoreSettings
    >>> score_dump(["/no/such.jsonl"], {}, ScoreSettings(), report=BadInputReport())
    Traceback (most recent call last):
    ...
    ek_otel.errors.InputError: /no/such.jsonl: no such file or directory
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional, Union

from .core.episode import Episode, TaskSpec
from .emit.envelope import ScoreEnvelope
from .dump_flow import groups_of_records, not_ours, real_episodes, trace_groups  # noqa: F401 (pipeline API)
from .ingest.assemble import KEEP_CLOSED_TRACES
from .ingest.episodes import GROUP_BY_CHOICES
from .ingest.semconv import DEFAULT_TASK_ID_KEYS
from .scoring.link import LATE_EVICTED, Unmatched
from .scoring.run import DEFAULT_BATCH, ScoreRun, score_episodes
from .scoring.settings import ScoreSettings

__all__ = ["read_episodes", "episodes_of_records", "groups_of_records", "trace_groups", "score_dump",
           "open_scoring", "diagnose_dumps"]


def read_episodes(
    paths: Sequence[str],
    *,
    report: Any,
    group_by: str = "trace",
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    evicted: Optional[list] = None,
    on_own_output: Optional[Callable[[Any], None]] = None,
    jobs: Optional[int] = 1,
    read_request: bool = False,
    transcripts: bool = False,
) -> Iterator[Episode]:
    """The episodes of dump files, as ``ek-otel score`` and ``ek-otel episodes`` both see them.

    A late trace comes again, rebuilt from all its records, with ``meta["late"]``; the
    pseudo-episodes of log records that belong to no trace are dropped. With ``jobs`` above
    1, that many processes read and build them (:class:`ek_otel.parallel.ParallelRun`), and
    they come in the same order; ``report`` and ``evicted`` are complete once they are all
    read.

    Args:
        paths: Dump files, directories, globs or ``-`` (see :func:`~ek_otel.ingest.dumps.read_dump`).
        report: A :class:`~ek_otel.ingest.bad_input.BadInputReport` collecting bad input.
        group_by: One of :data:`~ek_otel.ingest.episodes.GROUP_BY_CHOICES`.
        task_id_keys: Attribute keys tried for the task id, in order.
        keep_closed: How many closed traces keep their records for late spans.
        close_after: Passed to :func:`~ek_otel.ingest.assemble.group_traces` (None: its
            default).
        evicted: A list that receives an :class:`~ek_otel.scoring.link.Unmatched` (reason
            ``LATE_EVICTED``) for late records of a trace no longer kept.
        on_own_output: Called with each record of ek-otel's own output (scores written
            back), which is skipped.
        jobs: How many processes (None: :func:`ek_otel.parallel.plan_jobs` decides; 1: this
            one alone).
        read_request: Also read each run's first user message and tool definitions into
            ``meta["input"]``/``meta["tools"]`` (see :func:`~ek_otel.ingest.episodes.build_episode`;
            one process).

    Raises:
        InputError: a path does not exist (checked before anything is read).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> list(read_episodes(["/no/such.jsonl"], report=BadInputReport()))
        Traceback (most recent call last):
        ...
        ek_otel.errors.InputError: /no/such.jsonl: no such file or directory
    """
    from .ingest.dumps import expand_paths

    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY_CHOICES)}; got {group_by!r}")
    expand_paths(paths)  # fail on a missing path before anything is read or emitted
    from .parallel import plan_jobs

    jobs = 1 if read_request else plan_jobs(paths, jobs, group_by)
    if jobs > 1:
        return _parallel_episodes(paths, report, jobs, tuple(task_id_keys), keep_closed,
                                  close_after, evicted, on_own_output, transcripts)
    return _episodes_of_dumps(paths, report, group_by, tuple(task_id_keys), keep_closed,
                              close_after, evicted, on_own_output, read_request, transcripts)


def _parallel_episodes(paths, report, jobs, task_id_keys, keep_closed, close_after, evicted,
                       on_own_output, transcripts=False) -> Iterator[Episode]:
    from .parallel import ParallelRun

    with ParallelRun(paths, iter, jobs=jobs, report=report, task_id_keys=task_id_keys,
                     keep_closed=keep_closed, close_after=close_after,
                     transcripts=transcripts) as run:
        yield from run.items(on_own_output)
        if evicted is not None:
            evicted.extend(Unmatched(trace_id, "", LATE_EVICTED) for trace_id in run.evicted)


def episodes_of_records(
    records: Iterable[Any],
    *,
    report: Any,
    group_by: str = "trace",
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    source: str = "",
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    evicted: Optional[list] = None,
    on_own_output: Optional[Callable[[Any], None]] = None,
    read_request: bool = False,
    transcripts: bool = False,
) -> Iterator[Episode]:
    """The episodes of decoded records, built as :func:`read_episodes` builds those of dump
    files (the same steps: this is its one-process path after the reading); ``source`` goes
    to each episode's ``provenance.source``. The pytest plugin (:mod:`ek_otel.testing`) reads
    the spans a test recorded through it.

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> from ek_otel.ingest.records import SpanRecord
        >>> [e.provenance.span_count for e in episodes_of_records(
        ...     [SpanRecord("1" * 32, "a" * 16)], report=BadInputReport(), source="test")]
        [1]
    """
    from .ingest.episodes import build_episodes

    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY_CHOICES)}; got {group_by!r}")
    groups, late = groups_of_records(records, keep_closed=keep_closed, close_after=close_after,
                                     on_own_output=on_own_output)
    episodes = build_episodes(groups, group_by=group_by, task_id_keys=tuple(task_id_keys),
                              source=source, report=report, read_request=read_request,
                              transcripts=transcripts)
    yield from real_episodes(episodes)
    if evicted is not None:
        evicted.extend(Unmatched(trace_id, "", LATE_EVICTED) for trace_id in late.evicted)


def _episodes_of_dumps(paths, report, group_by, task_id_keys, keep_closed, close_after,
                       evicted, on_own_output, read_request=False, transcripts=False) -> Iterator[Episode]:
    from .ingest.dumps import read_dump

    return episodes_of_records(read_dump(paths, report=report), report=report,
                               group_by=group_by, task_id_keys=task_id_keys,
                               source=", ".join(paths), keep_closed=keep_closed,
                               close_after=close_after, evicted=evicted,
                               on_own_output=on_own_output, read_request=read_request,
                               transcripts=transcripts)


def score_dump(
    paths: Sequence[str],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    report: Any,
    sink: Any = None,
    on_episode: Optional[Callable[[Union[ScoreEnvelope, Unmatched]], None]] = None,
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    batch_size: int = DEFAULT_BATCH,
    jobs: Optional[int] = 1,
) -> ScoreRun:
    """Score the traces of dump files (the ``ek-otel score`` command without the terminal).

    The episodes are those of :func:`read_episodes` (the same as ``ek-otel episodes``).
    With ``jobs`` above 1 they are read, built and scored by that many processes, with the
    same result (:mod:`ek_otel.parallel`; :func:`open_scoring`).

    Args:
        paths: Dump files, directories, globs or ``-`` (see :func:`~ek_otel.ingest.dumps.read_dump`).
        tasks: task_id -> TaskSpec.
        settings: The :class:`~ek_otel.scoring.settings.ScoreSettings`.
        report: A :class:`~ek_otel.ingest.bad_input.BadInputReport` collecting bad input.
        sink: Where envelopes go (a sink of :func:`~ek_otel.emit.make_sink`), or None.
        on_episode: Called with each envelope or :class:`~ek_otel.scoring.link.Unmatched`
            (progress bars).
        keep_closed: How many closed traces keep their records for late spans.
        close_after: Passed to :func:`~ek_otel.ingest.assemble.group_traces` (None: its
            default).
        batch_size: Envelopes per ``send`` to the sink.
        jobs: How many processes (None: :func:`ek_otel.parallel.plan_jobs` decides; 1: this
            one alone).

    Raises:
        InputError: a path does not exist (nothing is read then).
        WorkerError: a process of a parallel run failed.
    """
    with open_scoring(paths, tasks, settings, report=report, keep_closed=keep_closed,
                      close_after=close_after, jobs=jobs) as scoring:
        return scoring.run(sink=sink, on_episode=on_episode, batch_size=batch_size)


def open_scoring(
    paths: Sequence[str],
    tasks: Mapping[str, TaskSpec],
    settings: ScoreSettings,
    *,
    report: Any,
    keep_closed: int = KEEP_CLOSED_TRACES,
    close_after: Optional[int] = None,
    jobs: Optional[int] = 1,
) -> Any:
    """:func:`score_dump` in two steps, for a caller that starts threads (a progress bar):
    this starts the processes of a parallel run (``jobs``: see :func:`score_dump`), then
    ``.run(sink=, on_episode=, batch_size=)`` scores. A context manager: leaving it ends the
    processes.

    Raises:
        InputError: a path does not exist (checked before any process starts).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> with open_scoring(["examples/traces.jsonl"], {}, ScoreSettings(),
        ...                   report=BadInputReport(), jobs=1) as scoring:
        ...     scoring.run().report.n_episodes
        0
    """
    from .ingest.dumps import expand_paths
    from .parallel import ParallelScoring, plan_jobs

    expand_paths(paths)
    # --link-by input reads each run's request (ingest.requests): in this one process
    jobs = 1 if settings.link_by == "input" else plan_jobs(paths, jobs, settings.group_by)
    if jobs > 1:
        return ParallelScoring(paths, tasks, settings, jobs=jobs, report=report,
                               keep_closed=keep_closed, close_after=close_after)
    return _OneProcess(paths, tasks, settings, report, keep_closed, close_after)


class _OneProcess:
    """:func:`open_scoring` with one process: the episodes of :func:`read_episodes`, scored
    by :func:`~ek_otel.scoring.run.score_episodes`."""

    def __init__(self, paths, tasks, settings, report, keep_closed, close_after):
        self.paths, self.tasks, self.settings, self.report = paths, tasks, settings, report
        self.keep_closed, self.close_after = keep_closed, close_after

    def __enter__(self) -> "_OneProcess":
        return self

    def __exit__(self, *_exc: Any) -> None:
        return None

    def run(self, *, sink: Any = None, on_episode: Optional[Callable[[Any], None]] = None,
            batch_size: int = DEFAULT_BATCH) -> ScoreRun:
        evicted: list = []
        settings = self.settings
        episodes = read_episodes(self.paths, report=self.report, group_by=settings.group_by,
                                 task_id_keys=settings.task_id_keys, keep_closed=self.keep_closed,
                                 close_after=self.close_after, evicted=evicted,
                                 read_request=settings.link_by == "input",
                                 transcripts=settings.transcripts)
        run = score_episodes(episodes, self.tasks, settings, sink=sink,
                             on_episode=on_episode, batch_size=batch_size)
        if evicted:
            run = replace(run, unmatched=run.unmatched + tuple(evicted))
        return run


def diagnose_dumps(
    paths: Sequence[str],
    *,
    report: Any,
    group_by: str = "trace",
    task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
    on_episode: Optional[Callable[[Episode], None]] = None,
) -> Any:
    """Why the traces of dump files give the episodes they give (``ek-otel doctor``): the
    :class:`~ek_otel.ingest.diagnosis.Diagnosis` of the episodes :func:`read_episodes` reads.
    Every trace is held until the end of the input (a diagnosis is not a stream);
    ``on_episode`` is called with each episode as it is diagnosed (progress bars).

    Raises:
        InputError: a path does not exist (checked before anything is read).

    Example:
        >>> from ek_otel.ingest.bad_input import BadInputReport
        >>> d = diagnose_dumps(["tests/ingest/corpus/openai-v2-2.4b0-no_content/traces.pb"],
        ...                    report=BadInputReport())
        >>> d.traces[0].framework, d.traces[0].gap("arguments").fix[:50]
        ('OpenAI client', 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')
    """
    from .ingest.assemble import group_traces
    from .ingest.diagnose import diagnose
    from .ingest.dumps import expand_paths, read_dump
    from .ingest.episodes import build_episodes

    if group_by not in GROUP_BY_CHOICES:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY_CHOICES)}; got {group_by!r}")
    expand_paths(paths)
    groups = list(group_traces(not_ours(read_dump(paths, report=report)), close_after=None))
    by_trace = {group.trace_id: group for group in groups}
    episodes = real_episodes(build_episodes(groups, group_by=group_by, task_id_keys=task_id_keys,
                                             source=", ".join(paths), report=report))

    def records(episode: Episode) -> tuple:
        spans: list = []
        logs: list = []
        for trace_id in episode.meta.get("trace_ids", ()):
            group = by_trace.get(trace_id)
            if group is not None:
                spans.extend(group.spans)
                logs.extend(group.logs)
        if on_episode is not None:
            on_episode(episode)
        return episode, spans, logs

    return diagnose(records(episode) for episode in episodes)
