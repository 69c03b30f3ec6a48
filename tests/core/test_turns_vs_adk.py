"""ek-otel's per-turn scores against Google ADK's per-invocation ``TrajectoryEvaluator``.

An ADK eval case holds one expected invocation per user turn, and the evaluator scores each
invocation's tool calls against the expected one's, in the criterion's match type. A task
with ``turns`` is that case (``gold import adk``), and a run's steps carry their user turn:
each turn's verdict must be ADK's verdict for that invocation, and the run passes exactly when
ADK's overall score is 1.0. Where the run has more or fewer turns than the gold, ADK refuses
the pair (its invocation counts differ); ek-otel fails the run and says why.

The random multi-turn pairs reuse the single-turn generator of the mode comparison
(:mod:`test_modes_vs_peers`), and an exhaustive search over assignments decides where the two
disagree. ADK runs in its own virtualenv (scripts/ci_backends.sh), as one subprocess.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections import Counter

from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.gold.peer_modes import adk_keys

from .test_modes_vs_peers import ADK_MODES, HERE, _python, pairs, truth

CASES = 2000


def multi_turn_pairs(n: int, seed: int = 33) -> list:
    """``n`` (gold turns, run turns) pairs of one to three turns, each turn a single-turn pair;
    about one in six runs has a turn more or fewer than the gold."""
    rng = random.Random(seed)
    single = pairs(3 * n + 3, seed)
    out, used = [], 0
    for _ in range(n):
        count = rng.randint(1, 3)
        chosen, used = single[used:used + count], used + count
        gold, run = [g for g, _ in chosen], [r for _, r in chosen]
        roll = rng.random()
        if roll < 0.08:
            run.insert(rng.randrange(len(run) + 1), list(rng.choice(gold)))
        elif roll < 0.16 and len(run) > 1:
            run.pop(rng.randrange(len(run)))
        out.append((gold, run))
    return out


def ek_turns(mode: str, args: str, gold: list, run: list):
    keys = adk_keys({"threshold": 1.0, "match_type": mode, "ignore_args": args == "ignore"}, "t", [])
    task = TaskSpec("t", turns=[[(t, {k: AnyOf((v,)) for k, v in a.items()}) for t, a in turn]
                                for turn in gold], **keys)
    steps = [Step(t, a, turn=i) for i, turn in enumerate(run) for t, a in turn]
    return score_episode(Episode("t", Trajectory(steps), meta={"user_turns": len(run)}), task)


def test_per_turn_verdicts_agree_with_adk_per_invocation(tmp_path, capsys):
    cases = [{"mode": m, "args": a, "gold": g, "run": r}
             for g, r in multi_turn_pairs(CASES // len(ADK_MODES)) for m, a in ADK_MODES]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    proc = subprocess.run([_python("adk"), os.path.join(HERE, "peer_verdicts.py"), "adk-turns",
                           str(tmp_path / "cases.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    adk_says = json.loads((tmp_path / "out.json").read_text())
    assert len(adk_says) == len(cases)
    counts: Counter = Counter()
    example = {}
    for case, theirs in zip(cases, adk_says):
        mode, args, gold, run = case["mode"], case["args"], case["gold"], case["run"]
        score = ek_turns(mode, args, gold, run)
        assert len(score.turns) == max(len(gold), len(run))
        if len(gold) != len(run):
            assert "refused" in theirs, f"ADK scored turn counts that differ: {case}"
            assert not score.success
            assert f"the run has {len(run)} user turn" in score.explanation, score.explanation
            counts["turn counts differ: ADK refuses, ek-otel fails the run and says why"] += 1
            continue
        assert "refused" not in theirs, theirs
        ours = [t.success for t in score.turns]
        right = [truth("adk", mode, args, g, r) for g, r in zip(gold, run)]
        assert ours == right, f"ek-otel is wrong on {case}"
        assert score.success == all(ours), case
        counts["invocations"] += len(ours)
        if theirs["turns"] == ours:
            counts["agree"] += 1
            assert theirs["overall"] == score.success, case
        else:
            for mine, adk, r in zip(ours, theirs["turns"], right):
                assert mine == adk or (r and not adk), f"ADK differs from its own definition: {case}"
            counts[f"{mode}/{args}: ADK's first fit misses an assignment"] += 1
            example.setdefault(f"{mode}/{args}", case)
    with capsys.disabled():
        print(f"\nadk per invocation: {len(cases)} multi-turn cases: " + json.dumps(dict(counts)))
        for key, case in list(example.items())[:1]:
            print(f"  example ({key}): gold {case['gold']}, run {case['run']}")
    compared = len(cases) - counts["turn counts differ: ADK refuses, ek-otel fails the run and says why"]
    assert counts["agree"] >= compared * 0.9
    assert counts["invocations"] > compared  # multi-turn cases were compared, not only single turns
