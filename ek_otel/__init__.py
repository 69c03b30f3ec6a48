"""ek-otel: score AI agents from their OpenTelemetry traces.

Example:
    >>> from ek_otel import Step, ToolCallMetric
    >>> ToolCallMetric()([Step("search", {"q": "cats"})], [("search", {"q": "cats"})]).f1
    1.0
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("ek-otel")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

from .core.episode import (
    DEFAULT_TASK_VALUE,
    DESTRUCTIVE_WEIGHT,
    AnyOf,
    Cost,
    Episode,
    Provenance,
    RunProvenance,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
    as_call,
    is_episode,
    suite_grammar,
    tool_grammar,
)
from .core.grammar import FieldSpec, GraphGrammar, NodeType, Score
from .errors import EkOtelError, GoldFileError, InputError, PricingError

# PUBLIC-API-BELOW: each stage appends its public imports here (keep one import per module).
from .core.scores import ArgDiff, EpisodeScore
from .core.fields import FieldMetric, values_match
from .core.toolcalls import CallAlignment, ToolCallMetric, align_calls, match_calls
from .core.cost import ModelPrice, PriceTable, dollars
from .core.correctness import (
    LLMTestCase,
    ModelTestCase,
    ToolCall,
    ToolCallParams,
    ToolCorrectnessMetric,
)
from .core.trajectory import TrajectoryMetric, trajectory_similarity
from .core.evaluate import (
    EvaluationReport,
    aggregate_scores,
    evaluate,
    pass_at_k,
    pass_hat_k,
    score_episode,
)
from .errors import ComparabilityError
from .gold.native import GoldValidation, dump_tasks, load_tasks, task_from_dict, task_to_dict, validate_file
from .gold.pricing import PricingFile, load_pricing, read_pricing
from .ingest.episodes import DEFAULT_TASK_ID_KEYS, build_episode, build_episodes
from .emit.envelope import ScoreEnvelope, ScoreProvenance
from .pipeline import ScoreRun, ScoreSettings, Unmatched, score_and_envelope, score_dump, score_episodes

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
