"""Grafana Tempo's trace JSON read as OTLP JSON.

Tempo's API answers a trace as OTLP JSON under another name: ``{"batches": [...]}``
(``/api/traces/{id}``; each batch a ``resourceSpans`` entry, with ``scopeSpans`` or, from
older Tempo, ``instrumentationLibrarySpans``), or ``{"trace": {"resourceSpans": [...]}}``
(``/api/v2/traces/{id}``). Ids are base64, as protobuf's JSON mapping writes them (the OTLP
decoder reads both). Found from the content.

Example:
    >>> doc = {"batches": [{"resource": {"attributes": []}, "scopeSpans": []}]}
    >>> is_tempo(doc), list(tempo_to_otlp(doc))
    (True, ['resourceSpans'])
    >>> is_tempo({"resourceSpans": []})
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["is_tempo", "tempo_to_otlp"]


def is_tempo(document: Any) -> bool:
    """Whether a parsed JSON document is a Tempo trace (``batches``, or ``trace`` holding
    ``resourceSpans``).

    Example:
        >>> is_tempo({"trace": {"resourceSpans": []}}), is_tempo({"batches": "x"})
        (True, False)
    """
    if not isinstance(document, Mapping) or "resourceSpans" in document:
        return False
    if isinstance(document.get("batches"), list):
        return True
    trace = document.get("trace")
    return isinstance(trace, Mapping) and isinstance(trace.get("resourceSpans"), list)


def tempo_to_otlp(document: Mapping) -> dict:
    """The OTLP-JSON request a Tempo trace document holds.

    Example:
        >>> tempo_to_otlp({"trace": {"resourceSpans": [1]}})
        {'resourceSpans': [1]}
    """
    if isinstance(document.get("batches"), list):
        return {"resourceSpans": document["batches"]}
    return {"resourceSpans": document["trace"]["resourceSpans"]}
