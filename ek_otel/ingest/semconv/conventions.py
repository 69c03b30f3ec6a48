"""Which conventions a span's attribute names follow, whatever its instrumentation scope
(``ek-otel doctor`` names them for every scope, known or not).

Example:
    >>> conventions_of(["gen_ai.usage.input_tokens", "openinference.span.kind"])
    ('OTel GenAI (gen_ai.*)', 'OpenInference')
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CONVENTION_MARKERS", "conventions_of"]

#: Attribute-name prefixes that tell a convention, whatever the scope (``doctor`` names the
#: conventions of every scope, known or not), in the order they are shown.
CONVENTION_MARKERS = (
    ("gen_ai.", "OTel GenAI (gen_ai.*)"),
    ("openinference.", "OpenInference"),
    ("llm.", "OpenInference / OpenLLMetry (llm.*)"),
    ("traceloop.", "OpenLLMetry (traceloop.*)"),
    ("logfire.", "Logfire (logfire.*)"),
    ("langfuse.", "Langfuse (langfuse.*)"),
    ("ai.", "Vercel AI (ai.*)"),
    ("mlflow.", "MLflow (mlflow.*)"),
    ("mastra.", "Mastra (mastra.*)"),
    ("gcp.vertex.agent.", "Google ADK legacy schema (gcp.vertex.agent.*)"),
)


def conventions_of(keys: Iterable) -> tuple:
    """The conventions whose attribute names are among ``keys`` (in
    :data:`CONVENTION_MARKERS` order).

    Example:
        >>> conventions_of(["gen_ai.operation.name", "llm.token_count.prompt", "x"])
        ('OTel GenAI (gen_ai.*)', 'OpenInference / OpenLLMetry (llm.*)')
    """
    found = set()
    for key in keys:
        if not isinstance(key, str):
            continue
        for prefix, name in CONVENTION_MARKERS:
            if key.startswith(prefix):
                found.add(name)
    return tuple(name for _, name in CONVENTION_MARKERS if name in found)
