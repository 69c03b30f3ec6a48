"""Scoring one episode against its task.

- :func:`score_episode` scores one :class:`~ek_otel.core.episode.Episode` against its
  :class:`~ek_otel.core.episode.TaskSpec` and returns an
  :class:`~ek_otel.core.scores.EpisodeScore` (what the emit stage writes back): the calls
  aligned and counted (:mod:`ek_otel.core.toolcalls`), the expected answer
  (:mod:`ek_otel.core.answer`), cost and dollars, the settings it was scored with.
- A corpus of scores is aggregated by :func:`ek_otel.core.aggregate.aggregate_scores`;
  ``ek_otel.evaluate`` scores a corpus: micro precision/recall/F1, exact-match rate,
  per-task and per-slice cuts, pass@k and pass^k over repeated trials, cost, dollars and
  value-weighted success. It refuses to pool runs whose provenance keys differ.

Example:
    >>> from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
    >>> task = TaskSpec("t1", gold=[("search", {"q": "cats"})])
    >>> ok = Episode("t1", Trajectory([Step("search", {"q": "Cats"})]))
    >>> bad = Episode("t1", Trajectory([Step("search", {"q": "dogs"})]))
    >>> score_episode(bad, task).explanation
    "0/1 calls matched; search.q: expected 'cats', got 'dogs'"
    >>> from ek_otel import evaluate  # the corpus loop over score_episode (ek_otel.scoring)
    >>> r = evaluate([ok, bad], [task], k=1)
    >>> r.exact_rate, r.f1, r.pass_at_k["t1"]
    (0.5, 0.5, 0.5)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Optional, Union

from .cost import ModelPrice, PriceTable, dollars as price_dollars
from .episode import Cost, TaskSpec
from .fields import counts_and_rates, defined_precision_recall_f1, normalise_type
from .agents import agents_of
from .arguments import compare_args
from .grammar import GraphGrammar
from .hardrules import HardRules
from .ignore import check_ignore_patterns, merge_ignore_patterns, without_ignored
from .modes import arg_modes_of, decide
from .pairing import check_strategy
from .passk import default_k, pass_at_k, pass_hat_k
from .scores import EpisodeScore
from .toolcalls import align_calls, calls_of, check_level, explain_alignment
from .turns import score_turns, turns_note

__all__ = [
    "pass_at_k",
    "pass_hat_k",
    "default_k",
    "score_episode",
    "canonicalizer_name",
]

Prices = Union[PriceTable, Mapping[str, ModelPrice], None]


# ---------------------------------------------------------------------------
# One episode
# ---------------------------------------------------------------------------


def _price_table(prices: Prices) -> Optional[PriceTable]:
    if prices is None or isinstance(prices, PriceTable):
        return prices
    return PriceTable(dict(prices))


def canonicalizer_name(canonicalizer: Any) -> str:
    """A value canonicalizer's name, as scores and provenance record it (``"default"`` for None).

    Example:
        >>> canonicalizer_name(None), canonicalizer_name(str.lower)
        ('default', 'str.lower')
    """
    if canonicalizer is None:
        return "default"
    return getattr(canonicalizer, "__qualname__", None) or getattr(
        canonicalizer, "__name__", type(canonicalizer).__name__
    )


def _has_types(grammar: GraphGrammar) -> bool:
    return any(
        normalise_type(spec.type) is not None
        for node in grammar.node_types.values()
        for spec in node.fields.values()
    )


#: id(task) -> (task, grammar, gold calls, has types): what scoring derives from a task,
#: made once per task instead of once per episode (a corpus has many episodes per task).
_TASK_PARTS: dict = {}
_TASK_PARTS_MAX = 4096


def _task_parts(task: TaskSpec) -> tuple:
    """``(grammar, gold_calls, has_types, arg_modes, hard_rules)`` of a task (cached while the
    same object lives; TaskSpec is frozen, and its tools and gold are tuples)."""
    key = id(task)
    parts = _TASK_PARTS.get(key)
    if parts is None or parts[0] is not task:
        grammar = task.grammar()
        gold_calls = calls_of(task)
        parts = (task, grammar, gold_calls, _has_types(grammar),
                 arg_modes_of(gold_calls, task.args, task.args_by_tool, task.call_args),
                 HardRules(task.forbid, task.max_calls, task.no_repeat))
        if len(_TASK_PARTS) >= _TASK_PARTS_MAX:
            _TASK_PARTS.clear()
        _TASK_PARTS[key] = parts
    return parts[1:]


def score_episode(
    episode: Any,
    task: TaskSpec,
    *,
    level: str = "call",
    canonicalizer: Any = None,
    strategy: str = "optimal",
    prices: Prices = None,
    reasoning_in_output: bool = True,
    ignore_tools: Sequence[str] = (),
) -> EpisodeScore:
    """Score one episode against its task.

    - The gold calls are ``task.gold``; for a multi-turn task (``task.turns`` set) the turns
      are flattened in order and matched against the episode's calls as one sequence, so
      ``exact`` requires every turn's calls (an episode records no turn boundaries).
    - ``task.tools`` gives the grammar: cost weights, and type checks where arguments are
      typed.
    - When ``task.ordered`` is True the pairing is order-respecting (``strategy="ordered"``,
      a weighted longest common subsequence): a call made out of order counts as spurious
      and its gold call as missing. Otherwise ``strategy`` decides (default ``"optimal"``).
    - ``success`` equals ``exact``: every gold call matched exactly, nothing extra called.
    - ``dollars`` is set only when ``prices`` knows ``episode.run.model`` and the episode
      recorded its cost in full; it is None otherwise (a model call without usage:
      ``cost.complete`` False), never a made-up 0.
    - Calls to ``ignore_tools`` and to the task's own ``ignore_tools`` (framework-internal
      tools: smolagents' ``final_answer``, the Agents SDK's ``transfer_to_*`` handoffs; see
      :mod:`ek_otel.core.ignore`) are removed before matching: neither true nor false
      positives. The explanation names them, and ``settings["ignored_calls"]`` counts them.

    Example:
        >>> from ek_otel.core.episode import (AnyOf, Cost, Episode, RunProvenance, Step,
        ...     TaskSpec, Trajectory)
        >>> from ek_otel.core.cost import ModelPrice
        >>> task = TaskSpec("r1", gold=[("refund", {"amount": AnyOf((10,))}), ("notify", {})])
        >>> ep = Episode("r1", Trajectory([Step("refund", {"amount": 100})]),
        ...              cost=Cost(input_tokens=1000), run=RunProvenance(model="m-1"))
        >>> s = score_episode(ep, task, prices={"m": ModelPrice(2.0, 8.0)})
        >>> s.explanation
        '0/2 calls matched; refund.amount: expected 10, got 100; missing: notify'
        >>> s.tp, s.fp, s.fn, s.exact, s.dollars
        (0.0, 1.0, 2.0, False, 0.002)
        >>> s.missing_calls
        (('notify', {}),)
        >>> done = Episode("r1", Trajectory([Step("refund", {"amount": 10}), Step("notify"),
        ...                                  Step("final_answer", {"text": "done"})]))
        >>> s = score_episode(done, task, ignore_tools=["final_answer"])
        >>> s.fp, s.exact, s.explanation
        (0.0, True, '2/2 calls matched exactly; ignored: final_answer')
    """
    check_level(level)
    if len(task.alternatives) > 1:
        return _score_alternatives(episode, task, level=level, canonicalizer=canonicalizer,
                                   strategy=strategy, prices=prices,
                                   reasoning_in_output=reasoning_in_output,
                                   ignore_tools=ignore_tools)
    if ignore_tools:
        ignore_tools = check_ignore_patterns(ignore_tools)
    check_strategy(strategy)
    grammar, gold_calls, has_types, arg_modes, hard_rules = _task_parts(task)
    used_strategy = "ordered" if task.ordered else strategy
    ignore = merge_ignore_patterns(ignore_tools, task.ignore_tools) if (
        ignore_tools or task.ignore_tools) else ()
    episode, ignored = without_ignored(episode, ignore)
    alignment = align_calls(
        episode, gold_calls, canon=canonicalizer, strategy=used_strategy, grammar=grammar,
        optional=task.optional, arg_modes=arg_modes, gold_agents=task.call_agents,
    )
    tp, fp, fn = alignment.counts(level)
    exact = success = alignment.exact

    explanation = explain_alignment(alignment) + _weights_note(alignment, level, tp, fp, fn)
    if task.match != "exact":
        decision = _decide(alignment, task, canonicalizer, grammar, arg_modes,
                           agents_of(episode) if task.call_agents else ())
        success = decision.success
        explanation = f"{decision.text}; {explanation}"
    violations = hard_rules.violations(alignment.pred) if hard_rules.active else ()
    if violations:
        success = False
        explanation += "; " + "; ".join(v.text for v in violations[:_MAX_VIOLATIONS]) + (
            f" (+{len(violations) - _MAX_VIOLATIONS} more)" if len(violations) > _MAX_VIOLATIONS
            else "")
    turns: tuple = ()
    if task.turns is not None:
        turns, n_run = score_turns(episode, task, lambda ep, part: score_episode(
            ep, part, level=level, canonicalizer=canonicalizer, strategy=strategy))
        if turns:
            success = success and all(t.success for t in turns) and n_run == len(task.turns)
            note = turns_note(turns, n_run, len(task.turns), detail=exact)
            if note:  # first when only the turns fail the run; else after the calls' reasons
                explanation = f"{note}; {explanation}" if exact else f"{explanation}; {note}"
    steps = getattr(getattr(episode, "trajectory", None), "steps", ())
    args_captured = all(getattr(s, "args_captured", True) for s in steps)
    if ignored:
        explanation += "; ignored: " + ", ".join(
            f"{tool} x{n}" if n > 1 else tool for tool, n in Counter(ignored).items())
    if not args_captured:
        explanation += " (arguments were not captured by the instrumentation)"

    cost = episode.cost if episode.cost is not None else Cost()
    episode_dollars = None
    table = _price_table(prices)
    model = getattr(episode.run, "model", "") if episode.run is not None else ""
    if table is not None and episode.cost is not None and model and cost.complete:
        price = table.find(model)
        if price is not None:
            episode_dollars = price_dollars(
                episode.cost, price, reasoning_in_output=reasoning_in_output
            )

    provenance = getattr(episode, "provenance", None)
    return EpisodeScore(
        task_id=task.task_id,
        trace_id=getattr(provenance, "trace_id", "") or "",
        metric="tool_call",
        level=level,
        **counts_and_rates(tp, fp, fn),
        exact=exact,
        success=success,
        explanation=explanation,
        arg_diffs=alignment.arg_diffs,
        missing_calls=alignment.missing_calls,
        spurious_calls=alignment.spurious_calls,
        cost=cost,
        dollars=episode_dollars,
        settings=_settings(level, used_strategy, bool(task.ordered), canonicalizer_name(canonicalizer),
                           has_types, task.turns is not None, args_captured, ignore, len(ignored),
                           task.match, task.args if not arg_modes else _arg_mode_name(arg_modes)),
        calls=alignment.rows(None if task.turns is None else [len(t) for t in task.turns],
                             _row_agents(steps, task)),
        violations=violations,
        turns=turns,
    )


def _row_agents(steps: Sequence[Any], task: TaskSpec) -> tuple:
    """The agent of each call, for the score's rows: only in a multi-agent run (two agents or
    more) or for a task that pins calls to agents; ``()`` otherwise (rows keep their shape).

    Example:
        >>> from ek_otel.core.episode import Step
        >>> _row_agents([Step("a", agent="x"), Step("b", agent="y")], TaskSpec("t"))
        ('x', 'y')
        >>> _row_agents([Step("a", agent="x")], TaskSpec("t"))
        ()
    """
    agents = tuple(getattr(s, "agent", None) for s in steps)
    if task.call_agents or len({a for a in agents if a is not None}) > 1:
        return agents
    return ()


#: Hard-rule failures an explanation names (the score keeps them all).
_MAX_VIOLATIONS = 3


def _arg_mode_name(arg_modes: Sequence[str]) -> str:
    """The one argument mode of every gold call, or ``"mixed"``.

    Example:
        >>> _arg_mode_name(("subset", "subset")), _arg_mode_name(("subset", "exact"))
        ('subset', 'mixed')
    """
    modes = set(arg_modes)
    return modes.pop() if len(modes) == 1 else "mixed"


def _decide(alignment: Any, task: TaskSpec, canonicalizer: Any, grammar: GraphGrammar,
            arg_modes: Sequence[str], pred_agents: Sequence[Optional[str]] = ()) -> Any:
    """The :class:`~ek_otel.core.modes.Decision` of ``task.match`` over the aligned calls.

    Example:
        >>> from ek_otel.core.episode import AnyOf, TaskSpec
        >>> task = TaskSpec("t", gold=[("a", {"x": AnyOf((1,))})], match="superset", args="subset")
        >>> a = align_calls([("b", {}), ("a", {})], task.gold)
        >>> _decide(a, task, None, GraphGrammar(), ("subset",)).text
        'superset: 1 of 1 gold calls made; 1 extra call allowed'
    """
    pred, gold = alignment.pred, alignment.gold

    def fits(i: int, j: int) -> bool:
        mode = arg_modes[j] if arg_modes else "exact"
        agent = task.call_agents.get(j)
        if agent is not None and pred_agents[i] != agent:
            return False
        return compare_args(pred[i][0], pred[i][1], gold[j][1], canon=canonicalizer,
                            grammar=grammar, mode=mode).exact

    return decide(pred, gold, fits, task.match, ordered=bool(task.ordered),
                  optional=task.optional)


def _weights_note(alignment: Any, level: str, tp: float, fp: float, fn: float) -> str:
    """What the F1 counts, when it is not the share of calls matched: ``"; weighted F1
    0.091: refund weighs 10"`` (call weights, and at arg level the weights of the arguments
    that disagreed); ``""`` when the F1 is the plain call count's.

    Example:
        >>> from ek_otel.core.episode import AnyOf, ToolSpec, tool_grammar
        >>> from ek_otel.core.grammar import FieldSpec
        >>> g = tool_grammar(ToolSpec("refund", {"amount": FieldSpec("amount", importance=20.0)},
        ...                           destructive=True))
        >>> a = align_calls([("lookup", {}), ("refund", {"amount": 355})],
        ...                 [("lookup", {}), ("refund", {"amount": AnyOf((35.5,))})], grammar=g)
        >>> _weights_note(a, "call", *a.counts("call"))
        '; weighted F1 0.091: refund weighs 10'
        >>> _weights_note(a, "arg", *a.counts("arg"))
        '; weighted F1 0.355 (arguments counted): refund weighs 10, refund.amount weighs 20'
        >>> _weights_note(align_calls([("lookup", {})], [("lookup", {})]), "call", 1.0, 0.0, 0.0)
        ''
        >>> b = align_calls([("f", {"x": 1, "y": 2})], [("f", {"x": AnyOf((1,)), "y": AnyOf((3,))})])
        >>> _weights_note(b, "arg", *b.counts("arg"))
        '; F1 0.667 counts arguments'
    """
    f1 = defined_precision_recall_f1(tp, fp, fn)[2]
    if f1 is None:
        return ""
    n_pred, n_gold = len(alignment.pred), len(alignment.gold)
    plain = 2 * alignment.n_exact / (n_pred + n_gold) if n_pred + n_gold else None
    if plain is not None and abs(f1 - plain) < 1e-9:
        return ""
    grammar = alignment.grammar
    weights: dict = {}
    for tool, _ in (*alignment.pred, *alignment.gold):
        cost = grammar.node_cost(tool)
        if cost != 1.0:
            weights.setdefault(tool, cost)
    if level != "call":
        for diff in alignment.arg_diffs:
            if diff.weight != 1.0:
                weights.setdefault(f"{diff.tool}.{diff.arg}", diff.weight)
    if not weights:
        return "" if level == "call" else f"; F1 {f1:.3f} counts arguments"
    counted = "" if level == "call" else " (arguments counted)"
    named = ", ".join(f"{name} weighs {weight:g}" for name, weight in list(weights.items())[:4])
    return f"; weighted F1 {f1:.3f}{counted}" + (f": {named}" if named else "")
#: id(task) -> (task, one TaskSpec per alternative): made once per task, not per episode.
_ALTERNATIVES: dict = {}


def _alternative_tasks(task: TaskSpec) -> tuple:
    """One single-list :class:`TaskSpec` per alternative of ``task`` (cached per task)."""
    known = _ALTERNATIVES.get(id(task))
    if known is None or known[0] is not task:
        if len(_ALTERNATIVES) >= _TASK_PARTS_MAX:
            _ALTERNATIVES.clear()
        known = _ALTERNATIVES[id(task)] = (task, tuple(
            replace(task, gold=alt.calls, optional=alt.optional, alternatives=(),
                    call_args=alt.call_args, call_agents=alt.call_agents)
            for alt in task.alternatives))
    return known[1]


def _score_alternatives(episode: Any, task: TaskSpec, **options: Any) -> EpisodeScore:
    """The score against the alternative that suits the run best: exact first, then the
    higher F1, then the more true positives, then the fewer errors (a success under the
    task's ``match`` before all); the earlier alternative on a tie. The
    explanation names it (``alternative 2 of 3: ...``).

    Example:
        >>> from ek_otel.core.episode import Alternative, Episode, Step, TaskSpec, Trajectory
        >>> task = TaskSpec("t", gold=[("refund", {})], alternatives=[
        ...     Alternative([("refund", {})]), Alternative([("escalate", {}), ("notify", {})])])
        >>> ep = Episode("t", Trajectory([Step("escalate"), Step("notify")]))
        >>> s = score_episode(ep, task)
        >>> s.exact, s.explanation
        (True, 'alternative 2 of 2: 2/2 calls matched exactly')
    """
    alternatives = _alternative_tasks(task)
    best = best_key = None
    for number, alternative in enumerate(alternatives, start=1):
        score = score_episode(episode, alternative, **options)
        key = (score.success, score.exact, score.f1, score.tp, -(score.fp + score.fn))
        if best is None or key > best_key:
            best, best_key, chosen = score, key, number
    return replace(best, explanation=f"alternative {chosen} of {len(alternatives)}: {best.explanation}")


#: The settings dicts made so far, shared by the scores that have the same (a corpus has a
#: handful of distinct ones and up to millions of scores; a score never changes its dict).
_SETTINGS: dict = {}


def _settings(level: str, strategy: str, ordered: bool, canonicalizer: str, type_checks: bool,
              multi_turn: bool, args_captured: bool, ignore: tuple = (), ignored: int = 0,
              match: str = "exact", args: str = "exact") -> dict:
    key = (level, strategy, ordered, canonicalizer, type_checks, multi_turn, args_captured,
           ignore, ignored, match, args)
    settings = _SETTINGS.get(key)
    if settings is None:
        if len(_SETTINGS) >= 1024:
            _SETTINGS.clear()
        settings = _SETTINGS[key] = {
            "level": level,
            "strategy": strategy,
            "ordered": ordered,
            "canonicalizer": canonicalizer,
            "type_checks": type_checks,
            "multi_turn": multi_turn,
            "args_captured": args_captured,
        }
        if ignore:  # only when used: scores without it keep their exact shape
            settings.update(ignore_tools=list(ignore), ignored_calls=ignored)
        if match != "exact":  # the same: only when not the default
            settings["match"] = match
        if args != "exact":
            settings["args"] = args
    return settings
