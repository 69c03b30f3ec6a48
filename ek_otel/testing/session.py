"""What the pytest plugin keeps over a test session: the scoring settings, the gold files,
each task's trials (for the verdicts of the summary line), and the episodes captured (for
``--ek-report DIR``).

The report is the one ``ek-otel score --json`` writes, made by the same code
(:func:`ek_otel.scoring.run.score_episodes`, :meth:`~ek_otel.scoring.run.ScoreRun.to_dict`,
:func:`ek_otel.report.html.write_run_page`), over every episode captured in the session: an
episode a test scored against a task carries that task's id; one no test scored is linked by
its own task id, as ``ek-otel score`` links it. ``DIR/gold.jsonl`` holds the tasks of the
session (those of ``--ek-gold`` and those made by ``assert_calls``), and its sha256 is the
report's ``gold_sha256``; when every task came from the ``--ek-gold`` file, that file is the
gold (its sha256), so the report compares with an ``ek-otel score`` report on the same gold.

Example:
    >>> s = Session(SessionOptions())
    >>> s.record_trial("refund", True); s.record_trial("refund", False)
    >>> s.record_trial("weather", True)
    >>> s.verdicts()
    {'refund': 'flaky', 'weather': 'pass'}
    >>> s.summary_line()
    'ek-otel: 2 tasks: 1 pass, 1 flaky, 0 fail (3 trials)'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Optional

from ..core.episode import Episode, TaskSpec
from ..core.verdicts import task_verdict
from ..errors import InputError
from ..ingest.bad_input import BadInputReport
from ..ingest.semconv import DEFAULT_TASK_ID_KEYS
from ..scoring.settings import ScoreSettings, file_sha256

__all__ = ["SessionOptions", "Session", "REPORT_FILES"]

#: The files ``--ek-report DIR`` writes.
REPORT_FILES = ("report.json", "report.html", "gold.jsonl")


@dataclass(frozen=True)
class SessionOptions:
    """The plugin's command-line options (``--ek-gold``, ``--ek-pricing``, ``--ek-report``,
    ``--ek-level``, ``--ek-strategy``, ``--ek-task-id-key``)."""

    gold: Optional[str] = None
    pricing: Optional[str] = None
    report_dir: Optional[str] = None
    level: str = "call"
    strategy: str = "optimal"
    task_id_keys: tuple = DEFAULT_TASK_ID_KEYS


class Session:
    """The state of one test session (see the module doc).

    Raises:
        InputError, GoldFileError: a pricing or gold file that cannot be used (at the first
            test that scores).
    """

    def __init__(self, options: SessionOptions) -> None:
        self.options = options
        prices = None
        if options.pricing:
            from ..gold.pricing import load_pricing

            prices = load_pricing(options.pricing)
        self.base_settings = ScoreSettings(level=options.level, strategy=options.strategy,
                                           prices=prices, task_id_keys=options.task_id_keys)
        self._gold: dict = {}
        self._trials: dict = {}  # task id -> [n, c]
        self._dollars: dict = {}  # episode key -> dollars (None: not priced)
        self.tasks: dict = {}  # task id -> TaskSpec scored in the session
        self._task_gold: dict = {}  # task id -> the gold file it came from ("" : made in a test)
        self.captured: list = []  # (episode, task id or None), for the report
        self.bad_input = BadInputReport()
        self.report_written: Optional[str] = None

    # -- settings and gold ------------------------------------------------------------------

    def settings(self, *, level: Optional[str] = None, strategy: Optional[str] = None) -> ScoreSettings:
        """The scoring settings, with a test's own ``level``/``strategy`` when given.

        Example:
            >>> Session(SessionOptions()).settings(level="arg").level
            'arg'
        """
        changes = {k: v for k, v in (("level", level), ("strategy", strategy)) if v is not None}
        return replace(self.base_settings, **changes) if changes else self.base_settings

    def gold(self, path: str) -> tuple:
        """``(tasks, default task id)`` of a gold file, read once per session.

        Example:
            >>> Session(SessionOptions()).gold("/no/such/gold.jsonl")
            Traceback (most recent call last):
            ...
            ek_otel.errors.GoldFileError: /no/such/gold.jsonl: no such file
        """
        path = os.path.abspath(path)
        if path not in self._gold:
            from ..scoring.link import check_tasks, load_gold

            tasks, default = load_gold(path)
            check_tasks(tasks, self.base_settings, path=path)
            self._gold[path] = (tasks, default)
        return self._gold[path]

    # -- what tests did ---------------------------------------------------------------------

    def use_task(self, task: TaskSpec, gold_path: str = "", *, where: str = "") -> None:
        """Keep a task that a test scored (``gold_path``: the gold file it came from).

        Raises:
            InputError: the same task id was scored with other gold calls in the session
                (``where`` names the test), so its trials and the report would mix them.

        Example:
            >>> s = Session(SessionOptions())
            >>> s.use_task(TaskSpec("t", gold=[("a", {})]))
            >>> s.use_task(TaskSpec("t", gold=[("b", {})]), where="test_b")
            Traceback (most recent call last):
            ...
            ek_otel.errors.InputError: test_b: task 't' was already scored with other gold calls in this session; give each expectation its own task_id
        """
        known = self.tasks.get(task.task_id)
        if known is not None and known != task:
            raise InputError(f"{where or 'a test'}: task {task.task_id!r} was already scored with "
                             "other gold calls in this session; give each expectation its own "
                             "task_id")
        self.tasks[task.task_id] = task
        self._task_gold[task.task_id] = os.path.abspath(gold_path) if gold_path else ""

    def record_trial(self, task_id: str, success: bool) -> None:
        """One trial of a task: the verdicts count them."""
        counts = self._trials.setdefault(task_id, [0, 0])
        counts[0] += 1
        counts[1] += bool(success)

    def record_dollars(self, key: tuple, dollars: Optional[float]) -> None:
        """The dollars of one scored episode (``key``: its trace and root span ids)."""
        self._dollars[key] = dollars

    def add_captured(self, episodes: list, task_of: dict) -> None:
        """Episodes a test captured, with the task each was scored against (by episode
        key), for the report (kept only with ``--ek-report``)."""
        if self.options.report_dir is None:
            return
        for episode in episodes:
            self.captured.append((episode, task_of.get(_key(episode))))

    # -- the end of the session -------------------------------------------------------------

    def verdicts(self) -> dict:
        """task id -> ``pass``/``flaky``/``fail`` from its trials, in the order first seen."""
        return {task_id: task_verdict(n, c) for task_id, (n, c) in self._trials.items()}

    def summary_line(self) -> Optional[str]:
        """The terminal summary's line, or None when no test scored anything.

        Example:
            >>> Session(SessionOptions()).summary_line() is None
            True
        """
        if not self._trials:
            return None
        words = list(self.verdicts().values())
        n_trials = sum(n for n, _ in self._trials.values())
        line = (f"ek-otel: {len(words)} task{'s' if len(words) != 1 else ''}: "
                f"{words.count('pass')} pass, {words.count('flaky')} flaky, "
                f"{words.count('fail')} fail ({n_trials} trial{'s' if n_trials != 1 else ''})")
        if self.options.pricing:
            priced = [d for d in self._dollars.values() if d is not None]
            unpriced = len(self._dollars) - len(priced)
            line += f"; ${sum(priced):.4g} for {len(priced)} scored episode(s)"
            if unpriced:
                line += f" ({unpriced} not priced: no price for their model, or no tokens)"
        return line

    def write_report(self) -> Optional[str]:
        """Write ``report.json``, ``report.html`` and ``gold.jsonl`` under ``--ek-report``'s
        directory (see the module doc); returns the directory, or None without the option.

        Raises:
            InputError: the directory cannot be written.
        """
        directory = self.options.report_dir
        if directory is None:
            return None
        from ..scoring.report_json import write_json_file as write_json
        from ..gold.native import dump_tasks
        from ..report.html import write_run_page
        from ..scoring.run import score_episodes

        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{directory}: cannot write the ek-otel report: {exc.strerror or exc}")
        tasks = self._report_tasks()
        gold_path = os.path.join(directory, "gold.jsonl")
        dump_tasks(list(tasks.values()), gold_path)
        sources = set(self._task_gold.values())
        only_gold = self.options.gold and sources <= {os.path.abspath(self.options.gold)}
        gold_of_report = os.path.abspath(self.options.gold) if only_gold else gold_path
        settings = replace(self.base_settings, gold_sha256=file_sha256(gold_of_report))
        episodes = [_with_task(episode, task_id) for episode, task_id in self.captured]
        data = score_episodes(episodes, tasks, settings).to_dict()
        bad = self.bad_input
        data["bad_input"] = {"total": bad.total, "counts": dict(bad.counts),
                             "cases": [str(c) for c in bad.cases]}
        write_json(data, os.path.join(directory, "report.json"))
        write_run_page(data, os.path.join(directory, "report.html"), source="pytest session",
                       gold_path=gold_of_report)
        self.report_written = directory
        return directory

    def _report_tasks(self) -> dict:
        """The gold of the report: the ``--ek-gold`` tasks, then those made in tests (by id)."""
        tasks: dict = {}
        if self.options.gold:
            tasks.update(self.gold(self.options.gold)[0])
        for task_id in sorted(self.tasks):
            tasks.setdefault(task_id, self.tasks[task_id])
        return tasks


def _key(episode: Episode) -> tuple:
    provenance = episode.provenance
    return (getattr(provenance, "trace_id", "") or "", getattr(provenance, "root_span_id", "") or "",
            id(episode) if provenance is None else 0)


def _with_task(episode: Episode, task_id: Optional[str]) -> Episode:
    if task_id is None or episode.task_id == task_id:
        return episode
    return replace(episode, task_id=task_id)
