"""The episode and the task/tool grammar: the shapes every stage of ek-otel passes along.

Two layers, as in the ``ek`` agent-evaluation library:

- **the grammar** (:class:`ToolSpec`, :class:`TaskSpec`) says which tools exist and what a
  wrong call or a wrong argument costs; a wrong argument to a *destructive* tool is not one
  unit of error;
- **the episode** (:class:`Step`, :class:`Trajectory`, :class:`Cost`, :class:`Episode`)
  is one run: the calls made, what they cost, and where they came from.

Example:
    >>> from ek_otel.core.grammar import FieldSpec
    >>> book = ToolSpec("book_flight", params={"flight": FieldSpec("flight", "string"),
    ...                                        "seat": FieldSpec("seat", "string")})
    >>> refund = ToolSpec("refund", params={"amount": FieldSpec("amount", "number",
    ...                                     importance=20.0)}, destructive=True)
    >>> g = tool_grammar(book, refund)
    >>> g.field_cost("refund", "amount")        # a wrong refund amount is expensive
    20.0
    >>> g.field_cost("book_flight", "seat")     # a wrong seat is not
    1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Optional

from .fastinit import fast_init
from .grammar import FieldSpec, GraphGrammar, NodeType

__all__ = [
    "DEFAULT_TASK_VALUE",
    "DESTRUCTIVE_WEIGHT",
    "AnyOf",
    "ToolSpec",
    "TaskSpec",
    "Alternative",
    "tool_grammar",
    "suite_grammar",
    "Step",
    "Trajectory",
    "Cost",
    "RunProvenance",
    "Provenance",
    "Episode",
    "as_call",
    "is_episode",
]

#: Default value of a completed task.
DEFAULT_TASK_VALUE = 1.0

#: Weight of a destructive tool whose importance is not set explicitly.
DESTRUCTIVE_WEIGHT = 10.0


# ---------------------------------------------------------------------------
# Gold values
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AnyOf:
    """A gold argument value given as a set of admissible values (BFCL's possible answer).

    ``""`` among the values means the argument may be omitted. An exact gold value is the
    one-element case. Plain (non-``AnyOf``) gold values are compared exactly.

    Example:
        >>> v = AnyOf(("celsius", ""))
        >>> v.optional, v.values
        (True, ('celsius', ''))
        >>> AnyOf.of(["NYC", "New York"]).values
        ('NYC', 'New York')
    """

    values: tuple = ()

    @property
    def optional(self) -> bool:
        """True when ``""`` is admissible, i.e. the argument may be left out."""
        return any(isinstance(v, str) and v == "" for v in self.values)

    @classmethod
    def of(cls, values: Sequence[Any]) -> "AnyOf":
        """Build from any sequence of admissible values.

        Example:
            >>> AnyOf.of([1, 2])
            AnyOf(values=(1, 2))
        """
        return cls(tuple(values))


# ---------------------------------------------------------------------------
# The task/tool grammar
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    """One tool the agent may call: its argument schema and its error costs.

    Args:
        name: The tool (function) name.
        params: Argument name -> :class:`FieldSpec`; each ``importance`` is the cost of
            getting that argument wrong.
        importance: Weight of the call itself (a missing or spurious call). Defaults to
            :data:`DESTRUCTIVE_WEIGHT` when ``destructive`` is set, else 1.0.
        destructive: Whether the tool mutates the world irreversibly (refund, delete, send).
        description: Free text from the tool schema.
        schema: The raw JSON-schema ``parameters`` object, kept for type checks.

    Example:
        >>> ToolSpec("wipe", destructive=True).weight
        10.0
        >>> ToolSpec("wipe", importance=3.0, destructive=True).weight
        3.0
    """

    name: str
    params: Mapping[str, FieldSpec] = field(default_factory=dict)
    importance: Optional[float] = None
    destructive: bool = False
    description: str = ""
    schema: Optional[Mapping[str, Any]] = None

    @property
    def weight(self) -> float:
        """The call-level cost weight: explicit importance, else the destructive default."""
        if self.importance is not None:
            return float(self.importance)
        return DESTRUCTIVE_WEIGHT if self.destructive else 1.0

    def to_node_type(self) -> NodeType:
        """Render this tool as a grammar :class:`NodeType` (arguments become fields).

        Example:
            >>> ToolSpec("send", destructive=True).to_node_type().importance
            10.0
        """
        return NodeType(self.name, fields=dict(self.params), importance=self.weight)


def tool_grammar(*tools: ToolSpec) -> GraphGrammar:
    """Build the :class:`GraphGrammar` of a set of tools.

    Example:
        >>> g = tool_grammar(ToolSpec("send", params={"to": FieldSpec("to")},
        ...                           destructive=True))
        >>> g.node_cost("send")
        10.0
    """
    return GraphGrammar(node_types={t.name: t.to_node_type() for t in tools})


@dataclass(frozen=True)
class TaskSpec:
    """One task of a suite: its input, its gold calls, its value and its tools.

    Args:
        task_id: Stable identifier; the key that links an episode to its task.
        input: What the agent is asked (free form).
        gold: The expected calls: a sequence of ``(tool, {arg: value})`` pairs, where a
            value may be an :class:`AnyOf`. ``()`` means no call is expected.
        value: How much a completed task is worth.
        tools: The tools of this task (their schemas drive type checks and weights).
        slice: Optional slice label for per-slice cuts.
        ordered: Whether call order matters.
        turns: For multi-turn tasks, one gold call sequence per user turn.
        meta: Free-form metadata from the gold file.
        ignore_tools: Framework-internal tools whose calls are neither true nor false
            positives (names; ``*`` matches any run of characters; see
            :mod:`ek_otel.core.ignore`).
        optional: Indices (into ``gold``, turns flattened) of the gold calls a run may
            leave out (``"optional": true`` in the gold file).
        alternatives: Other acceptable call lists: :class:`Alternative` s, the first of
            which is ``gold``/``optional`` themselves. A run is scored against the one that
            suits it best (see :func:`ek_otel.core.evaluate.score_episode`).
        answer: What the final answer must say: a value, an :class:`AnyOf` or a rule
            (:mod:`ek_otel.core.rules`); None when the task gives none. Scored as its own
            metric, ``answer``, never mixed into the tool-call counts.
        match: What success asks of the calls: ``"exact"``, ``"superset"`` (extra calls
            allowed) or ``"subset"`` (gold calls may be missing); see
            :mod:`ek_otel.core.modes`. Precision, recall and F1 do not depend on it.
        args: The argument mode of every gold call: ``"exact"``, ``"ignore"``, ``"subset"``
            (a call may leave out gold arguments) or ``"superset"`` (it may add some).
        args_by_tool: Tool name -> argument mode, over ``args``.
        call_args: Gold call index (turns flattened) -> argument mode, over both.
        call_agents: Gold call index -> the agent that must make the call
            (:mod:`ek_otel.core.agents`).
        forbid, max_calls, no_repeat: The hard rules (:mod:`ek_otel.core.hardrules`).

    Example:
        >>> t = TaskSpec("t1", gold=[("search", {"q": "cats"})], tools=[ToolSpec("search")])
        >>> t.grammar().node_cost("search"), t.gold
        (1.0, (('search', {'q': 'cats'}),))
    """

    task_id: str
    input: Any = None
    gold: Any = ()
    value: float = DEFAULT_TASK_VALUE
    tools: Sequence[ToolSpec] = ()
    slice: Optional[str] = None
    ordered: bool = False
    turns: Optional[Sequence[Sequence[Any]]] = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    ignore_tools: Sequence[str] = ()
    optional: frozenset = frozenset()
    alternatives: Sequence["Alternative"] = ()
    answer: Any = None
    match: str = "exact"
    args: str = "exact"
    args_by_tool: Mapping[str, str] = field(default_factory=dict)
    call_args: Mapping[int, str] = field(default_factory=dict)
    call_agents: Mapping[int, str] = field(default_factory=dict)
    forbid: Sequence[str] = ()
    max_calls: Mapping[str, int] = field(default_factory=dict)
    no_repeat: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "forbid", tuple(self.forbid))
        object.__setattr__(self, "tools", tuple(self.tools))
        object.__setattr__(self, "ignore_tools", tuple(self.ignore_tools))
        object.__setattr__(self, "optional", frozenset(self.optional))
        object.__setattr__(self, "alternatives", tuple(self.alternatives))
        if isinstance(self.gold, (list, tuple)):
            object.__setattr__(self, "gold", tuple(as_call(c) for c in self.gold))
        if self.turns is not None:
            object.__setattr__(
                self, "turns", tuple(tuple(as_call(c) for c in turn) for turn in self.turns)
            )

    def grammar(self) -> GraphGrammar:
        """The grammar of this task's tools."""
        return tool_grammar(*self.tools)

    def tool(self, name: str) -> Optional[ToolSpec]:
        """The :class:`ToolSpec` called ``name``, or None.

        Example:
            >>> TaskSpec("t", tools=[ToolSpec("a")]).tool("a").name
            'a'
        """
        for t in self.tools:
            if t.name == name:
                return t
        return None


@dataclass(frozen=True)
class Alternative:
    """One acceptable list of gold calls of a task with ``alternatives``.

    Args:
        calls: ``(tool, {arg: value})`` pairs, as ``TaskSpec.gold``.
        optional: Indices of the calls a run may leave out.
        call_args: Call index -> argument mode (as ``TaskSpec.call_args``).
        call_agents: Call index -> agent (as ``TaskSpec.call_agents``).

    Example:
        >>> Alternative([("a", {})], optional=[0]).optional
        frozenset({0})
    """

    calls: Sequence[Any] = ()
    optional: frozenset = frozenset()
    call_args: Mapping[int, str] = field(default_factory=dict)
    call_agents: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(as_call(c) for c in self.calls))
        object.__setattr__(self, "optional", frozenset(self.optional))


def suite_grammar(tasks: Sequence[TaskSpec]) -> GraphGrammar:
    """The union grammar of a whole suite (a later tool wins on a name collision).

    Example:
        >>> suite_grammar([TaskSpec("a", tools=[ToolSpec("x", importance=2.0)])]).node_cost("x")
        2.0
    """
    node_types: dict = {}
    for task in tasks:
        for tool in task.tools:
            node_types[tool.name] = tool.to_node_type()
    return GraphGrammar(node_types=node_types)


# ---------------------------------------------------------------------------
# The episode
# ---------------------------------------------------------------------------


@fast_init
@dataclass(frozen=True)
class Step:
    """One step of a trajectory: a tool call and what came back.

    Args:
        tool: The tool name.
        args: The arguments (empty when none were captured; see ``args_captured``).
        observation: The tool's result, when recorded.
        error: Set when the call failed (the error type or message).
        call_id: The tool-call id, when the instrumentation recorded one.
        span_id: The hex id of the span the step was read from.
        agent: The name of the agent the step belongs to (multi-agent traces).
        agent_span_id: The hex id of that agent's span.
        args_captured: False when the instrumentation recorded no arguments at all.
        hosted: True for a tool the model provider ran itself (OpenAI's web search, file
            search, code interpreter; Anthropic's server tools): requested and answered in
            the model's own response, with no tool span of the application.
        turn: The user turn the call was made in (0 for the first user message), when the
            trace recorded the run's user messages (:mod:`ek_otel.ingest.turns`); None
            otherwise.

    Example:
        >>> Step("search", {"q": "cat"}).call
        ('search', {'q': 'cat'})
    """

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    observation: Any = None
    error: Optional[str] = None
    call_id: Optional[str] = None
    span_id: Optional[str] = None
    agent: Optional[str] = None
    agent_span_id: Optional[str] = None
    args_captured: bool = True
    hosted: bool = False
    turn: Optional[int] = None

    @property
    def call(self) -> tuple:
        """The ``(tool, args)`` pair: what tool-call correctness compares."""
        return (self.tool, dict(self.args))


def as_call(x: Any) -> tuple:
    """Coerce a :class:`Step`, a ``(tool, args)`` pair, a ``{"tool":…, "args":…}`` dict, or a name.

    Example:
        >>> as_call(Step("search", {"q": "cat"}))
        ('search', {'q': 'cat'})
        >>> as_call(("search", {"q": "cat"}))
        ('search', {'q': 'cat'})
        >>> as_call({"tool": "search", "args": {"q": "cat"}})
        ('search', {'q': 'cat'})
        >>> as_call("search")
        ('search', {})
    """
    if isinstance(x, Step):
        return x.call
    if isinstance(x, str):
        return (x, {})
    if isinstance(x, Mapping):
        name = x.get("tool", x.get("name", x.get("function", "")))
        args = x.get("args", x.get("arguments", x.get("parameters", {}))) or {}
        return (str(name), dict(args))
    if isinstance(x, Sequence) and len(x) >= 1:
        name = x[0]
        args = x[1] if len(x) > 1 and isinstance(x[1], Mapping) else {}
        return (str(name), dict(args))
    raise TypeError(
        f"cannot read a tool call from {type(x).__name__}; pass a Step, a "
        "(tool, args) pair, or a {'tool': ..., 'args': ...} mapping"
    )


@fast_init
@dataclass(frozen=True)
class Trajectory:
    """The ordered steps an agent took.

    Example:
        >>> t = Trajectory([Step("search", {"q": "cat"}), Step("answer", {"a": "meow"})])
        >>> len(t), t.tools
        (2, ('search', 'answer'))
    """

    steps: Sequence[Step] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __getitem__(self, i):
        return self.steps[i]

    @property
    def tools(self) -> tuple:
        """The tool names in call order."""
        return tuple(s.tool for s in self.steps)

    @property
    def calls(self) -> tuple:
        """The ``(tool, args)`` pairs in call order."""
        return tuple(s.call for s in self.steps)


@fast_init
@dataclass(frozen=True)
class Cost:
    """What one episode consumed: tokens by kind, retries, and wall-clock time.

    Token kinds are kept apart because they are priced differently; dollars come from a
    pricing table (:mod:`ek_otel.core.cost`), never from a raw token count.

    Example:
        >>> a = Cost(input_tokens=100, output_tokens=50)
        >>> b = Cost(input_tokens=10, output_tokens=5, retries=1)
        >>> c = a + b
        >>> c.input_tokens, c.output_tokens, c.retries
        (110, 55, 1)
        >>> sum([Cost(input_tokens=1), Cost(input_tokens=2)], Cost()).total_tokens
        3
        >>> (a + Cost(calls_without_usage=2)).complete, a.complete
        (False, True)

    ``calls_without_usage`` counts the model calls whose tokens no span recorded (a
    streamed answer without usage, say): the token counts are then a lower bound and the
    cost is not ``complete``; it is never priced as if they cost nothing.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    retries: int = 0
    latency_s: Optional[float] = None
    calls_without_usage: int = 0

    def __add__(self, other: "Cost") -> "Cost":
        if not isinstance(other, Cost):
            return NotImplemented
        latency = None
        if self.latency_s is not None or other.latency_s is not None:
            latency = (self.latency_s or 0.0) + (other.latency_s or 0.0)
        return Cost(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            retries=self.retries + other.retries,
            latency_s=latency,
            calls_without_usage=self.calls_without_usage + other.calls_without_usage,
        )

    def __radd__(self, other: Any) -> "Cost":
        if other == 0 or other is None:
            return self
        return self.__add__(other)

    @property
    def complete(self) -> bool:
        """Whether every model call recorded its tokens (else the counts are a lower bound)."""
        return not self.calls_without_usage

    @property
    def total_tokens(self) -> int:
        """All counted tokens (a size proxy, not a price)."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cached_input_tokens
            + self.reasoning_tokens
        )


@fast_init
@dataclass(frozen=True)
class RunProvenance:
    """The hidden variables that decide whether two runs are comparable.

    Example:
        >>> a = RunProvenance(seed=1, temperature=0.2, model="m", suite_version="v1")
        >>> b = RunProvenance(seed=2, temperature=0.7, model="m", suite_version="v1")
        >>> a.comparability_key() == b.comparability_key()
        True
    """

    seed: Optional[int] = None
    temperature: Optional[float] = None
    model: str = ""
    simulator: str = ""
    suite_version: str = ""
    scaffold: str = ""

    def comparability_key(self) -> tuple:
        """The fields that must match for runs to be pooled: all but seed and temperature."""
        return (self.model, self.simulator, self.suite_version, self.scaffold)


@fast_init
@dataclass(frozen=True)
class Provenance:
    """Where an episode was read from: the trace, its root span, and the instrumentation.

    ``root_end_ns`` is the root span's end time (Unix ns; 0 when unknown): scores written back
    into the trace are placed there, so that they do not stretch the trace's duration.

    Example:
        >>> Provenance(trace_id="ab" * 16, root_span_id="cd" * 8).trace_id[:4]
        'abab'
    """

    source: str = ""
    trace_id: str = ""
    root_span_id: str = ""
    conversation_id: Optional[str] = None
    service_name: Optional[str] = None
    service_version: Optional[str] = None
    agent_name: Optional[str] = None
    instrumentation: tuple = ()
    span_count: int = 0
    args_captured: bool = True
    root_end_ns: int = 0


@fast_init
@dataclass(frozen=True)
class Episode:
    """One agent run over one task: the object ek-otel scores.

    Args:
        task_id: Which task the run answers (the k-trial grouping key).
        trajectory: The tool calls made.
        output: The agent's final answer.
        final_state: The end state of the world, when known.
        cost: The :class:`Cost` consumed.
        success: Set by grading; None until graded.
        run: The :class:`RunProvenance` (seed, model, simulator, suite version, scaffold).
        provenance: Where the episode came from (:class:`Provenance`).
        meta: Anything else the reader captured.

    Example:
        >>> e = Episode("t1", Trajectory([Step("search", {"q": "x"})]), meta={"k": 1})
        >>> g = e.graded(True)
        >>> g.success, e.success, g.meta is e.meta, g.calls
        (True, None, False, (('search', {'q': 'x'}),))
    """

    task_id: str = ""
    trajectory: Trajectory = field(default_factory=Trajectory)
    output: Any = None
    final_state: Any = None
    cost: Optional[Cost] = None
    success: Optional[bool] = None
    run: Optional[RunProvenance] = None
    provenance: Optional[Provenance] = None
    meta: dict = field(default_factory=dict)

    @property
    def calls(self) -> tuple:
        """The ``(tool, args)`` pairs taken, in order."""
        return self.trajectory.calls

    def graded(self, success: bool) -> "Episode":
        """A copy with ``success`` set; ``meta`` is copied too, never shared."""
        return replace(self, success=success, meta=dict(self.meta))


def is_episode(x: Any) -> bool:
    """Duck-typed episode check: anything with a trajectory and a task id.

    Example:
        >>> is_episode(Episode("t")), is_episode("t")
        (True, False)
    """
    return hasattr(x, "trajectory") and hasattr(x, "task_id")
