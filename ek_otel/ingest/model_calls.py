"""Model calls: the model spans of an episode grouped into calls, the tokens they used,
and the tool calls they asked for.

An agent instrumentor and a client instrumentor report the same call twice (the client
span nested under the agent's model span): nested model spans form one *cluster*, whose
answer is read from the span that recorded the most, so calls are never counted twice.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> from ek_otel.ingest.span_tree import build_tree
    >>> T, chat = "ab" * 16, {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 5}
    >>> nodes, _ = build_tree([SpanRecord(T, "0" * 15 + "1", name="chat a", attributes=chat),
    ...     SpanRecord(T, "0" * 15 + "2", "0" * 15 + "1", "chat b", attributes=chat)], (), None)
    >>> clusters = clusters_of(nodes)
    >>> len(clusters), usage_of_clusters(nodes, clusters)[0].input_tokens
    (1, 5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Optional

from . import semconv as sc
from .requested_calls import EMPTY_OUTPUT, RequestedCall
from .model_output import model_output_of_log
from .records import LogRecord
from .span_tree import Node, by_time, nearest_above, outermost_above, with_descendant

__all__ = ["clusters_of", "usage_of_clusters", "Requested", "requested_calls", "distinct_calls"]


def clusters_of(nodes: Mapping, ordered: Optional[Sequence[Node]] = None) -> dict:
    """Model spans grouped by their outermost model-span ancestor (one model call each):
    each cluster's spans in time order (:func:`by_time`), the clusters in the time order of
    their first span. ``ordered``: ``by_time(nodes.values())``, when the caller has it."""
    clusters: dict = {}
    outermost = outermost_above(nodes, _is_model)
    for node in by_time(nodes.values()) if ordered is None else ordered:
        if node.role != sc.MODEL:
            continue
        top = outermost[node] or node
        clusters.setdefault(top.span_id, []).append(node)
    return clusters


def _is_model(node: Node) -> bool:
    return node.role == sc.MODEL


def usage_of_clusters(nodes: Mapping, clusters: Mapping) -> tuple:
    """``(usage, retries)`` per the leaf/dedup/aggregate rules."""
    counted: list = []
    leaves: list = []
    # a member with a model span below it is not a leaf (that span is of its cluster)
    above_models = with_descendant(nodes, _is_model) if any(len(m) > 1 for m in clusters.values()) else set()
    for members in clusters.values():
        if len(members) == 1:  # one span for one model call: its own leaf, counted if it can be
            node = members[0]
            leaves.append(node)
            if node.usage is not None:
                counted.append(node)
            continue
        cluster_leaves = [n for n in members if n not in above_models]
        leaves.extend(cluster_leaves)
        with_usage = [n for n in cluster_leaves if n.usage is not None]
        if not with_usage:
            fallback = [n for n in members if n.usage is not None]
            with_usage = sorted(fallback, key=lambda n: -n.depth)[:1]
        counted.extend(with_usage)
    if not counted:
        for node in nodes.values():  # aggregate spans are read only when needed
            if node.role in (sc.AGENT, sc.OTHER):
                node.usage = sc.aggregate_usage_of(node.span.attributes)
                node.response_id = sc.response_id_of(node.span.attributes)
        aggregates = [n for n in nodes.values() if n.usage is not None and n.role != sc.TOOL]
        below_usage = nearest_above(nodes, lambda a: a.usage is not None)
        counted = [n for n in aggregates if below_usage[n] is None]
    total = sc.Usage()
    seen_responses: set = set()
    for node in by_time(counted):
        if node.response_id:
            if node.response_id in seen_responses:
                continue
            seen_responses.add(node.response_id)
        total = total + node.usage
    leaves = by_time(leaves)
    # a failed model call is a retry when another model call came after it
    retries = sum(1 for node in leaves[:-1] if node.error is not None)
    return total, retries


def best_output(members: Sequence[Node]) -> tuple:
    """The most complete answer among a cluster's spans, and the span it came from."""
    best, best_node, best_key = EMPTY_OUTPUT, None, None
    for node in members:
        output = node.output
        if not output:
            continue
        key = (sum(1 for c in output.calls if c.args_captured), len(output.calls),
               bool(output.text), node.depth)
        if best_key is None or key > best_key:
            best, best_node, best_key = output, node, key
    return best, best_node


@dataclass(slots=True)  # private and never changed (not frozen: faster to make)
class Requested:
    """A tool call a model asked for, when (the end of its model call) and where."""

    call: RequestedCall
    time_ns: int
    node: Optional[Node]


def requested_calls(clusters: Mapping, logs: Sequence[LogRecord], nodes: Mapping) -> tuple:
    """Every requested call (deduplicated by id), the final text, the uncaptured-call count,
    and the count of model calls that recorded no answer at all (no text, no calls)."""
    answers: list = []  # (time, output, node)
    unanswered: list = []  # clusters that asked for tools without recording the calls
    silent: list = []  # clusters that recorded no answer: tool calls may hide there
    answered_ids: set = set()
    for members in clusters.values():
        top = members[0]
        if len(members) == 1:  # the common case: one span for one model call
            output = top.output
            node = top if output else None
            end = top.span.end_ns or top.span.start_ns
        else:
            output, node = best_output(members)
            end = max(n.span.end_ns or n.span.start_ns for n in members)
        asked_for_tools = (not sc.TOOL_FINISH_REASONS.isdisjoint(top.finish_reasons)
                           if len(members) == 1 else
                           any(not sc.TOOL_FINISH_REASONS.isdisjoint(n.finish_reasons)
                               for n in members))
        if output and (output.calls or output.text is not None or not asked_for_tools):
            answers.append((end, output, node or top))
            for n in members:
                if n.response_id:
                    answered_ids.add(n.response_id)
        elif all(n.error for n in members):
            continue  # a failed call: no answer to record (its error is reported), no gap
        elif asked_for_tools:  # no answer, or one without the calls it says it made
            unanswered.append(members)
        else:  # e.g. Gemini: finish reason STOP even when it calls tools
            silent.append(members)
    # a content-less span of a call that another span (same response id) recorded in full,
    # e.g. the anthropic SDK's own span beside an instrumentor's sibling span, hides nothing
    uncaptured = sum(1 for members in unanswered
                     if not any(n.response_id in answered_ids for n in members))
    unrecorded = sum(1 for members in silent
                     if not any(n.response_id in answered_ids for n in members))
    for log in logs:  # answers in log events that no model span holds
        if not isinstance(log, LogRecord) or log.event_name not in sc.OUTPUT_EVENTS:
            continue
        holder = nodes.get(log.span_id)
        if holder is not None and holder.role == sc.MODEL:
            continue
        output = model_output_of_log(log)
        if output:
            answers.append((log.time_ns, output, holder))
    answers.sort(key=_FIRST)
    requested: list = []
    seen_ids: set = set()
    final_text = None
    for time_ns, output, node in answers:
        for call in output.calls:
            if call.call_id:
                if call.call_id in seen_ids:
                    continue
                seen_ids.add(call.call_id)
            requested.append(Requested(call, time_ns, node))
        if output.text:
            final_text = output.text
    history = [log for log in logs if isinstance(log, LogRecord)
               and log.event_name in sc.HISTORY_EVENTS]
    for log in sorted(history, key=lambda r: r.time_ns):
        for call in model_output_of_log(log).calls:
            if call.call_id and call.call_id not in seen_ids:
                seen_ids.add(call.call_id)
                requested.append(Requested(call, log.time_ns, nodes.get(log.span_id)))
    return requested, final_text, uncaptured, unrecorded


_FIRST = itemgetter(0)


def distinct_calls(clusters: Mapping) -> int:
    """Model calls: clusters, those sharing a response id (sibling spans of two packages for
    one call) counted once."""
    ids: set = set()
    count = 0
    for members in clusters.values():
        if len(members) == 1:  # the common case, without a set per call
            response_id = members[0].response_id
            if not response_id:
                count += 1
            elif response_id not in ids:
                count += 1
                ids.add(response_id)
            continue
        found = {n.response_id for n in members if n.response_id}
        if not found or found.isdisjoint(ids):
            count += 1
        ids |= found
    return count
