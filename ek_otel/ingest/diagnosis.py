"""What ``ek-otel doctor`` says of a trace and of a dump, as data: the shapes of a diagnosis.

:class:`TraceDiagnosis` is one trace: the instrumentation scopes seen (:class:`ScopeSeen`),
what was read (:class:`Read`), each gap with its fix (:class:`Gap`), the spans read as
nothing; :class:`NotARun` a trace that is no agent run; :class:`Total` and
:class:`Diagnosis` the whole dump. All frozen, each with ``to_dict()`` for JSON.
:mod:`ek_otel.ingest.diagnose` makes them; ``ek-otel doctor`` renders them.

Example:
    >>> (Read(model_calls=1, tool_calls=2) + Read(tool_calls=1)).tool_calls
    3
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

from .instrumentations import Instrumentation, recognise

__all__ = ["ScopeSeen", "Read", "Gap", "TraceDiagnosis", "NotARun", "Total", "Diagnosis"]


@dataclass(frozen=True)
class ScopeSeen:
    """One instrumentation scope of a trace and what it is known as ("" when unknown).

    Example:
        >>> ScopeSeen("pydantic-ai", "2.68.0", 7).to_dict()["framework"]
        'pydantic-ai'
    """

    name: str
    version: str
    spans: int = 0
    conventions: tuple = ()

    @property
    def known(self) -> Optional[Instrumentation]:
        """The table's entry for this scope, or None."""
        return recognise(self.name)

    def to_dict(self) -> dict:
        known = self.known
        return {"name": self.name, "version": self.version, "spans": self.spans,
                "package": known.package if known else "",
                "convention": known.convention if known else "",
                "framework": known.framework if known else "",
                "kind": known.kind if known else "",
                "attributes_of": list(self.conventions)}


@dataclass(frozen=True)
class Read:
    """What an episode was read as (sums over traces in a :class:`Total`).

    Attributes:
        model_calls / model_calls_without_usage: Model calls, and those with no token count.
        tool_calls: The episode's steps; ``executed`` of them come from a tool-execution
            span, ``requested_only`` only from a model's answer.
        args_captured / args_missing: Steps with and without recorded arguments.
        call_ids: Steps with a tool-call id.
        uncaptured_tool_calls: Model calls that asked for tools without recording the calls.
        unrecorded_model_outputs: Model calls whose answer was not recorded at all.
        input_tokens / output_tokens / cached_tokens / reasoning_tokens: Tokens by kind.
        failed_model_calls: Model-call spans that failed (status ERROR, an exception event):
            their missing answer and usage are no gap.
        streamed_without_usage / stream_usage_asked: Streamed model-call spans without a
            token count, and those of them whose request asked for usage in the stream.
        total_only_tokens: A token total recorded without its input/output split.

    Example:
        >>> (Read(tool_calls=2, call_ids=1) + Read(tool_calls=1)).to_dict()["tool_calls"]
        3
    """

    model_calls: int = 0
    model_calls_without_usage: int = 0
    tool_calls: int = 0
    executed: int = 0
    requested_only: int = 0
    args_captured: int = 0
    args_missing: int = 0
    call_ids: int = 0
    uncaptured_tool_calls: int = 0
    unrecorded_model_outputs: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    failed_model_calls: int = 0
    streamed_without_usage: int = 0
    stream_usage_asked: int = 0
    total_only_tokens: int = 0

    def __add__(self, other: "Read") -> "Read":
        return Read(**{f.name: getattr(self, f.name) + getattr(other, f.name)
                       for f in fields(self)})

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Gap:
    """An item the trace lacks (one of ``SUPPORT_ITEMS``), what shows it, and its fix.

    ``certain`` is False for a token kind that reads 0 where the package never records it
    (the model may also have used none). ``package`` and ``provider`` say what it applies to
    (the instrumentation package whose setting fixes it; the model provider).

    Example:
        >>> Gap("arguments", "2 of 2 tool calls without arguments", "TRACELOOP_TRACE_CONTENT=true").to_dict()["certain"]
        True
    """

    item: str
    what: str
    fix: str
    certain: bool = True
    package: str = ""   # the instrumentation package the gap (and its fix) is of
    provider: str = ""  # the model provider of the trace's model calls

    def to_dict(self) -> dict:
        return {"item": self.item, "what": self.what, "fix": self.fix, "certain": self.certain,
                "package": self.package, "provider": self.provider}


@dataclass(frozen=True)
class TraceDiagnosis:
    """The diagnosis of one episode (one trace, or one conversation of several).

    Attributes:
        trace_id / task_id / service: Of the episode.
        framework: The agent framework recognised from the scopes, else the model client,
            else None.
        scopes: Every :class:`ScopeSeen`, most spans first.
        spans / logs: Records the episode was built from.
        read: The :class:`Read`.
        gaps: Every :class:`Gap`.
        unread_spans: ``(span name, count)`` of the spans read as nothing, most first.
    """

    trace_id: str
    task_id: str
    service: Optional[str]
    framework: Optional[str]
    scopes: tuple
    spans: int
    logs: int
    read: Read
    gaps: tuple
    unread_spans: tuple

    @property
    def unread_count(self) -> int:
        """How many spans were read as nothing."""
        return sum(n for _, n in self.unread_spans)

    def gap(self, item: str) -> Optional[Gap]:
        """The gap of an item, or None.

        Example:
            >>> TraceDiagnosis("t", "", None, None, (), 0, 0, Read(), (), ()).gap("arguments") is None
            True
        """
        for gap in self.gaps:
            if gap.item == item:
                return gap
        return None

    def to_dict(self) -> dict:
        return {"trace_id": self.trace_id, "task_id": self.task_id, "service": self.service,
                "framework": self.framework, "scopes": [s.to_dict() for s in self.scopes],
                "spans": self.spans, "logs": self.logs, "read": self.read.to_dict(),
                "gaps": [g.to_dict() for g in self.gaps],
                "unread_spans": {"count": self.unread_count,
                                 "names": dict(self.unread_spans)}}


@dataclass(frozen=True)
class NotARun:
    """A trace that is not an agent run (no model call, tool call, agent or task id): what
    it is (``"MCP initialize"``), never diagnosed for gaps.

    Example:
        >>> NotARun("ab" * 16, "MCP ping", 2).to_dict()["what"]
        'MCP ping'
    """

    trace_id: str
    what: str
    spans: int

    def to_dict(self) -> dict:
        return {"trace_id": self.trace_id, "what": self.what, "spans": self.spans}


@dataclass(frozen=True)
class Total:
    """Every trace together: counts, sums, and each gap with the number of traces it hits.

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> from ek_otel.ingest.diagnose import diagnose
        >>> diagnose([(Episode("t"), [], [])]).total.to_dict()["frameworks"]
        {'(none recognised)': 1}
    """

    traces: int
    frameworks: tuple  # (framework, traces)
    scopes: tuple      # ScopeSeen, spans summed
    read: Read
    gaps: tuple        # (Gap, traces)
    unread_spans: tuple
    not_runs: tuple = ()  # (what, traces): the traces that are not agent runs

    def to_dict(self) -> dict:
        return {"traces": self.traces,
                "not_agent_runs": {"count": sum(n for _, n in self.not_runs),
                                   "what": dict(self.not_runs)},
                "frameworks": dict(self.frameworks),
                "scopes": [s.to_dict() for s in self.scopes], "read": self.read.to_dict(),
                "gaps": [{**g.to_dict(), "traces": n} for g, n in self.gaps],
                "unread_spans": {"count": sum(n for _, n in self.unread_spans),
                                 "names": dict(self.unread_spans)}}


@dataclass(frozen=True)
class Diagnosis:
    """Per trace, and in total.

    Example:
        >>> from ek_otel.ingest.diagnose import diagnose
        >>> sorted(diagnose([]).to_dict())
        ['not_agent_runs', 'total', 'traces']
    """

    traces: tuple
    total: Total
    not_runs: tuple = ()

    def to_dict(self) -> dict:
        return {"traces": [t.to_dict() for t in self.traces],
                "not_agent_runs": [n.to_dict() for n in self.not_runs],
                "total": self.total.to_dict()}


# -- one episode -----------------------------------------------------------------------------
