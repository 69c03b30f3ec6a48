"""The score envelope: everything needed to write one score back, without the episode.

The live server keeps a **durable outbox** of scores still to be exported; an envelope is one
row of it. It carries the ids of the evaluated trace and its root span, the
:class:`~ek_otel.core.scores.EpisodeScore`, the :class:`ScoreProvenance` (evaluator version,
gold-file hash, matcher settings), the revision (0 for the first score of a trace, +1 each
time late spans make it re-scored), and the evaluated service's name.
:meth:`ScoreEnvelope.to_json` / :meth:`ScoreEnvelope.from_json` round-trip it losslessly.

This module is pure: it knows no OTel, so the store can use it without the exporters.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> env = ScoreEnvelope(trace_id="ab" * 16, root_span_id="cd" * 8, task_id="t1",
    ...                     score=EpisodeScore("t1", trace_id="ab" * 16, f1=1.0, success=True),
    ...                     provenance=ScoreProvenance("0.1.0", "e3b0" * 16, {"level": "call"}),
    ...                     scored_at_ns=1)
    >>> ScoreEnvelope.from_json(env.to_json()) == env
    True
    >>> env.key
    ('abababababababababababababababab', 0)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Optional

from ..core.answer import ANSWER_METRIC
from ..core.episode import Cost
from ..core.fastinit import fast_init
from ..core.hardrules import Violation
from ..core.turns import TurnScore
from ..core.identity import EVALUATOR_NAME
from ..core.scores import ArgDiff, CallRow, EpisodeScore, Score
from .tagged_json import from_tagged, to_tagged

__all__ = ["EVALUATOR_NAME", "ENVELOPE_FORMAT", "ScoreProvenance", "ScoreEnvelope", "answer_envelope",
           "with_answers"]


#: Version of the JSON form written by :meth:`ScoreEnvelope.to_json`.
ENVELOPE_FORMAT = 1

_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
_SPAN_ID = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class ScoreProvenance:
    """Where a score came from, so that two scores can be called comparable or not.

    Args:
        evaluator_version: ``ek_otel.__version__`` of the evaluator that scored.
        gold_sha256: The SHA-256 (hex) of the gold file's bytes.
        matcher: The matcher settings (``matcher``, ``level``, ``strategy``,
            ``canonicalizer``, ...), written as ``ek.matcher.<key>`` attributes.

    Example:
        >>> ScoreProvenance("0.1.0", "00" * 32, {"level": "arg"}).matcher["level"]
        'arg'
    """

    evaluator_version: str
    gold_sha256: str = ""
    matcher: Mapping[str, Any] = field(default_factory=dict)


@fast_init  # one per episode: filled like a plain object (ek_otel.core.fastinit)
@dataclass(frozen=True)
class ScoreEnvelope:
    """One score, ready to be written back into the trace it scores.

    Args:
        trace_id: The evaluated trace (32 lowercase hex characters).
        root_span_id: The episode's root span (16 lowercase hex characters); the
            evaluation span is its child and the evaluation event points at it.
        task_id: The gold task the episode was scored against.
        score: The :class:`~ek_otel.core.scores.EpisodeScore`.
        provenance: The :class:`ScoreProvenance`.
        revision: 0 for the first score of a trace; +1 for each re-score after late spans.
        evaluated_service: ``service.name`` of the evaluated trace, when known.
        scored_at_ns: When the score was made (Unix ns), written as ``ek.scored_at``.
        response_id: ``gen_ai.response.id`` of the evaluated response, when known.
        root_end_ns: When the evaluated root span ended (Unix ns; 0 when unknown). The
            evaluation spans are placed there with zero duration, inside the trace's time
            window, so that a backend deriving a trace's duration from its spans sees the
            run's real duration; without it they fall back to ``scored_at_ns``.
        transcript: What the run did (``score --transcripts``:
            :func:`ek_otel.ingest.transcript.transcript_of`), for the JSON report only: never
            written back, left out of :meth:`to_json` and of equality.

    Raises:
        ValueError: for an id that is not lowercase hex of the right length, or a
            negative revision.

    Example:
        >>> ScoreEnvelope(trace_id="xyz", root_span_id="cd" * 8, task_id="t",
        ...               score=None, provenance=None)
        Traceback (most recent call last):
        ...
        ValueError: trace_id must be 32 lowercase hex characters, got 'xyz'
    """

    trace_id: str
    root_span_id: str
    task_id: str
    score: EpisodeScore
    provenance: ScoreProvenance
    revision: int = 0
    evaluated_service: Optional[str] = None
    scored_at_ns: int = 0
    response_id: Optional[str] = None
    root_end_ns: int = 0
    transcript: Optional[list] = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not _TRACE_ID.match(self.trace_id or "") or not self.trace_id.strip("0"):
            raise ValueError(f"trace_id must be 32 lowercase hex characters, got {self.trace_id!r}")
        if not _SPAN_ID.match(self.root_span_id or "") or not self.root_span_id.strip("0"):
            raise ValueError(
                f"root_span_id must be 16 lowercase hex characters, got {self.root_span_id!r}"
            )
        if self.revision < 0:
            raise ValueError(f"revision must be >= 0, got {self.revision}")

    @property
    def placed_at_ns(self) -> int:
        """Where in time the score's spans go: the root span's end, else the scoring time.

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...                     ScoreProvenance("0"), scored_at_ns=9, root_end_ns=5)
            >>> env.placed_at_ns, ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...                                 ScoreProvenance("0"), scored_at_ns=9).placed_at_ns
            (5, 9)
        """
        return self.root_end_ns if self.root_end_ns > 0 else self.scored_at_ns

    @property
    def key(self) -> tuple:
        """``(trace_id, revision)``: what identifies this score among all others.

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...               ScoreProvenance("0"), revision=2).key[1]
            2
        """
        return (self.trace_id, self.revision)

    def to_dict(self) -> dict:
        """Plain JSON data (tagged where plain JSON would lose a type); see :meth:`to_json`.

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> d = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...                   ScoreProvenance("0")).to_dict()
            >>> d["format"], d["score"]["cost"]["input_tokens"]
            (1, 0)
        """
        score = self.score
        return {
            "format": ENVELOPE_FORMAT,
            "trace_id": self.trace_id,
            "root_span_id": self.root_span_id,
            "task_id": self.task_id,
            "revision": self.revision,
            "evaluated_service": self.evaluated_service,
            "scored_at_ns": self.scored_at_ns,
            "response_id": self.response_id,
            "root_end_ns": self.root_end_ns,
            "provenance": {
                "evaluator_version": self.provenance.evaluator_version,
                "gold_sha256": self.provenance.gold_sha256,
                "matcher": to_tagged(dict(self.provenance.matcher)),
            },
            "score": _score_to_dict(score),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ScoreEnvelope":
        """Invert :meth:`to_dict`.

        Raises:
            ValueError: for data of another format or with missing fields.

        Example:
            >>> ScoreEnvelope.from_dict({"format": 99})
            Traceback (most recent call last):
            ...
            ValueError: unknown score envelope format 99 (this ek-otel reads format 1)
        """
        if data.get("format") != ENVELOPE_FORMAT:
            raise ValueError(
                f"unknown score envelope format {data.get('format')!r} "
                f"(this ek-otel reads format {ENVELOPE_FORMAT})"
            )
        try:
            prov = data["provenance"]
            return cls(
                trace_id=data["trace_id"],
                root_span_id=data["root_span_id"],
                task_id=data["task_id"],
                revision=int(data["revision"]),
                evaluated_service=data.get("evaluated_service"),
                scored_at_ns=int(data.get("scored_at_ns") or 0),
                response_id=data.get("response_id"),
                root_end_ns=int(data.get("root_end_ns") or 0),
                provenance=ScoreProvenance(
                    evaluator_version=prov["evaluator_version"],
                    gold_sha256=prov.get("gold_sha256", ""),
                    matcher=from_tagged(prov.get("matcher", {})),
                ),
                score=_score_from_dict(data["score"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a score envelope: missing or bad field {exc}") from exc

    def to_json(self) -> str:
        """One line of JSON that :meth:`from_json` turns back into an equal envelope.

        Example:
            >>> from ek_otel.core.scores import EpisodeScore
            >>> ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
            ...               ScoreProvenance("0")).to_json().startswith('{"format": 1')
            True
        """
        return json.dumps(self.to_dict(), allow_nan=False, separators=(", ", ": "))

    @classmethod
    def from_json(cls, text: str) -> "ScoreEnvelope":
        """Read an envelope written by :meth:`to_json`.

        Raises:
            ValueError: for text that is not a score envelope.

        Example:
            >>> ScoreEnvelope.from_json("[]")
            Traceback (most recent call last):
            ...
            ValueError: not a score envelope: expected a JSON object
        """
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a score envelope: expected a JSON object")
        return cls.from_dict(data)


_COST_FIELDS = tuple(f.name for f in fields(Cost))
_DIFF_FIELDS = tuple(f.name for f in fields(ArgDiff))
_ROW_FIELDS = tuple(f.name for f in fields(CallRow) if f.name != "agent")  # agent: when set
_SCALAR_SCORE_FIELDS = tuple(
    f.name
    for f in fields(EpisodeScore)
    if f.name not in {"arg_diffs", "missing_calls", "spurious_calls", "cost", "settings", "calls",
                      "answer", "violations", "turns"}
)


def _row_to_dict(row: CallRow) -> dict:
    out = {name: to_tagged(getattr(row, name)) for name in _ROW_FIELDS}
    if row.agent is not None:  # multi-agent runs only: other rows keep their bytes
        out["agent"] = row.agent
    return out


def _score_to_dict(score: EpisodeScore) -> dict:
    out: dict = {name: to_tagged(getattr(score, name)) for name in _SCALAR_SCORE_FIELDS}
    out["cost"] = {name: getattr(score.cost, name) for name in _COST_FIELDS}
    out["arg_diffs"] = [
        {name: to_tagged(getattr(diff, name)) for name in _DIFF_FIELDS} for diff in score.arg_diffs
    ]
    out["missing_calls"] = to_tagged(tuple(score.missing_calls))
    out["spurious_calls"] = to_tagged(tuple(score.spurious_calls))
    out["settings"] = to_tagged(dict(score.settings))
    if score.answer is not None:  # only then: scores without an answer keep their bytes
        out["answer"] = {"value": score.answer.value, "passed": bool(score.answer.detail.get("passed")),
                         "explanation": score.answer.explanation}
    out["calls"] = [_row_to_dict(row) for row in score.calls]
    if score.violations:  # only then, as answer
        out["violations"] = [v.to_dict() for v in score.violations]
    if score.turns:  # multi-turn tasks only
        out["turns"] = [t.to_dict() for t in score.turns]
    return out


def _score_from_dict(data: Mapping[str, Any]) -> EpisodeScore:
    kwargs: dict = {name: from_tagged(data[name]) for name in _SCALAR_SCORE_FIELDS if name in data}
    kwargs["cost"] = Cost(**{k: v for k, v in data.get("cost", {}).items() if k in _COST_FIELDS})
    kwargs["arg_diffs"] = tuple(
        ArgDiff(**{k: from_tagged(v) for k, v in diff.items() if k in _DIFF_FIELDS})
        for diff in data.get("arg_diffs", ())
    )
    kwargs["missing_calls"] = from_tagged(data.get("missing_calls", {"$tuple": []}))
    kwargs["spurious_calls"] = from_tagged(data.get("spurious_calls", {"$tuple": []}))
    kwargs["settings"] = from_tagged(data.get("settings", {}))
    kwargs["calls"] = tuple(
        CallRow(**{k: from_tagged(v) for k, v in row.items() if k in _ROW_FIELDS},
                agent=row.get("agent"))
        for row in data.get("calls", ())
    )
    if data.get("turns"):
        kwargs["turns"] = tuple(TurnScore.from_dict(t) for t in data["turns"])
    if data.get("violations"):
        kwargs["violations"] = tuple(Violation(str(v["kind"]), str(v["tool"]), str(v.get("detail", "")))
                                     for v in data["violations"])
    answer = data.get("answer")
    if answer is not None:
        kwargs["answer"] = Score(float(answer["value"]), metric=ANSWER_METRIC,
                                 detail={"passed": bool(answer["passed"])},
                                 explanation=answer.get("explanation", ""))
    return EpisodeScore(**kwargs)


def answer_envelope(envelope: "ScoreEnvelope") -> Optional["ScoreEnvelope"]:
    """The envelope of an episode's answer score (metric ``answer``, written back as
    ``ek.answer`` beside ``ek.tool_call``), or None when its task expects no answer.

    Example:
        >>> s = EpisodeScore("t", answer=Score(1.0, metric="answer", detail={"passed": True},
        ...                                       explanation="answer: contains 'ok', got 'ok'"))
        >>> a = answer_envelope(ScoreEnvelope("ab" * 16, "cd" * 8, "t", s, ScoreProvenance("0")))
        >>> a.score.metric, a.score.success, a.score.f1, a.score.explanation
        ('answer', True, 1.0, "answer: contains 'ok', got 'ok'")
    """
    answer = envelope.score.answer
    if answer is None:
        return None
    passed = bool(answer.detail.get("passed"))
    score = EpisodeScore(envelope.task_id, trace_id=envelope.score.trace_id, metric=ANSWER_METRIC,
                         precision=answer.value, recall=answer.value, f1=answer.value, exact=passed,
                         success=passed, explanation=answer.explanation, cost=envelope.score.cost,
                         dollars=envelope.score.dollars, revision=envelope.score.revision)
    return replace(envelope, score=score)


def with_answers(envelopes: Iterable["ScoreEnvelope"]) -> Iterator["ScoreEnvelope"]:
    """Each envelope, followed by its answer envelope when its task expects an answer (what
    every sink writes back).

    Example:
        >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"), ScoreProvenance("0"))
        >>> [e.score.metric for e in with_answers([env])]
        ['tool_call']
    """
    for envelope in envelopes:
        yield envelope
        if envelope.score.answer is not None:
            yield answer_envelope(envelope)
