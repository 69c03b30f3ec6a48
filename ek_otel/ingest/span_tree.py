"""One episode's spans as a tree of :class:`Node`: each span read once (its role, usage,
answer, error), linked to its parent, with its depth and time order; and the questions
asked of the tree (roots, nearest and outermost agents).

A span whose parent is not among the records is a root (Langfuse exports point at parents
they never send), reported as :data:`MISSING_PARENT`. A span that cannot be read is
counted and reported (:data:`~ek_otel.ingest.bad_input.MALFORMED_RECORD`), never raised.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> T = "ab" * 16
    >>> nodes, bad = build_tree([SpanRecord(T, "0" * 15 + "1", name="invoke_agent a", start_ns=1,
    ...     attributes={"gen_ai.operation.name": "invoke_agent"}),
    ...     SpanRecord(T, "0" * 15 + "2", "0" * 15 + "1", "chat m", start_ns=2,
    ...     attributes={"gen_ai.operation.name": "chat"})], (), None)
    >>> [(n.role, n.depth) for n in by_time(nodes.values())], bad
    ([('agent', 0), ('model', 1)], 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Optional

from . import semconv as sc
from .bad_input import BAD_ATTRIBUTE, MALFORMED_RECORD, BadInputReport
from .messages import EMPTY_OUTPUT, ModelOutput
from .model_output import model_output_of_span, output_of_logs, output_of_related_spans
from .records import LogRecord, SpanRecord

__all__ = [
    "MISSING_PARENT",
    "Node",
    "build_tree",
    "by_time",
    "roots_of",
    "nearest_agent",
    "has_named_agent",
    "outermost_agent",
    "release_tree",
]

#: Bad-input reason: a span whose parent is not among the records (Langfuse points at parents
#: it never exports; a lost batch does the same). The span is read as a root, and reported.
MISSING_PARENT = "missing parent"

#: ``Node.agent`` before :func:`nearest_agent` computed it.
_UNKNOWN: Any = object()


@dataclass(eq=False, slots=True)  # identity semantics: nodes are compared with ``is``
class Node:
    """One span of the tree, with what was read from it (role, usage, answer, error)."""

    span: SpanRecord
    role: str
    parent: Optional["Node"] = None
    children: list = field(default_factory=list)
    usage: Optional[sc.Usage] = None
    response_id: Optional[str] = None
    error: Optional[str] = None
    output: ModelOutput = EMPTY_OUTPUT
    finish_reasons: tuple = ()
    depth: int = 0
    order: tuple = ()  # (start, depth, span id): the sort key of :func:`by_time`
    agent: Any = _UNKNOWN  # the nearest agent ancestor (:func:`nearest_agent`), once known
    named_agent: Optional[bool] = None  # :func:`has_named_agent`, once known

    @property
    def span_id(self) -> str:
        return self.span.span_id

    def ancestors(self) -> list:
        """The parent, its parent, ... up to the root (``depth`` of them: ``build_tree``
        counts them once, stopping at a parent cycle of malformed input)."""
        out = []
        node = self.parent
        for _ in range(self.depth):
            out.append(node)
            node = node.parent
        return out

    def _distinct_ancestors(self) -> Iterator["Node"]:
        # nodes and span ids are one to one (``build_tree`` keeps one node per span id)
        node, seen = self.parent, {self}
        while node is not None and node not in seen:
            seen.add(node)
            yield node
            node = node.parent


def read_span(span: Any, logs_by_span: Mapping) -> Node:
    """Read one span (the only place a span is read); raises when it cannot be read."""
    if type(span) is not SpanRecord and not isinstance(span, SpanRecord):
        raise TypeError(f"not a SpanRecord: {type(span).__name__}")
    if not isinstance(span.span_id, str) or not span.span_id:
        raise ValueError("span has no span id")
    if type(span.attributes) is not dict and not isinstance(span.attributes, Mapping):
        raise TypeError("span attributes are not a mapping")
    if not isinstance(span.start_ns, int) or not isinstance(span.end_ns, int):
        raise TypeError("span timestamps are not integers")
    role = sc.span_role(span)
    node = Node(span=span, role=role, error=sc.error_of(span))
    if role == sc.MODEL:
        node.usage = sc.usage_of(span.attributes, sc.streamed_usage_of(span))
        node.response_id = sc.response_id_of(span.attributes)
        node.finish_reasons = sc.finish_reasons_of(span.attributes)
        output = model_output_of_span(span)
        if not output:
            output = output_of_logs(logs_by_span.get(span.span_id, ()))
        node.output = output
    return node


def build_tree(spans: Sequence[Any], logs: Sequence[LogRecord],
          report: Optional[BadInputReport]) -> tuple:
    """``(span id -> Node, count of unreadable spans)``: the spans read, linked and ordered."""
    logs_by_span: dict = {}
    for log in logs:
        if isinstance(log, LogRecord) and log.span_id:
            logs_by_span.setdefault(log.span_id, []).append(log)
    nodes: dict = {}
    bad = 0
    for span in spans:
        try:
            node = read_span(span, logs_by_span)
        except Exception as exc:  # noqa: BLE001 - a bad span is reported and skipped
            bad += 1
            if report is not None:
                origin = getattr(span, "origin", None)
                sid = getattr(span, "span_id", "?")
                report.add(MALFORMED_RECORD, f"span {sid!r} skipped: {exc}", origin)
            continue
        nodes.setdefault(node.span_id, node)
        if report is not None and node.role == sc.MODEL:
            for key in sc.unreadable_token_counts(span.attributes):
                report.add(BAD_ATTRIBUTE, f"span {node.span_id}: {key!r} is not a token count "
                           f"({span.attributes[key]!r}); ignored", getattr(span, "origin", None))
    orphans: dict = {}
    for node in nodes.values():
        parent = nodes.get(node.span.parent_span_id) if node.span.parent_span_id else None
        if parent is not None and parent is not node:
            node.parent = parent
            parent.children.append(node)
        elif node.span.parent_span_id:
            orphans.setdefault((node.span.trace_id, node.span.parent_span_id), []).append(node)
    if report is not None:
        _report_missing_parents(orphans, report)
    limit = len(nodes)  # more ancestors than nodes: a parent cycle (malformed input)
    for node in nodes.values():
        depth = 0
        parent = node.parent
        while parent is not None and depth <= limit:
            depth += 1
            parent = parent.parent
        if depth > limit:
            depth = sum(1 for _ in node._distinct_ancestors())
        node.depth = depth
        node.order = (node.span.start_ns, depth, node.span.span_id)
    for node in nodes.values():  # answers recorded only by the spans around the model's
        if node.role == sc.MODEL and not node.output.calls and (node.children or node.parent):
            related = output_of_related_spans(
                [c.span for c in node.children],
                node.parent.span if node.parent is not None and not node.output else None)
            if related.calls or (related and not node.output):
                node.output = ModelOutput(related.calls, node.output.text or related.text, True)
    return nodes, bad


def _report_missing_parents(orphans: Mapping, report: BadInputReport) -> None:
    """One case per missing parent (Langfuse hangs every generation on one unexported span)."""
    for (_, parent_id), children in orphans.items():
        first = min(children, key=lambda n: (n.span.start_ns, n.span_id))
        what = (f"span {first.span_id} {first.span.name!r}" if len(children) == 1
                else f"{len(children)} spans (first {first.span_id} {first.span.name!r})")
        report.add(MISSING_PARENT, f"{what}: parent {parent_id} is not among the spans; "
                   f"read as {'a root' if len(children) == 1 else 'roots'}",
                   getattr(first.span, "origin", None))


def by_time(nodes: Iterable[Node]) -> list:
    """``nodes`` by start time, then depth, then span id."""
    return sorted(nodes, key=_ORDER)


_ORDER = attrgetter("order")  # (start, depth, span id), set by build_tree


def roots_of(nodes: Mapping) -> list:
    """One root per trace: the earliest-starting span without a (present) parent."""
    roots: dict = {}
    for node in by_time(n for n in nodes.values() if n.parent is None):
        roots.setdefault(node.span.trace_id, node)
    return sorted(roots.values(), key=lambda n: (n.span.start_ns, n.span_id))


def nearest_agent(node: Optional[Node]) -> Optional[Node]:
    """The nearest agent ancestor, preferring one that names its agent in an attribute."""
    if node is None:
        return None
    agent = node.agent
    if agent is _UNKNOWN:
        agents = [a for a in node.ancestors() if a.role == sc.AGENT]
        named = [a for a in agents if has_named_agent(a)]
        agent = node.agent = (named or agents or [None])[0]
    return agent


def has_named_agent(node: Node) -> bool:
    """Whether an agent span names its agent in an attribute (cached on the node)."""
    named = node.named_agent
    if named is None:
        named = node.named_agent = sc.first_value(node.span.attributes,
                                                  sc.AGENT_NAME_KEYS) is not None
    return named


def outermost_agent(nodes: Mapping) -> Optional[Node]:
    """The outermost agent span, preferring one that names its agent in an attribute
    (a workflow wrapper such as the Agents SDK's ``Agent workflow`` names none)."""
    agents = [n for n in nodes.values() if n.role == sc.AGENT]
    named = [n for n in agents if has_named_agent(n)]
    if not (named or agents):
        return None
    return min(named or agents, key=lambda n: (n.depth, n.span.start_ns))


def release_tree(nodes: Mapping) -> None:
    """Unlink a tree once read: its nodes (parent and children point at each other) are then
    freed as soon as they are dropped, not left to the cyclic garbage collector, which
    would otherwise find ten nodes a trace and walk every record held around them.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> nodes, _ = build_tree([SpanRecord("a" * 32, "1" * 16, start_ns=1),
        ...     SpanRecord("a" * 32, "2" * 16, "1" * 16, start_ns=2)], (), None)
        >>> release_tree(nodes)
        >>> [(n.parent, n.children, n.agent) for n in nodes.values()]
        [(None, [], None), (None, [], None)]
    """
    for node in nodes.values():
        node.parent = None
        node.children = []
        node.agent = None
