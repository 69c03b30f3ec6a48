"""ek-otel: score AI agents from their OpenTelemetry traces.

The public names below are imported on first use (``import ek_otel`` stays cheap: it loads
neither the OpenTelemetry SDK nor a receiver); ``ek_otel.<name>`` and
``from ek_otel import <name>`` work as usual.

Example:
    >>> from ek_otel import Step, ToolCallMetric
    >>> ToolCallMetric()([Step("search", {"q": "cats"})], [("search", {"q": "cats"})]).f1
    1.0
"""

from __future__ import annotations

import importlib
from typing import Any

from ._version import __version__

#: Public name -> the module that defines it.
_EXPORTS: dict = {
    "DEFAULT_TASK_VALUE": ".core.episode",
    "DESTRUCTIVE_WEIGHT": ".core.episode",
    "AnyOf": ".core.episode",
    "Cost": ".core.episode",
    "Episode": ".core.episode",
    "Provenance": ".core.episode",
    "RunProvenance": ".core.episode",
    "Step": ".core.episode",
    "TaskSpec": ".core.episode",
    "ToolSpec": ".core.episode",
    "Trajectory": ".core.episode",
    "as_call": ".core.episode",
    "is_episode": ".core.episode",
    "suite_grammar": ".core.episode",
    "tool_grammar": ".core.episode",
    "FieldSpec": ".core.grammar",
    "GraphGrammar": ".core.grammar",
    "NodeType": ".core.grammar",
    "Score": ".core.scores",
    "ArgDiff": ".core.scores",
    "EpisodeScore": ".core.scores",
    "EkOtelError": ".errors",
    "GoldFileError": ".errors",
    "InputError": ".errors",
    "PricingError": ".errors",
    "ComparabilityError": ".errors",
    "FieldMetric": ".core.fields",
    "values_match": ".core.fields",
    "CallAlignment": ".core.toolcalls",
    "ToolCallMetric": ".core.toolcalls",
    "align_calls": ".core.toolcalls",
    "match_calls": ".core.toolcalls",
    "ModelPrice": ".core.cost",
    "PriceTable": ".core.cost",
    "dollars": ".core.cost",
    "LLMTestCase": ".core.correctness",
    "ModelTestCase": ".core.correctness",
    "ToolCall": ".core.correctness",
    "ToolCallParams": ".core.correctness",
    "ToolCorrectnessMetric": ".core.correctness",
    "TrajectoryMetric": ".core.trajectory",
    "trajectory_similarity": ".core.trajectory",
    "EvaluationReport": ".core.reports",
    "aggregate_scores": ".core.aggregate",
    "evaluate": ".scoring.run",
    "pass_at_k": ".core.evaluate",
    "pass_hat_k": ".core.evaluate",
    "score_episode": ".core.evaluate",
    "task_verdict": ".core.verdicts",
    "headline_of": ".core.verdicts",
    "GoldValidation": ".gold.native",
    "dump_tasks": ".gold.native",
    "load_tasks": ".gold.native",
    "task_from_dict": ".gold.native",
    "task_to_dict": ".gold.native",
    "validate_file": ".gold.native",
    "PricingFile": ".gold.pricing",
    "load_pricing": ".gold.pricing",
    "read_pricing": ".gold.pricing",
    "DEFAULT_TASK_ID_KEYS": ".ingest.episodes",
    "build_episode": ".ingest.episodes",
    "build_episodes": ".ingest.episodes",
    "ScoreEnvelope": ".emit.envelope",
    "ScoreProvenance": ".emit.envelope",
    "ScoreRun": ".scoring",
    "ScoreSettings": ".scoring",
    "Unmatched": ".scoring",
    "score_and_envelope": ".scoring",
    "score_episodes": ".scoring",
    "score_dump": ".pipeline",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # once: later lookups do not come here
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "__version__",
    "DEFAULT_TASK_VALUE",
    "DESTRUCTIVE_WEIGHT",
    "AnyOf",
    "Cost",
    "Episode",
    "Provenance",
    "RunProvenance",
    "Step",
    "TaskSpec",
    "ToolSpec",
    "Trajectory",
    "as_call",
    "is_episode",
    "suite_grammar",
    "tool_grammar",
    "FieldSpec",
    "GraphGrammar",
    "NodeType",
    "Score",
    "EkOtelError",
    "GoldFileError",
    "InputError",
    "PricingError",
    "ArgDiff",
    "EpisodeScore",
    "FieldMetric",
    "values_match",
    "CallAlignment",
    "ToolCallMetric",
    "align_calls",
    "match_calls",
    "ModelPrice",
    "PriceTable",
    "dollars",
    "LLMTestCase",
    "ModelTestCase",
    "ToolCall",
    "ToolCallParams",
    "ToolCorrectnessMetric",
    "TrajectoryMetric",
    "trajectory_similarity",
    "EvaluationReport",
    "aggregate_scores",
    "evaluate",
    "pass_at_k",
    "pass_hat_k",
    "score_episode",
    "task_verdict",
    "headline_of",
    "ComparabilityError",
    "GoldValidation",
    "dump_tasks",
    "load_tasks",
    "task_from_dict",
    "task_to_dict",
    "validate_file",
    "PricingFile",
    "load_pricing",
    "read_pricing",
    "DEFAULT_TASK_ID_KEYS",
    "build_episode",
    "build_episodes",
    "ScoreEnvelope",
    "ScoreProvenance",
    "ScoreRun",
    "ScoreSettings",
    "Unmatched",
    "score_and_envelope",
    "score_dump",
    "score_episodes",
]
