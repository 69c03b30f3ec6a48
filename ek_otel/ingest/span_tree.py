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
from .requested_calls import EMPTY_OUTPUT, ModelOutput
from .model_output import model_output_of_span, output_of_logs, output_of_related_spans
from .records import LogRecord, SpanRecord

__all__ = [
    "MISSING_PARENT",
    "PARENT_CYCLE",
    "Node",
    "build_tree",
    "by_time",
    "roots_of",
    "nearest_agent",
    "has_named_agent",
    "outermost_agent",
    "release_tree",
    "parents_first",
    "nearest_above",
    "outermost_above",
    "with_descendant",
]

#: Bad-input reason: a span whose parent is not among the records (Langfuse points at parents
#: it never exports; a lost batch does the same). The span is read as a root, and reported.
MISSING_PARENT = "missing parent"

#: ``Node.agent`` before :func:`nearest_agent` computed it.
_UNKNOWN: Any = object()


@dataclass(eq=False, slots=True, init=False)  # identity semantics: nodes are compared with ``is``
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
    agents_above: Any = _UNKNOWN  # (nearest agent, nearest named agent) above, once known
    named_agent: Optional[bool] = None  # :func:`has_named_agent`, once known

    def __init__(self, span: SpanRecord, role: str, error: Optional[str] = None) -> None:
        # one per span: every slot filled here, not through the dataclass's generated
        # ``__init__`` of keyword defaults and a default factory (3% of building an episode)
        self.span = span
        self.role = role
        self.parent = None
        self.children = []
        self.usage = None
        self.response_id = None
        self.error = error
        self.output = EMPTY_OUTPUT
        self.finish_reasons = ()
        self.depth = 0
        self.order = ()
        self.agent = _UNKNOWN
        self.agents_above = _UNKNOWN
        self.named_agent = None

    @property
    def span_id(self) -> str:
        return self.span.span_id

    def ancestors(self) -> list:
        """The parent, its parent, ... up to the root (``depth`` of them: ``build_tree``
        breaks parent cycles of malformed input)."""
        out = []
        node = self.parent
        for _ in range(self.depth):
            out.append(node)
            node = node.parent
        return out


def read_span(span: Any, logs_by_span: Mapping) -> Node:
    """Read one span (the only place a span is read); raises when it cannot be read."""
    if type(span) is not SpanRecord and not isinstance(span, SpanRecord):
        raise TypeError(f"not a SpanRecord: {type(span).__name__}")
    span_id = span.span_id
    if type(span_id) is not str and not isinstance(span_id, str) or not span_id:
        raise ValueError("span has no span id")
    attributes = span.attributes
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        raise TypeError("span attributes are not a mapping")
    start_ns, end_ns = span.start_ns, span.end_ns
    if (type(start_ns) is not int and not isinstance(start_ns, int)) or (
            type(end_ns) is not int and not isinstance(end_ns, int)):
        raise TypeError("span timestamps are not integers")
    role = sc.span_role(span)
    node = Node(span, role, sc.error_of(span))
    if role == sc.MODEL:
        _read_model_call(node, logs_by_span)
    return node


def _read_model_call(node: Node, logs_by_span: Mapping) -> None:
    """What a model-call span recorded: its usage, response id, finish reasons, answer."""
    span = node.span
    attributes = span.attributes
    node.usage = sc.usage_of(attributes, sc.streamed_usage_of(span))
    node.response_id = sc.response_id_of(attributes)
    node.finish_reasons = sc.finish_reasons_of(attributes)
    output = model_output_of_span(span)
    if not output:
        output = output_of_logs(logs_by_span.get(span.span_id, ()))
    node.output = output


def _promote_usage_spans(nodes: Mapping, logs_by_span: Mapping) -> None:
    """A trace that names no model call but records one call's token usage on a span of no
    other role has made model calls: the innermost such spans are read as them (Strands'
    older ``Model invoke`` spans carry the usage and the answer, and no operation name).
    An episode never contradicts itself: tokens read imply a model call."""
    carriers = [n for n in nodes.values()
                if n.role == sc.OTHER and sc.usage_of(n.span.attributes) is not None]
    if not carriers:
        return
    carrier_ids = {n.span_id for n in carriers}
    above = with_descendant(nodes, lambda n: n.span_id in carrier_ids)
    for node in carriers:
        if node not in above:
            node.role = sc.MODEL
            _read_model_call(node, logs_by_span)


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
    _break_cycles_and_set_depths(nodes, report)
    if not any(node.role == sc.MODEL for node in nodes.values()):
        _promote_usage_spans(nodes, logs_by_span)
    for node in nodes.values():  # answers recorded only by the spans around the model's
        if node.role == sc.MODEL and not node.output.calls and (node.children or node.parent):
            related = output_of_related_spans(
                [c.span for c in node.children],
                node.parent.span if node.parent is not None and not node.output else None)
            if related.calls or (related and not node.output):
                node.output = ModelOutput(related.calls, node.output.text or related.text, True)
    return nodes, bad


#: Bad-input reason: spans whose parent ids form a cycle (malformed input: no span of the
#: cycle is a root). The cycle is broken at its earliest-starting span, read as a root.
PARENT_CYCLE = "parent cycle"


def _break_cycles_and_set_depths(nodes: Mapping, report: Optional[BadInputReport]) -> None:
    """Set each node's ``depth`` and ``order`` in one pass over the tree (linear in the
    spans, chains of any length included); a parent cycle is broken where it starts
    earliest (that span becomes a root) and reported as :data:`PARENT_CYCLE`.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> a, b = SpanRecord("a" * 32, "1" * 16, "2" * 16, start_ns=1), SpanRecord("a" * 32, "2" * 16, "1" * 16, start_ns=2)
        >>> report = BadInputReport()
        >>> nodes, _ = build_tree([a, b], (), report)
        >>> [(n.span_id[0], n.depth, n.parent is None) for n in nodes.values()], report.counts
        ([('1', 0, True), ('2', 1, False)], {'parent cycle': 1})
    """
    # a node's depth is known once its ``order`` is set (a non-empty tuple); nodes hash by
    # identity (``eq=False``), so they are their own keys
    on_path: set = set()
    for start in nodes.values():
        if start.order:
            continue
        path = []
        node = start
        while True:
            while node is not None and not node.order and node not in on_path:
                on_path.add(node)
                path.append(node)
                node = node.parent
            if node is None or node.order:
                break
            # ``node`` is on the path: path[i:] is a cycle; cut it at its earliest span
            i = next(k for k in range(len(path) - 1, -1, -1) if path[k] is node)
            cycle = path[i:]
            cut = min(cycle, key=lambda n: (n.span.start_ns, n.span.span_id))
            parent = cut.parent
            parent.children = [c for c in parent.children if c is not cut]
            cut.parent = None
            if report is not None:
                report.add(PARENT_CYCLE, f"{len(cycle)} spans (first {cut.span_id} {cut.span.name!r}) "
                           f"are each other's ancestors; {cut.span_id} read as a root",
                           getattr(cut.span, "origin", None))
            # walk again from the cut span: it is now the top of this path
            k = path.index(cut)
            for stale in path[k:]:
                on_path.discard(stale)
            del path[k:]
            node = cut
        depth = -1 if node is None else node.depth
        for item in reversed(path):
            depth += 1
            on_path.discard(item)
            item.depth = depth
            span = item.span
            item.order = (span.start_ns, depth, span.span_id)


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
    if len(roots) < 2:  # one trace: nothing to sort
        return list(roots.values())
    return sorted(roots.values(), key=lambda n: (n.span.start_ns, n.span_id))


def nearest_agent(node: Optional[Node]) -> Optional[Node]:
    """The nearest agent ancestor, preferring one that names its agent in an attribute.

    Linear over a whole tree however deep (each node's answer is built on its parent's)."""
    if node is None:
        return None
    agent = node.agent
    if agent is _UNKNOWN:
        nearest, named = _agents_above(node)
        agent = node.agent = named or nearest
    return agent


def _agents_above(node: Node) -> tuple:
    path = []
    top = node
    while top is not None and top.agents_above is _UNKNOWN:
        path.append(top)
        top = top.parent
    for item in reversed(path):
        parent = item.parent
        if parent is None:
            item.agents_above = (None, None)
            continue
        nearest, named = parent.agents_above
        if parent.role == sc.AGENT:
            item.agents_above = (parent, parent if has_named_agent(parent) else named)
        else:
            item.agents_above = (nearest, named)
    return node.agents_above


def parents_first(nodes: Mapping) -> list:
    """The nodes of a tree (``build_tree``'s), each after its parent."""
    return sorted(nodes.values(), key=_DEPTH)


_DEPTH = attrgetter("depth")


def nearest_above(nodes: Mapping, test) -> dict:
    """``node -> its nearest ancestor for which test(ancestor) holds`` (None: no such
    ancestor), for every node, in one pass (linear in the nodes, whatever their depth).

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> nodes, _ = build_tree([SpanRecord("a" * 32, f"{i:016x}", f"{i - 1:016x}" if i else None,
        ...     start_ns=i) for i in range(3)], (), None)
        >>> [n.span_id[-1] if n else None for n in nearest_above(nodes, lambda n: True).values()]
        [None, '0', '1']
    """
    out: dict = {}
    for node in parents_first(nodes):
        parent = node.parent
        out[node] = None if parent is None else (parent if test(parent) else out[parent])
    return out


def outermost_above(nodes: Mapping, test) -> dict:
    """``node -> its outermost ancestor for which test(ancestor) holds`` (None: none), in
    one pass."""
    out: dict = {}
    for node in parents_first(nodes):
        parent = node.parent
        out[node] = None if parent is None else (out[parent] or (parent if test(parent) else None))
    return out


def with_descendant(nodes: Mapping, test) -> set:
    """The nodes that have a descendant for which ``test`` holds, in one pass."""
    out: set = set()
    for node in reversed(parents_first(nodes)):
        parent = node.parent
        if parent is not None and (node in out or test(node)):
            out.add(parent)
    return out


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
        node.agents_above = None
