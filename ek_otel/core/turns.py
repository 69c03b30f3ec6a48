"""Per-turn scores: a task with ``turns`` scored turn by turn against the run's user turns.

A multi-turn task gives one gold call list per user turn (``TaskSpec.turns``; an ADK eval
case's invocations). When the run's steps carry their user turn (:attr:`Step.turn
<ek_otel.core.episode.Step.turn>`, read by ingest from the user messages the run's model
calls were sent), each turn's calls are scored against that turn's gold calls alone, in the
task's match and argument modes (hard rules are the run's, not a turn's); the run succeeds
only when every turn does (and the calls as one sequence do). A run with fewer or more user
turns than the gold fails (the conversation was not the gold's; ADK refuses such a pair), and
is still scored on every turn of either, so the page shows where it parted: a gold turn the
run never reached has no calls, a turn beyond the gold has no gold calls; the explanation
says so.

Example:
    >>> from ek_otel.core.episode import Episode, Step, TaskSpec, Trajectory
    >>> from ek_otel.core.evaluate import score_episode
    >>> task = TaskSpec("t", turns=[[("search", {})], [("book", {})]])
    >>> early = Episode("t", Trajectory([Step("search", turn=0), Step("book", turn=0)]),
    ...                 meta={"user_turns": 2})
    >>> s = score_episode(early, task)
    >>> s.exact, s.success, [t.success for t in s.turns]
    (True, False, [False, False])
    >>> s.explanation
    'turns: 0 of 2 passed (turn 1: 1/1 calls matched; spurious: book; turn 2: 0/1 calls matched; missing: book); 2/2 calls matched exactly'
    >>> s = score_episode(Episode("t", Trajectory([Step("search", turn=0)])), task)
    >>> s.success, s.explanation
    (False, '1/2 calls matched; missing: book; turns: the run has 1 user turn, the gold 2; 1 of 2 passed (turn 2 failed)')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional

from .episode import TaskSpec, Trajectory

__all__ = ["TurnScore", "run_turns", "turn_tasks", "score_turns", "turns_note"]


@dataclass(frozen=True)
class TurnScore:
    """One user turn's verdict.

    Args:
        turn: The turn, from 1.
        success: Whether the turn's calls satisfy its gold calls (in the task's modes).
        calls: The calls the run made in the turn.
        gold_calls: The gold calls of the turn (0 for a turn beyond the gold).
        explanation: Why, in the words of the whole run's explanation.

    Example:
        >>> TurnScore(2, False, 0, 1, "0/1 calls matched; missing: book").to_dict()["turn"]
        2
    """

    turn: int
    success: bool
    calls: int
    gold_calls: int
    explanation: str

    def to_dict(self) -> dict:
        """The turn as the JSON report and the score envelope hold it."""
        return {"turn": self.turn, "success": self.success, "calls": self.calls,
                "gold_calls": self.gold_calls, "explanation": self.explanation}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TurnScore":
        """The turn :meth:`to_dict` wrote.

        Example:
            >>> t = TurnScore(1, True, 1, 1, "ok")
            >>> TurnScore.from_dict(t.to_dict()) == t
            True
        """
        return cls(int(data["turn"]), bool(data["success"]), int(data.get("calls", 0)),
                   int(data.get("gold_calls", 0)), str(data.get("explanation", "")))


def run_turns(episode: Any) -> Optional[int]:
    """How many user turns the run recorded: its meta's ``user_turns`` (two or more), 1
    when its steps carry a turn but the meta names none, None when the trace recorded no
    user message (turns unknown).

    Example:
        >>> from ek_otel.core.episode import Episode, Step, Trajectory
        >>> run_turns(Episode("t", Trajectory([Step("a", turn=0)]))), run_turns(Episode("t"))
        (1, None)
    """
    meta = getattr(episode, "meta", None)
    value = meta.get("user_turns") if isinstance(meta, Mapping) else None
    if isinstance(value, int) and value > 0:
        return value
    steps = getattr(getattr(episode, "trajectory", None), "steps", ())
    return 1 if any(getattr(s, "turn", None) is not None for s in steps) else None


def _part(mapping: Any, start: int, size: int) -> Any:
    if isinstance(mapping, Mapping):
        return {j - start: v for j, v in mapping.items() if start <= j < start + size}
    return frozenset(j - start for j in mapping if start <= j < start + size)


def turn_tasks(task: TaskSpec, count: int) -> tuple:
    """One single-list :class:`TaskSpec` per turn (``count`` of them; turns beyond the
    gold's have no gold calls): the turn's calls, optional calls, argument modes and agents,
    the task's modes, no hard rules and no answer.

    Example:
        >>> t = TaskSpec("t", turns=[[("a", {})], [("b", {})]], optional={1}, forbid=["x"])
        >>> [(p.gold, sorted(p.optional), p.forbid) for p in turn_tasks(t, 3)]
        [((('a', {}),), [], ()), ((('b', {}),), [0], ()), ((), [], ())]
    """
    turns = tuple(task.turns or ())
    out, start = [], 0
    for index in range(count):
        gold = turns[index] if index < len(turns) else ()
        size = len(gold)
        out.append(replace(task, gold=gold, turns=None, alternatives=(),
                           optional=_part(task.optional, start, size),
                           call_args=_part(task.call_args, start, size),
                           call_agents=_part(task.call_agents, start, size),
                           forbid=(), max_calls={}, no_repeat=False, answer=None))
        start += size
    return tuple(out)


def score_turns(episode: Any, task: TaskSpec, score: Callable[[Any, TaskSpec], Any]) -> tuple:
    """``(turn scores, run turns)``: each turn of the run scored by ``score`` (an episode and
    a task to an :class:`~ek_otel.core.scores.EpisodeScore`) against its gold turn; ``((),
    None)`` when the task has no turns or the run recorded none.

    Example:
        >>> from ek_otel.core.episode import Episode, Step, Trajectory
        >>> from ek_otel.core.evaluate import score_episode
        >>> task = TaskSpec("t", turns=[[("a", {})], [("b", {})]])
        >>> ep = Episode("t", Trajectory([Step("a", turn=0), Step("b", turn=1)]))
        >>> turns, n = score_turns(ep, task, score_episode)
        >>> [(t.turn, t.success) for t in turns], n
        ([(1, True), (2, True)], 2)
    """
    if task.turns is None:
        return (), None
    n_run = run_turns(episode)
    if n_run is None:
        return (), None
    steps = tuple(getattr(episode.trajectory, "steps", ()))
    n_run = max(n_run, 1 + max((s.turn for s in steps if s.turn is not None), default=0))
    count = max(n_run, len(task.turns))
    out = []
    for index, part in enumerate(turn_tasks(task, count)):
        mine = [s for s in steps if (s.turn or 0) == index]
        s = score(replace(episode, trajectory=Trajectory(mine)), part)
        out.append(TurnScore(index + 1, bool(s.success), len(mine), len(part.gold), s.explanation))
    return tuple(out), n_run


def turns_note(turns: Sequence[TurnScore], n_run: int, n_gold: int, detail: bool = True) -> str:
    """What the turns add to the run's explanation: ``""`` when every turn passed and the
    run had the gold's turns; else the count, the turns that failed and (``detail``: when
    the calls as one sequence do not already say it) why.

    Example:
        >>> ok, bad = TurnScore(1, True, 1, 1, "1/1"), TurnScore(2, False, 0, 1, "missing: b")
        >>> turns_note((ok, ok), 2, 2)
        ''
        >>> turns_note((ok, bad), 1, 2)
        'turns: the run has 1 user turn, the gold 2; 1 of 2 passed (turn 2: missing: b)'
        >>> turns_note((ok, bad), 2, 2, detail=False)
        'turns: 1 of 2 passed (turn 2 failed)'
    """
    failed = [t for t in turns if not t.success]
    if not failed and n_run == n_gold:
        return ""
    parts = []
    if n_run != n_gold:
        parts.append(f"the run has {n_run} user turn{'s' if n_run != 1 else ''}, the gold {n_gold}")
    if detail:
        shown = "; ".join(f"turn {t.turn}: {t.explanation}" for t in failed[:2])
        more = f"; +{len(failed) - 2} more" if len(failed) > 2 else ""
    else:
        shown = ", ".join(f"turn {t.turn}" for t in failed[:5]) + " failed"
        more = f" (+{len(failed) - 5} more)" if len(failed) > 5 else ""
    parts.append(f"{len(turns) - len(failed)} of {len(turns)} passed" + (f" ({shown}{more})" if failed else ""))
    return "turns: " + "; ".join(parts)
