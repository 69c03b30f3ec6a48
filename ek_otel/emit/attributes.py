"""The attributes a score is written back with: every name is defined here, once.

Three carriers, one set of values (see ``docs/ARCHITECTURE.md``, "Scores written back"):

- the ``gen_ai.evaluation.result`` **event** (:func:`event_attributes`): the four semconv
  attributes, plus the task id, revision and provenance so the event stands on its own;
- the **evaluation span** (:func:`span_attributes`): the same, with
  ``gen_ai.operation.name="evaluation"`` and the full ``ek.*`` detail;
- the optional OpenInference **EVALUATOR span** (:func:`phoenix_attributes`).

Everything written by ek-otel carries the resource ``service.name="ek-otel"`` and the scope
:data:`SCOPE_NAME`; :func:`~ek_otel.ingest.own_output.is_own_output` lets a receiver that also sees ek-otel's own output
(e.g. a Collector fanning out to both) skip it instead of re-scoring the trace forever.

This module is pure (no OTel imports): values are str, bool, int or float.

Example:
    >>> from ek_otel.core.scores import EpisodeScore
    >>> from ek_otel.emit.envelope import ScoreEnvelope, ScoreProvenance
    >>> env = ScoreEnvelope("ab" * 16, "cd" * 8, "t1",
    ...                     EpisodeScore("t1", tp=2.0, fn=1.0, precision=1.0, recall=2 / 3,
    ...                                  f1=0.8),
    ...                     ScoreProvenance("0.1.0", "ff" * 32, {"level": "call"}))
    >>> attrs = span_attributes(env)
    >>> attrs["gen_ai.evaluation.name"], attrs["gen_ai.evaluation.score.label"]
    ('ek.tool_call', 'fail')
    >>> attrs["ek.fn"], attrs["ek.matcher.level"], attrs["ek.revision"]
    (1.0, 'call', 0)
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from ..core.episode import AnyOf, as_call
from ..core.rules import Rule
from ..core.scores import EpisodeScore
from ..core.identity import EVALUATOR_NAME, SCOPE_NAME, SERVICE_NAME
from .envelope import ScoreEnvelope

__all__ = [
    "EVENT_NAME",
    "OPERATION_NAME",
    "SERVICE_NAME",
    "SCOPE_NAME",
    "evaluation_name",
    "score_value",
    "explanation",
    "span_name",
    "result_attributes",
    "event_attributes",
    "span_attributes",
    "phoenix_attributes",
    "annotation_metadata",
    "iso_time",
]

#: The event name of a semconv evaluation result (a log record's ``event_name``).
EVENT_NAME = "gen_ai.evaluation.result"
#: ``gen_ai.operation.name`` of the evaluation span (proposed in semantic-conventions-genai #79).
OPERATION_NAME = "evaluation"
#: Metrics whose score value is a pass/fail verdict (1.0 or 0.0), not the F1.
VERDICT_METRICS = frozenset({"bfcl", "answer"})

# semconv names
EVALUATION_NAME = "gen_ai.evaluation.name"
SCORE_VALUE = "gen_ai.evaluation.score.value"
SCORE_LABEL = "gen_ai.evaluation.score.label"
EXPLANATION = "gen_ai.evaluation.explanation"
RESPONSE_ID = "gen_ai.response.id"
OPERATION = "gen_ai.operation.name"


def evaluation_name(score: EpisodeScore) -> str:
    """``gen_ai.evaluation.name``: ``ek.<metric>`` (``ek.tool_call``, ``ek.bfcl``, ...).

    Example:
        >>> evaluation_name(EpisodeScore("t", metric="bfcl"))
        'ek.bfcl'
    """
    return f"ek.{score.metric}"


def score_value(score: EpisodeScore) -> float:
    """``gen_ai.evaluation.score.value``: the F1, or 1.0/0.0 for a pass/fail verdict (``bfcl``,
    and an episode whose F1 is undefined: no call expected and none made, a success).

    Example:
        >>> score_value(EpisodeScore("t", f1=0.5)), score_value(EpisodeScore("t", metric="bfcl",
        ...                                                                   f1=0.5, success=True))
        (0.5, 1.0)
        >>> score_value(EpisodeScore("t", precision=None, recall=None, f1=None, success=True))
        1.0
    """
    if score.metric in VERDICT_METRICS or score.f1 is None:
        return 1.0 if score.success else 0.0
    return float(score.f1)


def explanation(score: EpisodeScore) -> str:
    """The score's own explanation, else one line built from its counts and call lists.

    Example:
        >>> explanation(EpisodeScore("t", tp=1.0, fp=1.0, fn=0.0, f1=0.67,
        ...                          spurious_calls=(("cancel", {}),)))
        'F1 0.67 (tp 1, fp 1, fn 0); spurious: cancel'
    """
    if score.explanation:
        return score.explanation
    f1 = "n/a" if score.f1 is None else f"{score.f1:.2f}"
    parts = [f"F1 {f1} (tp {score.tp:g}, fp {score.fp:g}, fn {score.fn:g})"]
    if score.missing_calls:
        parts.append("missing: " + ", ".join(_call_name(c) for c in score.missing_calls))
    if score.spurious_calls:
        parts.append("spurious: " + ", ".join(_call_name(c) for c in score.spurious_calls))
    if score.arg_diffs:
        parts.append(
            "argument diffs: " + ", ".join(f"{d.tool}.{d.arg} {d.kind}" for d in score.arg_diffs)
        )
    return "; ".join(parts)


def span_name(envelope: ScoreEnvelope) -> str:
    """The evaluation span's name, ``"{operation} {evaluation name}"`` as GenAI spans do.

    Example:
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> span_name(ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
        ...                         ScoreProvenance("0")))
        'evaluation ek.tool_call'
    """
    return f"{OPERATION_NAME} {evaluation_name(envelope.score)}"


def result_attributes(envelope: ScoreEnvelope) -> dict:
    """The semconv ``gen_ai.evaluation.*`` attributes (+ ``gen_ai.response.id`` when known).

    Example:
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> a = result_attributes(ScoreEnvelope("ab" * 16, "cd" * 8, "t",
        ...                       EpisodeScore("t", f1=1.0, success=True), ScoreProvenance("0"),
        ...                       response_id="chatcmpl-1"))
        >>> a["gen_ai.evaluation.score.value"], a["gen_ai.evaluation.score.label"], a[RESPONSE_ID]
        (1.0, 'pass', 'chatcmpl-1')
    """
    score = envelope.score
    attrs: dict = {
        EVALUATION_NAME: evaluation_name(score),
        SCORE_VALUE: score_value(score),
        SCORE_LABEL: score.label,
        EXPLANATION: explanation(score),
    }
    if envelope.response_id:
        attrs[RESPONSE_ID] = envelope.response_id
    return attrs


def _provenance_attributes(envelope: ScoreEnvelope) -> dict:
    prov = envelope.provenance
    attrs: dict = {
        "ek.task.id": envelope.task_id,
        "ek.revision": int(envelope.revision),
        "ek.evaluator.name": EVALUATOR_NAME,
        "ek.evaluator.version": prov.evaluator_version,
        "ek.gold.sha256": prov.gold_sha256,
    }
    for key, value in sorted(prov.matcher.items()):
        attrs[f"ek.matcher.{key}"] = _scalar(value)
    if envelope.evaluated_service:
        attrs["ek.evaluated.service.name"] = envelope.evaluated_service
    if envelope.scored_at_ns > 0:
        attrs["ek.scored_at"] = iso_time(envelope.scored_at_ns)
    return attrs


def iso_time(unix_ns: int) -> str:
    """A Unix time in ns as ISO 8601 UTC with microseconds (``ek.scored_at``).

    The evaluation spans sit at the evaluated root span's end (so the trace keeps its
    duration); when the score was really made is this attribute.

    Example:
        >>> iso_time(1_764_460_800_123_456_789)
        '2025-11-30T00:00:00.123456Z'
    """
    seconds, ns = divmod(int(unix_ns), 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{ns // 1000:06d}Z"


def event_attributes(envelope: ScoreEnvelope) -> dict:
    """Attributes of the ``gen_ai.evaluation.result`` event: semconv + id + provenance.

    Example:
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> a = event_attributes(ScoreEnvelope("ab" * 16, "cd" * 8, "t", EpisodeScore("t"),
        ...                      ScoreProvenance("0.1.0", "aa" * 32), revision=1))
        >>> a["ek.task.id"], a["ek.revision"], a["ek.evaluator.version"]
        ('t', 1, '0.1.0')
    """
    return {**result_attributes(envelope), **_provenance_attributes(envelope)}


def span_attributes(envelope: ScoreEnvelope) -> dict:
    """Attributes of the evaluation span: the event's, plus the full ``ek.*`` detail.

    Detail: ``ek.tp``/``ek.fp``/``ek.fn``, ``ek.precision``/``ek.recall``/``ek.f1``,
    ``ek.exact``, ``ek.success``, ``ek.level``, ``ek.cost.*`` (tokens, retries, latency),
    ``ek.dollars`` (when priced), and JSON strings ``ek.arg_diffs``, ``ek.missing_calls``,
    ``ek.spurious_calls``.

    Example:
        >>> from ek_otel.core.scores import ArgDiff
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> s = EpisodeScore("t", arg_diffs=(ArgDiff("f", "x", "wrong_value", (1,), 2),),
        ...                  missing_calls=(("g", {"y": 1}),), dollars=0.25)
        >>> a = span_attributes(ScoreEnvelope("ab" * 16, "cd" * 8, "t", s, ScoreProvenance("0")))
        >>> a["gen_ai.operation.name"], a["ek.dollars"], a["ek.missing_calls"]
        ('evaluation', 0.25, '[{"tool": "g", "args": {"y": 1}}]')
        >>> json.loads(a["ek.arg_diffs"])[0]["expected"]
        [1]
    """
    score = envelope.score
    attrs = {OPERATION: OPERATION_NAME, **event_attributes(envelope)}
    attrs.update(
        {
            "ek.level": score.level,
            "ek.tp": float(score.tp),
            "ek.fp": float(score.fp),
            "ek.fn": float(score.fn),
        }
    )
    for name in ("precision", "recall", "f1"):  # left out where undefined (no call predicted
        value = getattr(score, name)            # / expected): an attribute has no null
        if value is not None:
            attrs[f"ek.{name}"] = float(value)
    attrs["ek.exact"] = bool(score.exact)
    attrs["ek.success"] = bool(score.success)
    cost = score.cost
    attrs.update(
        {
            "ek.cost.input_tokens": int(cost.input_tokens),
            "ek.cost.output_tokens": int(cost.output_tokens),
            "ek.cost.cached_input_tokens": int(cost.cached_input_tokens),
            "ek.cost.reasoning_tokens": int(cost.reasoning_tokens),
            "ek.cost.total_tokens": int(cost.total_tokens),
            "ek.cost.retries": int(cost.retries),
        }
    )
    if cost.latency_s is not None:
        attrs["ek.cost.latency_s"] = float(cost.latency_s)
    if score.dollars is not None:
        attrs["ek.dollars"] = float(score.dollars)
    attrs["ek.arg_diffs"] = _json(
        [
            {"tool": d.tool, "arg": d.arg, "kind": d.kind, "expected": d.expected,
             "got": d.got, "weight": d.weight}
            for d in score.arg_diffs
        ]
    )
    attrs["ek.missing_calls"] = _json([_call_dict(c) for c in score.missing_calls])
    attrs["ek.spurious_calls"] = _json([_call_dict(c) for c in score.spurious_calls])
    return attrs


def phoenix_attributes(envelope: ScoreEnvelope) -> dict:
    """OpenInference attributes of an EVALUATOR carrier span (Phoenix's post-hoc form).

    The span holding them is a child of the evaluated root span with exactly one Link to it;
    ``ek.evaluated.span_id`` names the root too, for backends that drop links (Phoenix does).

    Example:
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> a = phoenix_attributes(ScoreEnvelope("ab" * 16, "cd" * 8, "t",
        ...                        EpisodeScore("t", f1=0.5), ScoreProvenance("0")))
        >>> a["openinference.span.kind"], a["evaluations.0.evaluation.score"]
        ('EVALUATOR', 0.5)
        >>> a["evaluations.0.evaluation.annotator_kind"]
        'CODE'
    """
    score = envelope.score
    prefix = "evaluations.0.evaluation."
    attrs = {"ek.scored_at": iso_time(envelope.scored_at_ns)} if envelope.scored_at_ns > 0 else {}
    return {
        **attrs,
        "openinference.span.kind": "EVALUATOR",
        "ek.evaluated.trace_id": envelope.trace_id,
        "ek.evaluated.span_id": envelope.root_span_id,
        prefix + "name": evaluation_name(score),
        prefix + "score": score_value(score),
        prefix + "label": score.label,
        prefix + "explanation": explanation(score),
        prefix + "annotator_kind": "CODE",
        # one identifier per evaluator, not per revision: a re-score replaces the annotation
        prefix + "identifier": EVALUATOR_NAME,
        prefix + "metadata": _json(annotation_metadata(envelope)),
    }


def annotation_metadata(envelope: ScoreEnvelope) -> dict:
    """The metadata of a score written as an annotation (Phoenix, the EVALUATOR span).

    The counts (tp/fp/fn), the cost, the dollars and the score's provenance: what a user
    filtering annotations needs without opening the evaluation span.

    Example:
        >>> from ek_otel.emit.envelope import ScoreProvenance
        >>> m = annotation_metadata(ScoreEnvelope("ab" * 16, "cd" * 8, "t",
        ...                         EpisodeScore("t", tp=2.0, dollars=0.01),
        ...                         ScoreProvenance("0.1.0", "ff" * 32, {"level": "call"})))
        >>> m["tp"], m["dollars"], m["matcher"], m["evaluator"]
        (2.0, 0.01, {'level': 'call'}, 'ek-otel')
    """
    score = envelope.score
    cost = score.cost
    meta: dict = {
        "task_id": envelope.task_id,
        "revision": envelope.revision,
        "tp": float(score.tp),
        "fp": float(score.fp),
        "fn": float(score.fn),
        "precision": None if score.precision is None else float(score.precision),
        "recall": None if score.recall is None else float(score.recall),
        "exact": bool(score.exact),
        "level": score.level,
        "cost": {
            "input_tokens": int(cost.input_tokens),
            "output_tokens": int(cost.output_tokens),
            "cached_input_tokens": int(cost.cached_input_tokens),
            "reasoning_tokens": int(cost.reasoning_tokens),
            "retries": int(cost.retries),
            "latency_s": None if cost.latency_s is None else float(cost.latency_s),
        },
        "dollars": None if score.dollars is None else float(score.dollars),
        "evaluator": EVALUATOR_NAME,
        "evaluator_version": envelope.provenance.evaluator_version,
        "gold_sha256": envelope.provenance.gold_sha256,
        "matcher": json.loads(_json(dict(envelope.provenance.matcher))),
    }
    if envelope.scored_at_ns > 0:
        meta["scored_at"] = iso_time(envelope.scored_at_ns)
    if envelope.evaluated_service:
        meta["evaluated_service"] = envelope.evaluated_service
    return meta


def _call_name(call: Any) -> str:
    try:
        return as_call(call)[0]
    except TypeError:
        return str(call)


def _call_dict(call: Any) -> dict:
    try:
        tool, args = as_call(call)
    except TypeError:
        return {"tool": str(call), "args": {}}
    return {"tool": tool, "args": args}


def _json_default(value: Any) -> Any:
    if isinstance(value, AnyOf):
        return {"any_of": list(value.values)}
    if isinstance(value, Rule):
        return value.to_dict()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return repr(value)


def _json(value: Any) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False)


def _scalar(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)):
        return value
    if value is None:
        return ""
    return _json(value)
