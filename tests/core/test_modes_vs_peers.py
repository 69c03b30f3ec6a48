"""ek-otel's match modes against the real Google ADK ``TrajectoryEvaluator`` and LangChain
agentevals, on random (gold, run) pairs with repeated tool names, extras, omissions,
reorderings and changed arguments.

Each peer runs in its own virtualenv (scripts/ci_backends.sh installs them; their paths come
as EK_OTEL_ADK_PYTHON and EK_OTEL_AGENTEVALS_PYTHON) as one subprocess over a JSON file of
all the cases (tests/core/peer_verdicts.py). An exhaustive search over every assignment of
calls decides what the peer's own definition of each mode says; ek-otel must agree with it
on every case, and the peer may differ from it only where its first-fit matching missed an
assignment that exists (counted per mode, with one example, in the test's output).

The mode mapping is that of ``gold import`` (:mod:`ek_otel.gold.peer_modes`): ADK ``EXACT``
= ``ordered``; ``IN_ORDER`` = ``match: superset`` + ``ordered``; ``ANY_ORDER`` = ``match:
superset``; ``ignore_args`` = ``args: ignore``. agentevals ``strict`` = ``ordered``;
``unordered`` = the default match; ``superset`` / ``subset`` = the match modes of those
names, where under ``subset`` agentevals compares arguments with the two sides exchanged
(its ``tool_args_match_mode: subset`` there lets the call *add* arguments), so the importer
maps it to ``args: superset`` and the other way round.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
from collections import Counter

import pytest

from ek_otel.core.episode import AnyOf, Episode, Step, TaskSpec, Trajectory
from ek_otel.core.evaluate import score_episode
from ek_otel.gold.peer_modes import adk_keys, langchain_keys

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("EK_OTEL_CI_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "ek-otel-ci"))
PAIRS = 2000

ADK_MODES = [(m, a) for m in ("EXACT", "IN_ORDER", "ANY_ORDER") for a in ("exact", "ignore")]
LANGCHAIN_MODES = ([("superset", a) for a in ("exact", "ignore", "subset", "superset")]
                   + [("subset", a) for a in ("exact", "ignore", "subset", "superset")]
                   + [(m, a) for m in ("unordered", "strict") for a in ("exact", "ignore")])


def _python(peer: str) -> str:
    exe = os.environ.get(f"EK_OTEL_{peer.upper()}_PYTHON") or os.path.join(CACHE, f"{peer}-venv", "bin", "python")
    assert os.access(exe, os.X_OK), (
        f"{peer}'s virtualenv is missing ({exe}): run scripts/ci_backends.sh {peer} (as .ci/run does)")
    return exe


# ---------------------------------------------------------------------------
# Random pairs
# ---------------------------------------------------------------------------


def _call(rng: random.Random) -> list:
    return [rng.choice("ab"), {k: rng.randint(1, 2) for k in rng.sample("xy", rng.randint(0, 2))}]


def _variant(rng: random.Random, call: list) -> list:
    """The same tool with an argument added, dropped or changed."""
    tool, args = call[0], dict(call[1])
    what = rng.choice(["add", "drop", "change"])
    if what == "add" or not args:
        args[rng.choice("xyz")] = rng.randint(1, 2)
    elif what == "drop":
        del args[rng.choice(sorted(args))]
    else:
        key = rng.choice(sorted(args))
        args[key] = 3 - args[key]
    return [tool, args]


def pairs(n: int, seed: int = 32) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        gold = [_call(rng) for _ in range(rng.randint(0, 4))]
        if gold and rng.random() < 0.5:  # a repeated tool whose arguments nest in another's
            base = rng.choice(gold)
            gold.insert(rng.randrange(len(gold) + 1), _variant(rng, base))
        run = [list(c) for c in gold]
        for _ in range(rng.randint(0, 3)):
            op = rng.choice(["omit", "extra", "variant", "swap", "copy"])
            if op == "omit" and run:
                run.pop(rng.randrange(len(run)))
            elif op == "extra":
                run.insert(rng.randrange(len(run) + 1), _call(rng))
            elif op == "variant" and run:
                i = rng.randrange(len(run))
                run[i] = _variant(rng, run[i])
            elif op == "swap" and len(run) > 1:
                i, j = rng.sample(range(len(run)), 2)
                run[i], run[j] = run[j], run[i]
            elif op == "copy" and gold:
                run.insert(rng.randrange(len(run) + 1), _variant(rng, rng.choice(gold)))
        out.append((gold, run))
    return out


# ---------------------------------------------------------------------------
# What each mode says, by exhaustive search over assignments
# ---------------------------------------------------------------------------


def _args_ok(mode: str, out_args: dict, ref_args: dict) -> bool:
    if mode == "ignore":
        return True
    if mode == "subset":
        return all(k in ref_args and ref_args[k] == v for k, v in out_args.items())
    if mode == "superset":
        return all(k in out_args and out_args[k] == v for k, v in ref_args.items())
    return out_args == ref_args


def _fits(out_call, ref_call, mode) -> bool:
    return out_call[0] == ref_call[0] and _args_ok(mode, out_call[1], ref_call[1])


def _covers(big: list, small: list, ok, ordered: bool) -> bool:
    """Whether some one-to-one assignment takes every call of ``small`` to a call of ``big``
    with ``ok(big call, small call)`` (in order when ``ordered``): every assignment is tried."""
    if len(small) > len(big):
        return False
    choices = itertools.combinations(range(len(big)), len(small)) if ordered else \
        itertools.permutations(range(len(big)), len(small))
    return any(all(ok(big[i], small[k]) for k, i in enumerate(chosen)) for chosen in choices)


def truth(peer: str, mode: str, args: str, gold: list, run: list) -> bool:
    """The peer's own definition of the mode, decided over every assignment."""
    def run_for_gold(o, g):
        return _fits(o, g, args)

    if mode in ("EXACT", "strict"):
        return len(run) == len(gold) and all(_fits(o, g, args) for o, g in zip(run, gold))
    if mode == "IN_ORDER":
        return _covers(run, gold, run_for_gold, True)
    if mode in ("ANY_ORDER", "superset"):
        return _covers(run, gold, run_for_gold, False)
    if mode == "subset":  # agentevals: its superset check with the two sides exchanged
        return _covers(gold, run, lambda g, o: g[0] == o[0] and _args_ok(args, g[1], o[1]), False)
    assert mode == "unordered"
    return len(run) == len(gold) and _covers(run, gold, run_for_gold, False)


def ek_verdict(peer: str, mode: str, args: str, gold: list, run: list) -> bool:
    settings = {"threshold": 1.0, "match_type": mode, "ignore_args": args == "ignore"} if peer == "adk" \
        else {"trajectory_match_mode": mode, "tool_args_match_mode": args}
    keys = adk_keys(settings, "t", []) if peer == "adk" else langchain_keys(settings, "t", [])
    task = TaskSpec("t", gold=[(t, {k: AnyOf((v,)) for k, v in a.items()}) for t, a in gold], **keys)
    episode = Episode("t", Trajectory([Step(t, a) for t, a in run]))
    return score_episode(episode, task).success


@pytest.mark.parametrize("peer, modes", [("adk", ADK_MODES), ("agentevals", LANGCHAIN_MODES)])
def test_verdicts_agree_with_the_peer_but_where_its_first_fit_is_wrong(peer, modes, tmp_path, capsys):
    cases = [{"mode": m, "args": a, "gold": g, "run": r} for g, r in pairs(PAIRS) for m, a in modes]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    proc = subprocess.run([_python(peer), os.path.join(HERE, "peer_verdicts.py"), peer,
                           str(tmp_path / "cases.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    peer_says = json.loads((tmp_path / "out.json").read_text())
    assert len(peer_says) == len(cases)
    counts: Counter = Counter()
    example = {}
    for case, theirs in zip(cases, peer_says):
        key = f"{case['mode']}/{case['args']}"
        right = truth(peer, case["mode"], case["args"], case["gold"], case["run"])
        ours = ek_verdict(peer, case["mode"], case["args"], case["gold"], case["run"])
        assert ours == right, f"ek-otel is wrong on {case}"
        if theirs == ours:
            counts["agree"] += 1
        else:
            assert right and not theirs, f"{peer} differs from its own definition otherwise: {case}"
            counts[f"{key}: {peer} first fit misses an assignment"] += 1
            if key not in example or len(case["gold"]) + len(case["run"]) < len(
                    example[key]["gold"]) + len(example[key]["run"]):
                example[key] = case  # the smallest
    with capsys.disabled():
        print(f"\n{peer}: {len(cases)} verdicts over {PAIRS} pairs: " + json.dumps(dict(counts)))
        for key, case in list(example.items())[:1]:
            print(f"  example ({key}): gold {case['gold']}, run {case['run']}")
    assert counts["agree"] >= len(cases) * 0.9
