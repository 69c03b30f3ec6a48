"""The runs a person labelled in Arize Phoenix, read through its REST API.

A reviewer marks good runs in Phoenix with an annotation (``correct`` = ``yes``, say) on the
trace or on its root span. :func:`labelled_traces` asks Phoenix for the annotations of the
candidate traces (``GET /v1/projects/{project}/trace_annotations?trace_ids=...`` and
``.../span_annotations?span_ids=...``, paginated) and returns the trace ids whose annotation of
that name has that label. ``ek-otel gold from-traces --phoenix-url`` keeps those runs.

Errors are :class:`~ek_otel.errors.InputError` s naming the URL and Phoenix's answer.

Example:
    >>> _matches({"name": "correct", "result": {"label": "yes"}}, "correct", "yes")
    True
    >>> _matches({"name": "correct", "result": {"label": "no"}}, "correct", "yes")
    False
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Optional

from ..errors import InputError

__all__ = ["labelled_traces", "CHUNK"]

#: Ids per request (they go in the query string).
CHUNK = 50


def _matches(annotation: Mapping, name: str, label: str) -> bool:
    result = annotation.get("result") or {}
    return annotation.get("name") == name and isinstance(result, Mapping) and result.get("label") == label


def _paged(client, url: str, path: str, key: str, ids: list) -> list:
    items: list = []
    for start in range(0, len(ids), CHUNK):
        cursor = None
        while True:
            params: dict = {key: ids[start:start + CHUNK], "limit": 1000}
            if cursor:
                params["cursor"] = cursor
            try:
                response = client.get(url.rstrip("/") + path, params=params)
            except Exception as exc:  # httpx.HTTPError and OS errors: Phoenix is not there
                raise InputError(f"cannot reach Phoenix at {url}: {exc}") from None
            if response.status_code == 404 and "project" in response.text.lower():
                raise InputError(f"Phoenix at {url}: {response.text.strip()[:200]}")
            if response.status_code != 200:
                raise InputError(f"Phoenix at {url} answered {response.status_code} to GET {path}: "
                                 f"{response.text.strip()[:200]}")
            page = response.json()
            items.extend(page.get("data") or [])
            cursor = page.get("next_cursor")
            if not cursor:
                break
    return items


def labelled_traces(url: str, traces: Iterable[tuple], *, name: str, label: str,
                    project: str = "default", api_key: Optional[str] = None,
                    timeout: float = 30.0) -> set:
    """The trace ids among ``traces`` (``(trace_id, root_span_id)`` pairs) that carry, on the
    trace or on its root span, an annotation ``name`` whose label is ``label``.

    Raises:
        InputError: Phoenix cannot be reached, or refuses (naming the URL and its answer).
    """
    import httpx

    pairs = [(t, s) for t, s in traces if t]
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    found: set = set()
    span_to_trace = {s: t for t, s in pairs if s}
    with httpx.Client(timeout=timeout, headers=headers) as client:
        base = f"/v1/projects/{project}"
        for a in _paged(client, url, base + "/trace_annotations", "trace_ids",
                        sorted({t for t, _ in pairs})):
            if _matches(a, name, label) and a.get("trace_id"):
                found.add(a["trace_id"])
        for a in _paged(client, url, base + "/span_annotations", "span_ids", sorted(span_to_trace)):
            if _matches(a, name, label) and a.get("span_id") in span_to_trace:
                found.add(span_to_trace[a["span_id"]])
    return found
