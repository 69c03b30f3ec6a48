"""``ek-otel score`` over several processes, with the output of one.

:class:`ParallelScoring` forks ``jobs - 1`` worker processes; the calling process is shard 0
and each worker one more shard (:mod:`ek_otel.ingest.shard`). Every process reads every dump
file itself (no bytes and no decoded records travel between processes; a large single-object
JSON file is read and scanned once, by the main process before it forks:
:func:`~ek_otel.ingest.dumps.read_ahead`) and runs the same
id-level flow as one process: every record goes through the own-output check, grouping by
trace and late-record merging, so traces close, duplicates drop and late groups come exactly
as in one process, and every process numbers the trace groups alike. A process decodes in
full only the records of its own traces (the others light: ids, parent, resource, scope), and
builds and scores only its own groups (:func:`~ek_otel.scoring.run.score_stream`).

**Ordering contract.** A worker sends ``(group number, Outcome)`` for its groups, in
batches, with the number of the last group it has passed; the main process merges its own
outcomes and the workers' by group number, and hands them to
:func:`~ek_otel.scoring.run.collect_run` in that order: the envelopes, the sink's batches,
the revisions, the report and the progress bar (``on_episode``) are those of one process.
Late evictions are the same in every process (shard 0's are taken). The bad-input cases are
keyed by a clock every process advances alike and replayed in key order into the one report
(:func:`~ek_otel.ingest.shard.merge_shard_reports`). A trace's late groups are its owner's,
so revision numbers are counted where they are in one process; episodes without a trace id
(log records without one) are all shard 0's, so their outcome keys stay unique.

**Processes.** Workers are forked (gold, pricing and settings are loaded once, before), before
any thread of the command starts (the CLI forks before its progress bar). A worker ignores
Ctrl-C (the main process ends the workers when it stops, whatever the reason), dies with the
main process (``PR_SET_PDEATHSIG`` on Linux, and a broken pipe otherwise), and sends its error
back: a library error is raised again as it was, anything else as a
:class:`~ek_otel.errors.WorkerError`; a worker that dies without a word is a ``WorkerError``
too. Never a hang: the main process waits only on workers it knows are alive.

Example:
    >>> from ek_otel.ingest.bad_input import BadInputReport
    >>> from ek_otel.gold.native import load_tasks
    >>> from ek_otel.scoring.settings import ScoreSettings
    >>> tasks = {t.task_id: t for t in load_tasks("examples/tasks.jsonl")}
    >>> report = BadInputReport()
    >>> with ParallelScoring(["examples/traces.jsonl"], tasks, ScoreSettings(), jobs=2,
    ...                      report=report) as scoring:
    ...     run = scoring.run()
    >>> run.report.n_episodes > 0, report.ok
    (True, True)
"""

from __future__ import annotations

import collections
import gc
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional

from .core.episode import TaskSpec
from .errors import EkOtelError, WorkerError
from .ingest.assemble import GC_THRESHOLDS, KEEP_CLOSED_TRACES, restore_gc_thresholds
from .ingest.bad_input import BadInputReport
from .ingest.dumps import STDIN, drop_read_ahead, expand_paths, read_ahead
from .ingest.episodes import DEFAULT_TASK_ID_KEYS, GROUP_BY_TRACE
from .ingest.shard import Shard, merge_shard_reports
from .scoring.link import LATE_EVICTED, Unmatched
from .scoring.run import DEFAULT_BATCH, ScoreRun, collect_run, score_stream
from .scoring.settings import ScoreSettings

__all__ = ["MIN_PARALLEL_BYTES", "MAIN_EXTRA", "default_jobs", "main_share", "plan_jobs", "ParallelRun",
           "ParallelScoring", "shard_outcomes"]

#: Below this many bytes of dump files, the default is one process (starting and feeding
#: workers costs more than they save).
MIN_PARALLEL_BYTES = 4 << 20

#: What the main process does besides its shard *while the shards run* (taking in the
#: workers' outcomes and gathering them), as a share of what building and scoring every
#: trace costs: shard 0 takes that much less of the traces (:func:`main_share`). The JSON
#: report and the tables are written once every shard is done, so they do not count (when
#: they did, 0.18, the main process finished its shard about a second before the worker
#: and waited). Measured by when each process ends its shard, ``--jobs 2``, alternated with
#: 0.18 and 0: the 134 MB single-request bench file and the 100k-span protobuf dump of
#: ``bench/ingest.py`` (at 0.05 both end within 0.3 s of each other; 0.7-1.6 s wall less
#: than at 0.18 on the request, 0.3-0.5 s on the dump).
MAIN_EXTRA = 0.05

#: Outcomes a worker gathers before it sends them (also sent every ``_SEND_EVERY_S``).
_BATCH = 64
_SEND_EVERY_S = 0.05
#: Outcomes the main process holds for one shard (its own, or a worker's), waiting for
#: another shard, before it stops taking more from that one (memory stays bounded: a worker
#: ahead waits on its full pipe).
_MAX_AHEAD = 2_000
_PIPE_BYTES = 1 << 20
_ONE_PROCESS = "--jobs 1 runs in one process"
_LENGTH = 8


def default_jobs() -> int:
    """The cores this process may run on (``os.sched_getaffinity``), or ``os.cpu_count()``.

    Example:
        >>> default_jobs() >= 1
        True
    """
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def main_share(jobs: int) -> float:
    """The share of the traces the main process (shard 0) scores among ``jobs`` processes:
    less than the others', by :data:`MAIN_EXTRA`, so that all finish together.

    Example:
        >>> round(main_share(2), 3), round(main_share(3), 3), main_share(1), main_share(21)
        (0.475, 0.3, 1.0, 0.0)
    """
    if jobs <= 1:
        return 1.0
    return max(0.0, (1 - MAIN_EXTRA * (jobs - 1)) / jobs)


def plan_jobs(paths: Sequence[str], jobs: Optional[int], group_by: str = GROUP_BY_TRACE) -> int:
    """How many processes score ``paths``: ``jobs``, or :func:`default_jobs` when None.

    One process when parallel scoring cannot give the output of one: standard input (it can
    be read once), episodes grouped by conversation or session (they span traces). With the
    default (``jobs`` None), also one when it cannot pay: one core, or dump files under
    :data:`MIN_PARALLEL_BYTES` in all. ``fork`` is needed (not on Windows or macOS's default).

    Raises:
        ValueError: ``jobs`` below 1.

    Example:
        >>> plan_jobs(["-"], 4), plan_jobs(["examples/traces.jsonl"], None), plan_jobs(["examples/traces.jsonl"], 3)
        (1, 1, 3)
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if not hasattr(os, "fork") or group_by != GROUP_BY_TRACE or STDIN in paths:
        return 1
    if jobs is not None:
        return jobs
    jobs = default_jobs()
    if jobs <= 1:
        return 1
    total = 0
    for path in expand_paths(paths):
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return jobs if total >= MIN_PARALLEL_BYTES else 1


class _ShardRun:
    """The flow of one shard: every record through the id-level flow, its own groups built
    into episodes and those turned into items by ``transform`` (one item per episode, in
    order: :func:`~ek_otel.scoring.run.score_stream`, or the episodes themselves). Iterating
    yields ``(group number, item)``; ``passed`` is the number of the last group seen (own or
    not), ``evicted`` the late evictions once done."""

    def __init__(self, paths: Sequence[str], shard: Shard, transform: Callable[[Iterator[Any]], Iterator[Any]],
                 task_id_keys: Sequence[str], keep_closed: int, close_after: Optional[int],
                 on_own_output: Optional[Callable[[Any], None]] = None, transcripts: bool = False):
        self.paths, self.shard, self.transform = list(paths), shard, transform
        self.transcripts = transcripts
        self.task_id_keys = tuple(task_id_keys)
        self.keep_closed, self.close_after, self.on_own_output = keep_closed, close_after, on_own_output
        self.passed = -1
        self.evicted: list = []

    def __iter__(self) -> Iterator[tuple]:
        from .ingest.episodes import build_episodes
        from .dump_flow import real_episodes, trace_groups

        shard = self.shard
        groups, late = trace_groups(self.paths, shard, keep_closed=self.keep_closed,
                                    close_after=self.close_after, on_own_output=self.on_own_output,
                                    shard=shard)

        def own_groups() -> Iterator[Any]:
            number = -1
            for group in groups:
                number += 1
                self.passed = number
                if shard.item(group.trace_id):  # a tick: building it reports as its owner
                    yield group

        episodes = real_episodes(build_episodes(own_groups(), group_by=GROUP_BY_TRACE,
                                                 task_id_keys=self.task_id_keys,
                                                 source=", ".join(self.paths), report=shard,
                                                 transcripts=self.transcripts))
        for item in self.transform(episodes):
            yield self.passed, item  # one episode per group: the group just built
        self.passed = sys.maxsize
        self.evicted = list(late.evicted)


def shard_outcomes(paths: Sequence[str], shard: Shard, tasks: Mapping[str, TaskSpec],
                   settings: ScoreSettings, *, keep_closed: int = KEEP_CLOSED_TRACES,
                   close_after: Optional[int] = None) -> Iterator[tuple]:
    """``(group number, Outcome)`` of the traces of one shard, in input order (what each
    process of :class:`ParallelScoring` makes).

    Example:
        >>> from ek_otel.ingest.shard import Shard
        >>> both = [list(shard_outcomes(["examples/traces.jsonl"], Shard(i, 2), {}, ScoreSettings()))
        ...         for i in range(2)]
        >>> numbers = sorted(n for outcomes in both for n, _ in outcomes)
        >>> numbers == list(range(len(numbers))), all(both)
        (True, True)
    """
    return iter(_ShardRun(paths, shard, _scorer(tasks, settings), settings.task_id_keys, keep_closed,
                          close_after, transcripts=settings.transcripts))


def _scorer(tasks: Mapping[str, TaskSpec], settings: ScoreSettings) -> Callable[[Iterator[Any]], Iterator[Any]]:
    return lambda episodes: score_stream(episodes, tasks, settings)


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (best effort)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _send(out: Any, message: tuple) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(_LENGTH, "big"))
    out.write(data)
    out.flush()


def _worker(out: Any, run: _ShardRun) -> None:
    """A worker's life: its outcomes in batches, then its bad input (or its error)."""
    batch: list = []
    last = time.monotonic()
    try:
        for item in run:
            batch.append(item)
            now = time.monotonic()
            if len(batch) >= _BATCH or now - last >= _SEND_EVERY_S:
                _send(out, ("batch", run.passed, batch))
                batch, last = [], now
        _send(out, ("batch", run.passed, batch))
        _send(out, ("done", run.shard.state()))
    except BrokenPipeError:
        raise
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the main process
        _send(out, ("error", _portable(exc)))
        raise


def _portable(exc: BaseException) -> Any:
    """The error itself when it is a library error that pickles; else its description."""
    if isinstance(exc, EkOtelError):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # noqa: BLE001 - an error that does not travel: describe it
            pass
    return f"{type(exc).__name__}: {exc}"


class _Stream:
    """What the main process knows of one shard: outcomes not yet handed on, and up to
    which group number the shard has gone."""

    __slots__ = ("index", "pid", "fd", "buffer", "done", "finished", "pending", "state")

    def __init__(self, index: int, pid: int = 0, fd: int = -1):
        self.index, self.pid, self.fd = index, pid, fd
        self.buffer: collections.deque = collections.deque()
        self.done = -1
        self.finished = False
        self.pending = bytearray()
        self.state: Any = None


class ParallelRun:
    """The episodes of dump files read by ``jobs`` processes (see the module doc), each
    turned into an item by ``transform`` in the process that built it; a context manager:
    the workers start when it is made and are ended when it closes.

    Args:
        paths: Dump files, directories or globs (not ``-``).
        transform: Episodes -> items, one per episode, in order (a generator function; it runs
            in every process, forked: it need not pickle; its items must).
        jobs: How many processes in all (this one included), at least 2.
        report: The :class:`~ek_otel.ingest.bad_input.BadInputReport` that :meth:`items`
            fills once done (its ``keep`` is each worker's).
        task_id_keys, keep_closed, close_after: As :func:`~ek_otel.pipeline.read_episodes`.

    Example:
        >>> with ParallelRun(["examples/traces.jsonl"], lambda episodes: (e.task_id for e in episodes),
        ...                  jobs=2, report=BadInputReport()) as run:
        ...     task_ids = list(run.items())
        >>> from ek_otel.pipeline import read_episodes
        >>> task_ids == [e.task_id for e in read_episodes(["examples/traces.jsonl"], report=BadInputReport())]
        True
    """

    def __init__(self, paths: Sequence[str], transform: Callable[[Iterator[Any]], Iterator[Any]], *,
                 jobs: int, report: BadInputReport, task_id_keys: Sequence[str] = DEFAULT_TASK_ID_KEYS,
                 keep_closed: int = KEEP_CLOSED_TRACES, close_after: Optional[int] = None,
                 transcripts: bool = False):
        if jobs < 2:
            raise ValueError("a parallel run needs jobs >= 2")
        if STDIN in paths:
            raise ValueError("a parallel run reads files, not -")
        expand_paths(paths)  # a missing path fails before any process starts
        self.paths, self.transform, self.report = list(paths), transform, report
        self.task_id_keys = tuple(task_id_keys)
        self.keep_closed, self.close_after = keep_closed, close_after
        self.transcripts = transcripts
        self.jobs = jobs
        self.workers: list = []
        #: The late evictions (trace ids), once :meth:`items` is done.
        self.evicted: list = []
        self._start()

    # -- processes ---------------------------------------------------------

    def _run_of(self, index: int, on_own_output: Optional[Callable[[Any], None]] = None) -> _ShardRun:
        shard = Shard(index, self.jobs, self.report.keep, first_share=main_share(self.jobs))
        return _ShardRun(self.paths, shard, self.transform, self.task_id_keys, self.keep_closed,
                         self.close_after, on_own_output, self.transcripts)

    def _start(self) -> None:
        read_ahead(self.paths)  # a large single-object file is read and scanned once, shared
        gc.collect()
        gc.freeze()  # what is loaded now stays shared: no collection writes to its pages
        try:
            for index in range(1, self.jobs):
                read_fd, write_fd = os.pipe()
                try:
                    import fcntl

                    fcntl.fcntl(write_fd, 1031, _PIPE_BYTES)  # F_SETPIPE_SZ: fewer waits
                except (ImportError, OSError):  # pragma: no cover - not Linux, or capped
                    pass
                sys.stdout.flush()
                sys.stderr.flush()
                try:
                    pid = os.fork()
                except OSError as exc:
                    os.close(read_fd)
                    os.close(write_fd)
                    raise WorkerError(f"cannot start process {index + 1} of {self.jobs}: "
                                      f"{exc.strerror or exc}; {_ONE_PROCESS}") from None
                if pid == 0:  # the worker
                    code = 1
                    try:
                        os.close(read_fd)
                        for other in self.workers:
                            os.close(other.fd)
                        signal.signal(signal.SIGINT, signal.SIG_IGN)
                        _die_with_parent()
                        with os.fdopen(write_fd, "wb") as out:
                            _worker(out, self._run_of(index))
                        code = 0
                    finally:
                        os._exit(code)
                os.close(write_fd)
                self.workers.append(_Stream(index, pid, read_fd))
        except BaseException:
            self.close()
            raise
        finally:
            gc.unfreeze()

    def close(self) -> None:
        """End the workers still running (idempotent)."""
        drop_read_ahead()
        for worker in self.workers:
            if worker.pid:
                try:
                    if not worker.finished:
                        os.kill(worker.pid, signal.SIGKILL)
                    os.waitpid(worker.pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
                worker.pid = 0
            if worker.fd >= 0:
                os.close(worker.fd)
                worker.fd = -1

    def __enter__(self) -> "ParallelRun":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    # -- the main process --------------------------------------------------

    def items(self, on_own_output: Optional[Callable[[Any], None]] = None) -> Iterator[Any]:
        """Every shard's items in input order (the main process is shard 0, and calls
        ``on_own_output`` with each record of ek-otel's own output). Once done, the bad input
        is in ``report`` and the late evictions in :attr:`evicted`, and the workers are gone.

        Raises:
            WorkerError: a worker failed or died (a library error of a worker is raised as
                it is).
        """
        own = self._run_of(0, on_own_output)
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)  # as group_traces: the whole run is in memory
        try:
            yield from self._merged(own)
        finally:
            restore_gc_thresholds(thresholds)
        merge_shard_reports([own.shard.state()] + [worker.state for worker in self.workers], self.report)
        self.evicted = own.evicted
        self.close()

    def _merged(self, own_run: _ShardRun) -> Iterator[Any]:
        """Every shard's outcomes, by group number (this process computes its own between
        reads of the workers' pipes)."""
        own = _Stream(0)
        streams = [own] + self.workers
        mine = iter(own_run)
        for worker in self.workers:
            os.set_blocking(worker.fd, False)
        while True:
            yield from self._ready(streams)
            if all(stream.finished and not stream.buffer for stream in streams):
                return
            if not own.finished and len(own.buffer) < _MAX_AHEAD:
                item = next(mine, None)
                if item is None:
                    own.finished, own.done = True, sys.maxsize
                else:
                    own.buffer.append(item)
                    own.done = own_run.passed
                self._read(timeout=0)
            else:
                self._read(timeout=None)

    @staticmethod
    def _ready(streams: list) -> Iterator[Any]:
        """The outcomes that can be handed on: the lowest group number held, once no shard
        may still send a lower one."""
        while True:
            head = None
            for stream in streams:
                if stream.buffer and (head is None or stream.buffer[0][0] < head.buffer[0][0]):
                    head = stream
            if head is None:
                return
            number = head.buffer[0][0]
            for stream in streams:
                if stream is not head and not stream.buffer and stream.done < number:
                    return
            yield head.buffer.popleft()[1]

    def _read(self, timeout: Optional[float]) -> None:
        """Take in what the workers have sent (wait up to ``timeout``; None: until one sends),
        from those not too far ahead. A shard that holds up the merge holds nothing back, so
        it is always among them."""
        waiting = [w for w in self.workers if not w.finished and len(w.buffer) < _MAX_AHEAD]
        if not waiting:
            return
        ready, _, _ = select.select([w.fd for w in waiting], [], [], timeout)
        for worker in waiting:
            if worker.fd in ready:
                self._take(worker)

    def _take(self, worker: _Stream) -> None:
        closed = False
        while not closed:
            try:
                data = os.read(worker.fd, _PIPE_BYTES)
            except BlockingIOError:
                break
            closed = not data
            worker.pending += data
        self._messages(worker)
        if closed and not worker.finished:
            self._lost(worker)

    def _messages(self, worker: _Stream) -> None:
        pending = worker.pending
        start = 0
        while len(pending) - start >= _LENGTH:
            size = int.from_bytes(pending[start:start + _LENGTH], "big")
            if len(pending) - start - _LENGTH < size:
                break
            message = pickle.loads(pending[start + _LENGTH:start + _LENGTH + size])
            start += _LENGTH + size
            self._handle(worker, message)
        del pending[:start]

    def _handle(self, worker: _Stream, message: tuple) -> None:
        kind = message[0]
        if kind == "batch":
            worker.buffer.extend(message[2])
            worker.done = message[1]
        elif kind == "done":
            worker.state = message[1]
            worker.finished, worker.done = True, sys.maxsize
        else:  # "error"
            worker.finished = True
            error = message[1]
            if isinstance(error, EkOtelError):
                raise error
            raise WorkerError(f"{self._name(worker)} failed: {error} ({_ONE_PROCESS})")

    def _lost(self, worker: _Stream) -> None:
        """A worker closed its pipe without a last word: it died."""
        pid, status = os.waitpid(worker.pid, 0)
        worker.pid = 0
        worker.finished = True
        if os.WIFSIGNALED(status):
            how = f"was killed by signal {os.WTERMSIG(status)}"
            if os.WTERMSIG(status) == signal.SIGKILL:
                how += " (out of memory?)"
        else:
            how = f"exited with status {os.WEXITSTATUS(status)}"
        raise WorkerError(f"{self._name(worker)} {how}; {_ONE_PROCESS}")

    def _name(self, worker: _Stream) -> str:
        return f"process {worker.index + 1} of {self.jobs} (--jobs {self.jobs})"


class ParallelScoring(ParallelRun):
    """Score dump files with ``jobs`` processes: :class:`ParallelRun` of
    :func:`~ek_otel.scoring.run.score_stream`, gathered by
    :func:`~ek_otel.scoring.run.collect_run` (see the module doc).

    Args:
        paths: Dump files, directories or globs (not ``-``).
        tasks: task_id -> TaskSpec.
        settings: The :class:`~ek_otel.scoring.settings.ScoreSettings` (``group_by`` trace).
        jobs: How many processes in all (this one included), at least 2.
        report: The :class:`~ek_otel.ingest.bad_input.BadInputReport` that :meth:`run` fills.
        keep_closed, close_after: As :func:`~ek_otel.pipeline.score_dump`.
    """

    def __init__(self, paths: Sequence[str], tasks: Mapping[str, TaskSpec], settings: ScoreSettings, *,
                 jobs: int, report: BadInputReport, keep_closed: int = KEEP_CLOSED_TRACES,
                 close_after: Optional[int] = None):
        if settings.group_by != GROUP_BY_TRACE:
            raise ValueError("parallel scoring groups by trace")
        self.tasks, self.settings = tasks, settings
        settings.provenance()  # made once, shared by every process's scores
        super().__init__(paths, _scorer(tasks, settings), jobs=jobs, report=report,
                         task_id_keys=settings.task_id_keys, keep_closed=keep_closed, close_after=close_after,
                         transcripts=settings.transcripts)

    def run(self, *, sink: Any = None, on_episode: Optional[Callable[[Any], None]] = None,
            batch_size: int = DEFAULT_BATCH) -> ScoreRun:
        """Score every shard, and gather the outcomes in input order: the
        :class:`~ek_otel.scoring.run.ScoreRun` of one process. The bad input goes to
        ``report``.

        Raises:
            WorkerError: a worker failed or died (a library error of a worker is raised as
                it is).
        """
        run = collect_run(self.items(), self.tasks, self.settings, sink=sink,
                          on_episode=on_episode, batch_size=batch_size)
        if self.evicted:
            run = replace(run, unmatched=run.unmatched + tuple(
                Unmatched(trace_id, "", LATE_EVICTED) for trace_id in self.evicted))
        return run
