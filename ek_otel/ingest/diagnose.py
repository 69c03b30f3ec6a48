"""Why a trace gives the episode it gives: the data behind ``ek-otel doctor``.

:func:`diagnose_episode` looks at one episode beside the records it was built from and says:

- **which instrumentations** made the spans: each scope name and version, the package and
  conventions :mod:`ek_otel.ingest.instrumentations` recognises it as, and the **framework**
  of the trace (its agent framework when one is found, else its model client);
- **what was read** (:class:`~ek_otel.ingest.diagnosis.Read`): model calls (and those without a token count), tool
  calls (executed, or only requested by a model), arguments captured or not, call ids, and
  tokens by kind;
- **each gap** (:class:`~ek_otel.ingest.diagnosis.Gap`): an item of the support matrix
  (:data:`~ek_otel.ingest.instrumentations.SUPPORT_ITEMS`) the trace lacks, what shows it,
  and the setting that fixes it. A *certain* gap is seen in the data (a tool call without
  arguments, a model call without usage); a *possible* one is a token kind that reads 0
  where the package is known never to record it; a run without a task id is the gap
  ``task_id`` (:data:`~ek_otel.ingest.instrumentations.TASK_ID_FIX`: what ``ek-otel score``
  also names when it cannot link runs to tasks);
- the **spans read as nothing**: neither a model call, a tool call, an agent, nor the root.

A trace that is not an agent run (no model call, tool call, agent or task id: an MCP
session's ``initialize`` or ``ping``) gets no diagnosis: it is a
:class:`~ek_otel.ingest.diagnosis.NotARun`, counted
apart (``Diagnosis.not_runs``, ``Total.not_runs``).

:func:`diagnose` does it for many episodes and adds a
:class:`~ek_otel.ingest.diagnosis.Total`. Everything is plain data (the shapes of
:mod:`ek_otel.ingest.diagnosis`, ``to_dict()`` for JSON); nothing here prints.

Example:
    >>> from ek_otel.ingest.episodes import build_episode
    >>> from ek_otel.ingest.records import SpanRecord
    >>> chat = SpanRecord("ab" * 16, "0" * 15 + "1", name="chat gpt-4o",
    ...     scope_name="opentelemetry.util.genai.handler", scope_version="1.1b0",
    ...     attributes={"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10,
    ...                 "gen_ai.usage.output_tokens": 2,
    ...                 "gen_ai.response.finish_reasons": ["tool_calls"]})
    >>> d = diagnose_episode(build_episode([chat]), [chat])
    >>> d.framework, d.read.model_calls, [g.item for g in d.gaps]
    ('OpenAI client', 1, ['tool_names', 'arguments', 'call_ids', 'cached_tokens', 'reasoning_tokens', 'task_id'])
    >>> d.gaps[1].fix
    'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental: span_only or span_and_event)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from . import semconv as sc
from .instrumentations import (
    CLIENT,
    FRAMEWORK,
    GENERIC_FIXES,
    PROVIDER_LACKS,
    STREAM_USAGE_ASKED,
    SUPPORT_ITEMS,
    STREAM_USAGE_FIXES,
    TASK_ID,
    TASK_ID_FIX,
    TOKEN_ITEMS,
    TOTAL_ONLY,
    Instrumentation,
)
from .diagnosis import Diagnosis, Gap, NotARun, Read, ScopeSeen, Total, TraceDiagnosis
from .episodes import NOT_A_RUN, is_agent_run
from .records import SpanRecord

__all__ = ["diagnose_episode", "diagnose"]

#: The token kinds every model call has; a call recorded without any count may have used no
#: cached or reasoning tokens, so those gaps are only possible.
_EVERY_CALL_TOKENS = frozenset({"input_tokens", "output_tokens"})


def _scopes(spans: Sequence[Any]) -> tuple:
    counts: Counter = Counter()
    keys: dict = {}
    for span in spans:
        scope = (span.scope_name or "", span.scope_version or "")
        counts[scope] += 1
        attributes = span.attributes if isinstance(span.attributes, Mapping) else {}
        keys.setdefault(scope, set()).update(attributes)
    return tuple(ScopeSeen(name, version, n, sc.conventions_of(keys[(name, version)]))
                 for (name, version), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _known(scopes: Iterable[ScopeSeen]) -> list:
    """The recognised instrumentations, agent frameworks first, in table order."""
    from .instrumentations import INSTRUMENTATIONS

    found = {id(k): k for s in scopes if (k := s.known) is not None}
    ordered = [i for i in INSTRUMENTATIONS if id(i) in found]
    return [i for i in ordered if i.kind == FRAMEWORK] + [i for i in ordered if i.kind == CLIENT]


def _read(episode: Any, spans: Sequence[Any]) -> Read:
    meta = episode.meta or {}
    steps = tuple(episode.trajectory.steps)
    tool_spans = {s.span_id for s in spans if sc.span_role(s) == sc.TOOL}
    executed = sum(1 for s in steps if s.span_id in tool_spans)
    cost = episode.cost
    failed = streamed = asked = 0
    total_only = 0
    for span in spans:
        attributes = span.attributes if isinstance(span.attributes, Mapping) else {}
        if sc.span_role(span) != sc.MODEL:
            continue
        if sc.error_of(span) is not None:
            failed += 1
            continue
        if sc.usage_of(attributes) is None:
            is_streamed, asked_usage = sc.streaming_of(attributes, span.name or "")
            streamed += is_streamed
            asked += is_streamed and asked_usage
        total_only = max(total_only, sc.total_tokens_of(attributes) or 0)
    return Read(
        failed_model_calls=failed,
        streamed_without_usage=streamed,
        stream_usage_asked=asked,
        total_only_tokens=total_only,
        model_calls=int(meta.get("model_calls", 0)),
        model_calls_without_usage=int(meta.get("model_calls_without_usage", 0)),
        tool_calls=len(steps),
        executed=executed,
        requested_only=len(steps) - executed,
        args_captured=sum(1 for s in steps if s.args_captured),
        args_missing=sum(1 for s in steps if not s.args_captured),
        call_ids=sum(1 for s in steps if s.call_id),
        uncaptured_tool_calls=int(meta.get("uncaptured_tool_calls", 0)),
        unrecorded_model_outputs=int(meta.get("unrecorded_model_outputs", 0)),
        input_tokens=cost.input_tokens if cost else 0,
        output_tokens=cost.output_tokens if cost else 0,
        cached_tokens=cost.cached_input_tokens if cost else 0,
        reasoning_tokens=cost.reasoning_tokens if cost else 0,
    )


def _fix(item: str, known: Sequence[Instrumentation]) -> tuple:
    """``(fix, package)``: the first recognised instrumentation's fix of the item, else the
    generic one (and the package of the trace's first instrumentation, or "")."""
    for instrumentation in known:
        if item in instrumentation.fixes:
            return instrumentation.fixes[item], instrumentation.package
    return GENERIC_FIXES[item], known[0].package if known else ""


def _stream_fix(read: Read, known: Sequence[Instrumentation], provider: str) -> tuple:
    """``(fix, package)`` of streamed calls without usage, in the package's words, else the
    provider's; when the request asked for usage, that the instrumentation dropped it."""
    package = known[0].package if known else ""
    for instrumentation in known:  # recorded apart from the call's span, asked or not
        if instrumentation.stream_elsewhere:
            return instrumentation.stream_elsewhere, instrumentation.package
    if read.stream_usage_asked:
        return STREAM_USAGE_ASKED, package
    for instrumentation in known:
        if instrumentation.stream_usage:
            return instrumentation.stream_usage, instrumentation.package
    if provider in STREAM_USAGE_FIXES:
        return STREAM_USAGE_FIXES[provider], package
    return GENERIC_FIXES["input_tokens"], package


def _provider(spans: Sequence[Any]) -> str:
    """The model provider most model-call spans name ("" when none does)."""
    counts = Counter(p for s in spans if sc.span_role(s) == sc.MODEL
                     and (p := sc.provider_of(s.attributes if isinstance(s.attributes, Mapping)
                                              else {})))
    return counts.most_common(1)[0][0] if counts else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counted(spans: Sequence[Any]) -> frozenset:
    """The token kinds (cached, reasoning) some model-call span records a count of, zero
    included: a recorded 0 is no gap, whatever the package's known limits.

    Example:
        >>> _counted([SpanRecord("a" * 32, "b" * 16, attributes={
        ...     "gen_ai.operation.name": "chat", "gen_ai.usage.reasoning_tokens": 0})])
        frozenset({'reasoning_tokens'})
    """
    found = set()
    for span in spans:
        attributes = span.attributes if isinstance(span.attributes, Mapping) else {}
        if sc.span_role(span) != sc.MODEL:
            continue
        for item, keys in (("cached_tokens", sc.CACHED_TOKEN_KEYS),
                           ("reasoning_tokens", sc.REASONING_TOKEN_KEYS)):
            if any(isinstance(attributes.get(key), (int, float)) for key in keys):
                found.add(item)
    return frozenset(found)


def _gaps(read: Read, known: Sequence[Instrumentation], provider: str = "",
          versions: Optional[Mapping] = None, counted: frozenset = frozenset()) -> tuple:
    gaps: list = []
    lacks = PROVIDER_LACKS.get(provider, frozenset())  # what the provider never gives

    def add(item: str, what: str, certain: bool = True, fix: Optional[tuple] = None) -> None:
        if item in lacks:
            return
        text, package = fix or _fix(item, known)
        gaps.append(Gap(item, what, text, certain, package, provider))

    opaque = next((i for i in known if i.opaque), None)
    if opaque is not None and not read.model_calls and not read.tool_calls:
        for item in SUPPORT_ITEMS:  # the package keeps it all in forms never read
            add(item, f"{opaque.package} records the run only in forms ek-otel does not read "
                      "(Python reprs)")
        return tuple(gaps)
    if read.uncaptured_tool_calls and not read.executed:  # no tool span names them either
        add("tool_names", f"{_plural(read.uncaptured_tool_calls, 'model call')} asked for tools "
                          "but recorded none of the calls, and no tool execution is traced")
    elif read.unrecorded_model_outputs and not read.tool_calls:
        add("tool_names", f"{_plural(read.unrecorded_model_outputs, 'model answer')} not "
                          "recorded at all, and no tool execution is traced: any tool calls "
                          "they made are unknown", certain=False)
    why = []
    if read.args_missing:
        why.append(f"{read.args_missing} of {_plural(read.tool_calls, 'tool call')} without "
                   "arguments")
    if read.uncaptured_tool_calls:
        why.append(f"{read.uncaptured_tool_calls} model answers with tool calls not recorded")
    if read.unrecorded_model_outputs:
        why.append(f"{_plural(read.unrecorded_model_outputs, 'model answer')} not recorded at "
                   "all (they may hide tool calls)")
    if why:
        add("arguments", "; ".join(why))
    if read.tool_calls and not read.call_ids:
        add("call_ids", f"none of the {_plural(read.tool_calls, 'tool call')} has a call id")
    elif read.uncaptured_tool_calls and not read.executed:
        add("call_ids", "the model's tool calls were not recorded, nor their ids")
    elif read.unrecorded_model_outputs and not read.tool_calls:
        add("call_ids", "model answers not recorded at all: the ids of any tool calls they "
                        "made are unknown", certain=False)
    tokens = read.input_tokens + read.output_tokens + read.cached_tokens + read.reasoning_tokens
    if not tokens and read.total_only_tokens:
        for item in TOKEN_ITEMS:
            add(item, f"only a token total ({read.total_only_tokens}) is recorded, not split "
                      "by kind", fix=(TOTAL_ONLY, known[0].package if known else ""))
    elif not tokens and not read.model_calls:
        if read.tool_calls:  # tools were called, so a model chose them: its calls are untraced
            for item in TOKEN_ITEMS:
                add(item, "no model call is traced (yet tools were called), and no span "
                          "carries a token count", certain=item in _EVERY_CALL_TOKENS)
        # no model call and no tool call (a guardrail tripwire, say): no token is missing
    elif not tokens and read.model_calls_without_usage:
        streamed = read.streamed_without_usage
        for item in TOKEN_ITEMS:
            what = (f"{read.model_calls_without_usage} of "
                    f"{_plural(read.model_calls, 'model call')} recorded no token count")
            if streamed:
                what += f" ({streamed} streamed" + (
                    ", the request asked for usage)" if read.stream_usage_asked else ")")
            add(item, what, fix=_stream_fix(read, known, provider) if streamed else None,
                certain=item in _EVERY_CALL_TOKENS)
    elif not tokens:
        pass  # every model call failed: nothing was billed that a span could show
    else:
        for item in ("cached_tokens", "reasoning_tokens"):
            if getattr(read, item) or item in counted:
                continue
            for instrumentation in known:
                limits = instrumentation.limits_of((versions or {}).get(id(instrumentation), ""))
                if item in limits:
                    kind = item.split("_")[0]
                    add(item, f"no {kind} tokens read, and {instrumentation.package} does not "
                              f"record them", certain=False,
                        fix=(limits[item], instrumentation.package))
                    break
    return tuple(gaps)


def _task_id_gap(episode: Any, spans: Sequence[Any] = ()) -> tuple:
    """The task-id gap of an episode that carries none (``ek-otel score`` cannot link it to a
    task without ``--task``), as a one-gap tuple, else ``()``. When a task-id key sits on a
    span below the root (where linking does not look), the gap says which span and key.

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> _task_id_gap(Episode("t")), _task_id_gap(Episode(""))[0].fix[:22]
        ((), 'set ek.task.id on each')
        >>> child = SpanRecord("a" * 32, "c" * 16, "b" * 16, "plan",
        ...                    attributes={"gen_ai.task.id": "t1"})
        >>> _task_id_gap(Episode(""), [child])[0].what[:53]
        "gen_ai.task.id 't1' is on span 'plan', below the root"
    """
    if episode.task_id:
        return ()
    root = getattr(episode.provenance, "root_span_id", "") if episode.provenance else ""
    for span in sorted(spans, key=lambda s: s.start_ns if type(s.start_ns) is int else 0):
        if span.span_id == root or type(span.attributes) is not dict:
            continue
        for key in sc.DEFAULT_TASK_ID_KEYS:
            value = span.attributes.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
                return (Gap(TASK_ID, f"{key} {str(value)[:60]!r} is on span {span.name!r}, below "
                                     "the root: ek-otel reads the task id from the root span "
                                     "or a resource, so the run cannot be linked to a task",
                            TASK_ID_FIX),)
    return (Gap(TASK_ID, "no task id attribute on the root span or the resource: the run "
                         "cannot be linked to a task", TASK_ID_FIX),)


def _unread(episode: Any, spans: Sequence[Any]) -> tuple:
    root = getattr(episode.provenance, "root_span_id", "") if episode.provenance else ""
    stepped = {s.span_id for s in episode.trajectory.steps if s.span_id}
    names = Counter(
        s.name or "(no name)" for s in spans
        if isinstance(s, SpanRecord) and s.span_id != root and s.span_id not in stepped
        and sc.span_role(s) == sc.OTHER)
    return tuple(sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))


def diagnose_episode(episode: Any, spans: Sequence[Any], logs: Sequence[Any] = ()) -> TraceDiagnosis:
    """The :class:`TraceDiagnosis` of one episode built from ``spans`` and ``logs``
    (see the module doc).

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> diagnose_episode(Episode("t"), []).framework is None
        True
    """
    spans = [s for s in spans if isinstance(s, SpanRecord)]
    scopes = _scopes(spans)
    known = _known(scopes)
    read = _read(episode, spans)
    provider = _provider(spans)
    versions = {id(scope.known): scope.version for scope in scopes if scope.known is not None}
    provenance = episode.provenance
    return TraceDiagnosis(
        trace_id=getattr(provenance, "trace_id", "") or "",
        task_id=episode.task_id or "",
        service=getattr(provenance, "service_name", None),
        framework=known[0].framework if known else None,
        scopes=scopes,
        spans=len(spans),
        logs=len(logs),
        read=read,
        gaps=_gaps(read, known, provider, versions, _counted(spans)) + _task_id_gap(episode, spans),
        unread_spans=_unread(episode, spans),
    )


def diagnose(items: Iterable[tuple]) -> Diagnosis:
    """Diagnose ``(episode, spans, logs)`` triples and total them.

    Example:
        >>> from ek_otel.core.episode import Episode
        >>> d = diagnose([(Episode("a"), [], []), (Episode("b"), [], [])])
        >>> d.total.traces, d.total.read.tool_calls
        (2, 0)
        >>> d = diagnose([(Episode("", meta={"not_an_agent_run": "MCP ping"}), [], [])])
        >>> d.traces, [n.what for n in d.not_runs], d.total.not_runs
        ((), ['MCP ping'], (('MCP ping', 1),))
    """
    traces: list = []
    not_runs: list = []
    for episode, spans, logs in items:
        if is_agent_run(episode):
            traces.append(diagnose_episode(episode, spans, logs))
        else:
            not_runs.append(NotARun(getattr(episode.provenance, "trace_id", "") or "",
                                    episode.meta[NOT_A_RUN],
                                    sum(1 for s in spans if isinstance(s, SpanRecord))))
    return Diagnosis(tuple(traces), _total(traces, not_runs), tuple(not_runs))


def _total(traces: Sequence[TraceDiagnosis], not_runs: Sequence[NotARun] = ()) -> Total:
    frameworks = Counter(t.framework or "(none recognised)" for t in traces)
    scope_spans: Counter = Counter()
    scope_conventions: dict = {}
    gaps: Counter = Counter()
    gap_of: dict = {}
    unread: Counter = Counter()
    read = Read()
    for trace in traces:
        read = read + trace.read
        for scope in trace.scopes:
            scope_spans[(scope.name, scope.version)] += scope.spans
            scope_conventions.setdefault((scope.name, scope.version), set()).update(
                scope.conventions)
        for gap in trace.gaps:
            key = (gap.item, gap.fix, gap.certain, gap.package, gap.provider)
            gaps[key] += 1
            gap_of.setdefault(key, Gap(gap.item, "", gap.fix, gap.certain, gap.package,
                                       gap.provider))
        unread.update(dict(trace.unread_spans))
    return Total(
        traces=len(traces),
        frameworks=tuple(frameworks.most_common()),
        scopes=tuple(ScopeSeen(name, version, n, _in_marker_order(scope_conventions[(name, version)]))
                     for (name, version), n in
                     sorted(scope_spans.items(), key=lambda kv: (-kv[1], kv[0]))),
        read=read,
        gaps=tuple((gap_of[key], n) for key, n in gaps.most_common()),
        unread_spans=tuple(sorted(unread.items(), key=lambda kv: (-kv[1], kv[0]))),
        not_runs=tuple(Counter(n.what for n in not_runs).most_common()),
    )


def _in_marker_order(names: set) -> tuple:
    return tuple(name for _, name in sc.CONVENTION_MARKERS if name in names)
