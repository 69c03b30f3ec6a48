"""User turns: where each user message of a run begins a turn, and the turn of each call.

A turn begins where a user message first reaches the agent: the first model call that was
sent it (``gen_ai.input.messages``, flattened OpenInference/Traceloop input messages: read as
the transcript reads them, :mod:`ek_otel.ingest.transcript`), or a ``gen_ai.user.message``
event. A message sent again with the history (the next model call, the next invocation of a
conversation) is the same message; the same text sent twice is two messages when a model
call was sent it twice. Each step takes the turn of the last user message that came at or
before it (a call before the first message: turn 0).

A run's turns are recorded (:data:`USER_TURNS` in the episode's meta, ``turn`` on its steps
in ``ek-otel episodes``) only when it has two turns or more; with one user message its steps
carry turn 0 (the run is known to have one turn), without any they carry none.

Example:
    >>> from ek_otel.core.episode import Step
    >>> steps, n = assign_turns([Step("a", span_id="1"), Step("b", span_id="2")],
    ...                         {"1": 5, "2": 15}, [0, 10])
    >>> [s.turn for s in steps], n
    ([0, 1], 2)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Optional

from .span_tree import Node
from .transcript import user_events, user_texts

__all__ = ["USER_TURNS", "turn_starts", "assign_turns", "steps_with_turns"]

#: The episode meta key holding the number of user turns (runs of two turns or more).
USER_TURNS = "user_turns"


def turn_starts(clusters: Mapping[str, list], logs: Sequence = ()) -> list:
    """The times (ns) at which the run's user messages first reached it, in order.

    Example:
        >>> from ek_otel.ingest.records import SpanRecord
        >>> from ek_otel.ingest.span_tree import Node
        >>> def call(start, *texts):
        ...     msgs = ",".join(f'{{"role": "user", "content": "{t}"}}' for t in texts)
        ...     return [Node(SpanRecord("a" * 32, f"{start:016x}", name="chat", start_ns=start,
        ...                  attributes={"gen_ai.input.messages": f"[{msgs}]"}), "model")]
        >>> turn_starts({"1": call(1, "hi"), "2": call(5, "hi"), "3": call(9, "hi", "yes")})
        [1, 9]
    """
    events: list = []  # (time ns, texts sent)
    for members in clusters.values():
        top = members[0]
        start = top.span.start_ns if isinstance(top.span.start_ns, int) else 0
        events.append((start, user_texts(top.span.attributes)))
    for time_ns, _span_id, text in user_events(logs):
        events.append((time_ns or 0, [text]))
    events.sort(key=lambda e: e[0])
    seen: Counter = Counter()
    starts = []
    for time_ns, texts in events:
        new = Counter(texts) - seen
        if new:
            starts.append(time_ns)
            seen |= Counter(texts)
    return starts


def assign_turns(steps: Sequence, times: Mapping[str, int], starts: Sequence[int]) -> tuple:
    """``(steps, turns)``: each step with the turn of the last start at or before its time
    (``times``: span id -> time ns; a step of unknown time takes the turn before it);
    ``(steps, 0)`` unchanged when ``starts`` is empty.

    Example:
        >>> from ek_otel.core.episode import Step
        >>> assign_turns([Step("a")], {}, [])[1]
        0
    """
    if not starts:
        return list(steps), 0
    out, turn = [], 0
    for step in steps:
        time_ns = times.get(step.span_id) if step.span_id else None
        if time_ns is not None:
            turn = max(0, sum(1 for s in starts if s <= time_ns) - 1)
        out.append(replace(step, turn=turn))
    return out, len(starts)


def steps_with_turns(steps: Sequence, nodes: Mapping[str, Node], clusters: Mapping[str, list],
                     logs: Sequence = ()) -> tuple:
    """``(steps, turns)`` of one episode's span tree: :func:`turn_starts`, then
    :func:`assign_turns` with each step's span start.

    Example:
        >>> steps_with_turns([], {}, {})
        ([], 0)
    """
    starts = turn_starts(clusters, logs)
    if not starts:
        return list(steps), 0
    times = {span_id: node.span.start_ns for span_id, node in nodes.items()
             if isinstance(node.span.start_ns, int)}
    return assign_turns(steps, times, starts)


def user_turns_of(meta: Mapping) -> Optional[int]:
    """The recorded number of user turns (two or more), else None."""
    value = meta.get(USER_TURNS) if isinstance(meta, Mapping) else None
    return value if isinstance(value, int) else None
