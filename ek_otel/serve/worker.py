"""The scoring worker's entry points: one closed trace, from raw payloads to a score.

Payloads → records (deduplicated by span id) → episode → score.

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
    "envelope_json",
    "score_trace",
    "score_traces",
    "worker_init",
    "warm_up",
]


@dataclass(frozen=True)
class ScoringSetup:
    """What a scoring worker needs to know (picklable: sent to worker processes).

    ``settings`` is the :class:`~ek_otel.scoring.settings.ScoreSettings` of the command line
    as JSON (``""``: the defaults for the gold file). ``encodings`` are ``(sink name,
    Encoding)`` pairs (:mod:`ek_otel.emit.prepared`): each score is also encoded for those
    sinks here, so the receiver's outbox only frames and sends the bytes.
    """

    store_path: str
    gold: str
    settings: str = ""
    encodings: tuple = ()


@dataclass(frozen=True)
class ScoringResult:
    """The outcome of scoring one revision of one trace (what the store records).

    ``comparability`` is the episode's ``RunProvenance.comparability_key()`` as a list (the
    report groups runs by it, as ``ek-otel score`` does). ``prepared`` holds ``(sink name,
    bytes)``: the score encoded for that sink, zstd-packed (:func:`~ek_otel.serve.payload.pack_payload`;
    a sink left out encodes it when sending).
    """

    trace_id: str
    revision: int
    upto: int
    task_id: Optional[str]
    matched: bool
    success: Optional[bool]
    envelope: Optional[str]
    detail: Optional[str] = None
    comparability: Optional[str] = None
    prepared: tuple = ()


def decode_trace(payloads: Sequence[tuple[str, bytes]]) -> tuple[list, list]:
    """Decode stored ``(signal, data)`` payloads into spans (deduplicated by span id) and logs.

    The first copy of a span wins; a payload that cannot be decoded is skipped (it was
    checked on arrival, so this only happens to a store written by another version).

    Example:
        >>> decode_trace([("traces", b""), ("logs", b"")])
        ([], [])
    """
    from ..errors import DecodeError
    from ..ingest.formats import LOGS, PROTOBUF, TRACES
    from ..ingest.otlp import decode

    spans: list = []
    logs: list = []
    seen: set = set()
    for signal, data in payloads:
        try:
            if signal == "traces":
                for span in decode(data, PROTOBUF, signal=TRACES):
                    if span.span_id not in seen:
                        seen.add(span.span_id)
                        spans.append(span)
            else:
                logs.extend(decode(data, PROTOBUF, signal=LOGS))
        except DecodeError:
            continue
    return spans, logs


class TraceScorer:
    """Builds and scores the episode of one trace against the gold tasks, with the same
    :func:`~ek_otel.scoring.link.score_and_envelope` as ``ek-otel score``.

    Args:
        gold: The gold task file.
        settings: The scoring settings as JSON (see :class:`ScoringSetup`).
        encodings: ``(sink name, Encoding)`` pairs each score is prepared for.
    """

    def __init__(self, gold: str, settings: str = "", encodings: tuple = ()):
        from ..scoring.link import load_scoring

        self.gold = gold
        self.tasks, self.settings = load_scoring(gold, settings)
        self.encodings = tuple(encodings)

    def episode_of(self, trace_id: str, payloads: Sequence[tuple[str, bytes]]) -> Any:
        """The episode of one trace's stored payloads."""
        from ..ingest.episodes import build_episode

        spans, logs = decode_trace(payloads)
        return build_episode(spans, logs, task_id_keys=self.settings.task_id_keys,
                             source=f"otlp:{trace_id}",
                             read_request=self.settings.link_by == "input")

    def score(self, trace_id: str, revision: int, upto: int,
              payloads: Sequence[tuple[str, bytes]]) -> ScoringResult:
        """Score the payloads of one trace as revision ``revision``, with its :meth:`prepare`
        bytes."""
        result, envelope = self.score_unprepared(trace_id, revision, upto, payloads)
        return self.prepare_all([result], [envelope])[0]

    def score_unprepared(self, trace_id: str, revision: int, upto: int,
                         payloads: Sequence[tuple[str, bytes]]) -> tuple:
        """``(result, envelope)``: :meth:`score` without the prepared bytes, and the score's
        envelope (None when unmatched) to prepare them from (:meth:`prepare_all`)."""
        import json

        from ..core.episode import RunProvenance
        from ..scoring.link import Unmatched, score_and_envelope

        episode = self.episode_of(trace_id, payloads)
        run = getattr(episode, "run", None) or RunProvenance()
        comparability = json.dumps(list(run.comparability_key()))
        outcome = score_and_envelope(episode, self.tasks, self.settings, revision=revision)
        if isinstance(outcome, Unmatched):
            return ScoringResult(trace_id, revision, upto, task_id=outcome.task_id or None,
                                 matched=False, success=None, envelope=None,
                                 detail=outcome.reason, comparability=comparability), None
        return ScoringResult(trace_id, revision, upto, task_id=outcome.task_id, matched=True,
                             success=bool(outcome.score.success),
                             envelope=envelope_json(outcome), comparability=comparability), outcome

    def prepare_all(self, results: Sequence[ScoringResult], envelopes: Sequence[Any]) -> list:
        """``results`` with the :meth:`prepare` bytes of their ``envelopes`` (None: not
        matched), the SDK's requests made once for all of them (one job of the scheduler).

        Example:
            >>> scorer = TraceScorer.__new__(TraceScorer); scorer.encodings = ()
            >>> scorer.prepare_all([], [])
            []
        """
        import dataclasses

        from ..emit.prepared import encode_scores
        from .payload import pack_payload

        matched = [(i, e) for i, e in enumerate(envelopes) if e is not None]
        if not self.encodings or not matched:
            return list(results)
        out = list(results)
        try:
            made = encode_scores([encoding for _, encoding in self.encodings],
                                 [e for _, e in matched])
            prepared = [tuple((name, pack_payload(data))
                              for (name, _), data in zip(self.encodings, row)) for row in made]
        except Exception:  # noqa: BLE001 - then one by one: the others may work
            prepared = [self.prepare(e) for _, e in matched]
        for (i, _), p in zip(matched, prepared):
            out[i] = dataclasses.replace(out[i], prepared=p)
        return out

    def prepare(self, envelope: Any) -> tuple:
        """``(sink name, bytes)`` of the score encoded for each sink that takes prepared
        scores, packed as payloads are (:func:`~ek_otel.serve.payload.pack_payload`: a
        quarter of the bytes to commit); a sink whose encoding fails is left out (its outbox
        encodes the envelope, and reports the failure as it always did).

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
            >>> from ek_otel.emit.prepared import Encoding
            >>> scorer = TraceScorer.__new__(TraceScorer)
            >>> scorer.encodings = (("file", Encoding("json")),)
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
            >>> [name for name, _ in scorer.prepare(env)], scorer.prepare("not a score")
            (['file'], ())
        """
        from ..emit.prepared import encode_score, encode_scores
        from .payload import pack_payload

        try:  # the SDK's requests made once for all the sinks
            (made,) = encode_scores([encoding for _, encoding in self.encodings], [envelope])
            return tuple((name, pack_payload(data))
                         for (name, _), data in zip(self.encodings, made))
        except Exception:  # noqa: BLE001 - then each alone: the others may work
            pass
        prepared = []
        for name, encoding in self.encodings:
            try:
                prepared.append((name, pack_payload(encode_score(encoding, envelope))))
            except Exception:  # noqa: BLE001 - the outbox meets the same error, and says it
                continue
        return tuple(prepared)


def envelope_json(envelope: Any) -> str:
    """The stored text of a :class:`~ek_otel.emit.envelope.ScoreEnvelope`: what its
    ``to_json()`` writes, as data (``from_json`` reads back an equal envelope), encoded by
    orjson, about ten times faster than the stdlib for a score with its call table.

    Whatever orjson would write differently from the stdlib's data falls back to
    ``to_json()``: an integer beyond 64 bits or a string with a lone surrogate (orjson
    refuses them), a NaN or infinite cost (the stdlib refuses it: the scoring fails, as in
    ``ek-otel score``; orjson would write null).

    Example:
        >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
        >>> from ek_otel.core.scores import EpisodeScore
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t", f1=0.5),
        ...                     ScoreProvenance("0"))
        >>> ScoreEnvelope.from_json(envelope_json(env)) == env
        True
        >>> import json; json.loads(envelope_json(env)) == json.loads(env.to_json())
        True
    """
    import math

    import orjson

    data = envelope.to_dict()
    if all(type(v) is not float or math.isfinite(v) for v in data["score"]["cost"].values()):
        try:
            return orjson.dumps(data).decode()
        except (orjson.JSONEncodeError, TypeError):
            pass
    return envelope.to_json()


_WORKER: dict = {}


def _worker_state(setup: ScoringSetup) -> tuple[Any, Any]:
    state = _WORKER.get(setup)
    if state is None:
        from .store import Store

        _WORKER.clear()
        state = (Store(setup.store_path, readonly=True),
                 TraceScorer(setup.gold, setup.settings, setup.encodings))
        _WORKER[setup] = state
    return state


def score_trace(setup: ScoringSetup, trace_id: str, revision: int, upto: int) -> ScoringResult:
    """Worker entry point: read the trace's payloads (id ≤ ``upto``) and score them.

    Any error while building or scoring the episode is a property of the trace (it would
    fail again): it becomes an unmatched result carrying the error, so the trace is closed
    and reported rather than retried forever.
    """
    return score_traces(setup, ((trace_id, revision, upto),))[0]


def score_traces(setup: ScoringSetup, items: tuple) -> list:
    """Worker entry point for a batch of ``(trace_id, revision, upto)``: one result each
    (see :func:`score_trace`), their scores prepared for the sinks at once
    (:meth:`TraceScorer.prepare_all`)."""
    store, scorer = _worker_state(setup)
    outcomes = []
    for trace_id, revision, upto in items:
        payloads = store.payloads_for(trace_id, upto)
        try:
            outcomes.append(scorer.score_unprepared(trace_id, revision, upto, payloads))
        except Exception as exc:  # noqa: BLE001 - recorded in the store, see score_trace
            outcomes.append((ScoringResult(
                trace_id, revision, upto, task_id=None, matched=False, success=None,
                envelope=None, detail=f"scoring failed: {type(exc).__name__}: {exc}"[:2000]),
                None))
    return scorer.prepare_all([r for r, _ in outcomes], [e for _, e in outcomes])


def warm_up(setup: ScoringSetup) -> int:
    """Worker entry point run once per worker when the pool starts: import the scoring code
    and load the gold file now, while the first spans arrive, not after the first trace is
    due (a spawned worker takes about half a second to get ready). Returns the pid.
    """
    from ..ingest import episodes, otlp  # noqa: F401  (imported for their cost, now)

    _, scorer = _worker_state(setup)
    try:  # an empty run: what scoring imports on its way (the matcher, the envelope, orjson)
        scorer.score("0" * 32, 0, 0, [])
        if scorer.encodings:  # and what preparing a score imports (the OTel SDK)
            from ..emit import prepared  # noqa: F401
            from ..emit import encode  # noqa: F401
    except Exception:  # noqa: BLE001 - only a warm-up; a real failure shows when scoring
        pass
    return os.getpid()


def worker_init() -> None:
    """Initializer of scoring worker processes: lower priority than the receiver, and exit
    when the server is gone.

    A server killed with SIGKILL cannot stop its pool, and a worker waiting for its next job
    never learns (its siblings hold the job queue's write end open): it would wait forever.
    So a daemon thread watches the parent pid.
    """
    try:
        os.nice(5)
    except OSError:  # pragma: no cover - not permitted
        pass
    import threading

    parent = os.getppid()
    threading.Thread(target=_exit_with_parent, args=(parent,), name="ek-otel-parent-watch",
                     daemon=True).start()


def _exit_with_parent(parent: int, period_s: float = 1.0) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(period_s)
    os._exit(0)
