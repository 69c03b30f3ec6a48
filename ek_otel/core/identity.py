"""Who ek-otel is in what it writes: the names its scores carry, which the writer (``emit``)
puts on every span, event and annotation and the reader (``ingest.own_output``) uses to tell
ek-otel's own output from the traces it scores.

Example:
    >>> SERVICE_NAME, SCOPE_NAME
    ('ek-otel', 'ek_otel.emit')
"""

from __future__ import annotations

__all__ = ["EVALUATOR_NAME", "SERVICE_NAME", "SCOPE_NAME"]

#: The evaluator's name: Phoenix annotations' identifier, MLflow's source, ``ek.evaluator.name``.
EVALUATOR_NAME = "ek-otel"
#: ``service.name`` of the resource everything ek-otel writes carries.
SERVICE_NAME = EVALUATOR_NAME
#: Instrumentation scope of everything ek-otel writes.
SCOPE_NAME = "ek_otel.emit"
