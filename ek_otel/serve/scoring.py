"""Scoring one closed trace: raw payloads → records (dedup by span id) → episode → score.

This is the only place the server decodes attributes, once per trace revision, and it runs
off the event loop: in a worker process (:func:`score_trace`, with a per-process cache of
the tasks and a read-only store connection) or a thread.

Example:
    >>> r = ScoringResult("ab" * 16, 0, 7, task_id=None, matched=False, success=None,
    ...                   envelope=None, detail="no task id")
    >>> r.matched, r.detail
    (False, 'no task id')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Optional, Sequence

__all__ = [
    "ScoringSetup",
    "ScoringResult",
    "TraceScorer",
    "decode_trace",
    "score_trace",
]


@dataclass(frozen=True)
class ScoringSetup:
    """What a scoring worker needs to know (picklable: sent to worker processes).

    ``options`` are ``(name, value)`` pairs of scoring settings (``level``, ``strategy``,
    ``task_id_keys``, ``prices``...), passed through to the pipeline.
    """

    store_path: str
    gold: str
    options: tuple = ()


@dataclass(frozen=True)
class ScoringResult:
    """The outcome of scoring one revision of one trace (what the store records)."""

    trace_id: str
    revision: int
    upto: int
    task_id: Optional[str]
    matched: bool
    success: Optional[bool]
    envelope: Optional[str]
    detail: Optional[str] = None


def decode_trace(payloads: Sequence[tuple[str, bytes]]) -> tuple[list, list]:
    """Decode stored ``(signal, data)`` payloads into spans (deduplicated by span id) and logs.

    The first copy of a span wins; a payload that cannot be decoded is skipped (it was
    checked on arrival, so this only happens to a store written by another version).

    Example:
        >>> decode_trace([("spans", b""), ("logs", b"")])
        ([], [])
    """
    from ..errors import DecodeError
    from ..ingest.otlp import decode_logs_payload, decode_payload

    spans: list = []
    logs: list = []
    seen: set = set()
    for signal, data in payloads:
        try:
            if signal == "spans":
                for span in decode_payload(data):
                    if span.span_id not in seen:
                        seen.add(span.span_id)
                        spans.append(span)
            else:
                logs.extend(decode_logs_payload(data))
        except DecodeError:
            continue
    return spans, logs


class TraceScorer:
    """Builds and scores the episode of one trace against the gold tasks.

    Args:
        gold: The gold task file.
        options: ``(name, value)`` scoring settings (see :class:`ScoringSetup`).
    """

    def __init__(self, gold: str, options: tuple = ()):
        import hashlib

        from ..gold.native import load_tasks

        self.gold = gold
        self.options = dict(options)
        self.tasks = {t.task_id: t for t in load_tasks(gold)}
        with open(gold, "rb") as f:
            self.gold_sha256 = hashlib.sha256(f.read()).hexdigest()

    def episode_of(self, trace_id: str, payloads: Sequence[tuple[str, bytes]]) -> tuple:
        """``(episode, spans)`` of one trace's stored payloads."""
        from ..ingest.episodes import build_episode
        from ..ingest.semconv import DEFAULT_TASK_ID_KEYS

        spans, logs = decode_trace(payloads)
        keys = tuple(self.options.get("task_id_keys") or DEFAULT_TASK_ID_KEYS)
        return build_episode(spans, logs, task_id_keys=keys, source=f"otlp:{trace_id}"), spans

    def score(self, trace_id: str, revision: int, upto: int,
              payloads: Sequence[tuple[str, bytes]]) -> ScoringResult:
        """Score the payloads of one trace as revision ``revision``."""
        import time
        from dataclasses import replace

        from .. import __version__
        from ..core.evaluate import score_episode
        from ..emit.envelope import ScoreEnvelope, ScoreProvenance

        episode, spans = self.episode_of(trace_id, payloads)
        task = self.tasks.get(episode.task_id)
        if task is None:
            why = "no task id on the trace" if not episode.task_id else (
                f"task id {episode.task_id!r} is not in the gold file")
            return ScoringResult(trace_id, revision, upto, task_id=episode.task_id or None,
                                 matched=False, success=None, envelope=None, detail=why)
        level = self.options.get("level", "call")
        strategy = self.options.get("strategy", "optimal")
        score = score_episode(episode, task, level=level, strategy=strategy)
        score = replace(score, trace_id=trace_id, revision=revision)
        prov = episode.provenance
        root = prov.root_span_id if prov is not None and prov.root_span_id else spans[0].span_id
        envelope = ScoreEnvelope(
            trace_id=trace_id, root_span_id=root, task_id=task.task_id, score=score,
            provenance=ScoreProvenance(__version__, self.gold_sha256,
                                       {"level": level, "strategy": strategy}),
            revision=revision,
            evaluated_service=prov.service_name if prov is not None else None,
            scored_at_ns=time.time_ns())
        return ScoringResult(trace_id, revision, upto, task_id=task.task_id, matched=True,
                             success=bool(score.success), envelope=envelope.to_json())


_WORKER: dict = {}


def _worker_state(setup: ScoringSetup) -> tuple[Any, Any]:
    state = _WORKER.get(setup)
    if state is None:
        from .store import Store

        _WORKER.clear()
        state = (Store(setup.store_path, readonly=True), TraceScorer(setup.gold, setup.options))
        _WORKER[setup] = state
    return state


def score_trace(setup: ScoringSetup, trace_id: str, revision: int, upto: int) -> ScoringResult:
    """Worker entry point: read the trace's payloads (id ≤ ``upto``) and score them.

    Any error while building or scoring the episode is a property of the trace (it would
    fail again): it becomes an unmatched result carrying the error, so the trace is closed
    and reported rather than retried forever.
    """
    store, scorer = _worker_state(setup)
    payloads = store.payloads_for(trace_id, upto)
    try:
        return scorer.score(trace_id, revision, upto, payloads)
    except Exception as exc:  # noqa: BLE001 - recorded in the store, see docstring
        return ScoringResult(trace_id, revision, upto, task_id=None, matched=False,
                             success=None, envelope=None,
                             detail=f"scoring failed: {type(exc).__name__}: {exc}"[:2000])


def worker_init() -> None:
    """Initializer of scoring worker processes: lower priority than the receiver."""
    try:
        os.nice(5)
    except OSError:  # pragma: no cover - not permitted
        pass
