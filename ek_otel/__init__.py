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
]
