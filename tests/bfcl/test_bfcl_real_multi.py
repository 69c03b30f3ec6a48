"""Agreement with the official score files of a real submission: multi-turn and agentic.

For every multi_turn_* (state mode) and memory_*/web_search_* category of
``../shared/bfcl-real`` (or ``$EK_OTEL_BFCL_REAL``), our verdicts must reproduce the
official score file exactly: the same accuracy, the same failed ids, and the same error
type for each failed entry.
"""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

import pytest

from ek_otel.bfcl.agentic import check_agentic_entry
from ek_otel.bfcl.categories import AGENTIC, MULTI_TURN
from ek_otel.bfcl.data import BfclData
from ek_otel.bfcl.multi_turn import check_multi_turn_entry
from ek_otel.bfcl.simulator import simulator_available
from ek_otel.errors import BfclDataError

REPO = Path(__file__).resolve().parents[2]
REAL = Path(os.environ.get("EK_OTEL_BFCL_REAL", REPO.parent / "shared" / "bfcl-real"))


def _one_file(kind: str, category: str) -> Path:
    found = glob.glob(str(REAL / kind / "*" / "**" / f"BFCL_v4_{category}_{kind}.json"),
                      recursive=True)
    if len(found) != 1:
        pytest.skip(f"bfcl-real has {len(found)} {kind} files for {category} (need 1)")
    return Path(found[0])


def _read_lines(path: Path) -> list:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="module")
def data() -> BfclData:
    if not REAL.is_dir():
        pytest.skip(f"bfcl-real not found at {REAL} (set EK_OTEL_BFCL_REAL)")
    try:
        return BfclData.locate(os.environ.get("EK_OTEL_BFCL_DATA"))
    except BfclDataError as exc:
        pytest.skip(f"no BFCL data (bfcl_eval/data): {exc}")


def _agreement(data: BfclData, category: str, check) -> None:
    entries = {entry.id: entry for entry in data.entries(category)}
    results = _read_lines(_one_file("result", category))
    score = _read_lines(_one_file("score", category))
    header, failures = score[0], score[1:]
    expected = {line["id"]: line["error"]["error_type"] for line in failures}

    got = {}
    correct = 0
    for line in results:
        entry = entries[line["id"]]
        verdict = check(line["id"], category, line["result"], entry.question, entry.answer)
        assert verdict.id == line["id"] and verdict.category == category
        if verdict.valid:
            correct += 1
        else:
            got[line["id"]] = verdict.error_type

    assert (correct, len(results)) == (header["correct_count"], header["total_count"])
    assert correct / len(results) == header["accuracy"]
    assert set(got) == set(expected)
    assert got == expected


@pytest.mark.parametrize("category", MULTI_TURN)
def test_multi_turn_state_mode_reproduces_official_scores(data, category):
    if not simulator_available():
        pytest.skip("bfcl_eval simulated APIs not importable "
                    "(pip install --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0)")

    def check(*args):
        return check_multi_turn_entry(*args, mode="state")

    _agreement(data, category, check)


def _as_prompting_output(step):
    """An FC step ``[{name: "<json>"}]`` re-expressed as a prompting model would write it."""
    if not isinstance(step, list):
        return step
    calls = []
    for item in step:
        for name, arguments in item.items():
            args = ", ".join(f"{k}={v!r}" for k, v in json.loads(arguments).items())
            calls.append(f"{name}({args})")
    return "[" + ", ".join(calls) + "]"


@pytest.mark.parametrize("category", MULTI_TURN)
def test_multi_turn_prompting_form_of_the_same_calls_gets_the_same_verdicts(data, category):
    """The prompting decoder path (strings parsed with ast) must land on the same verdicts."""
    if not simulator_available():
        pytest.skip("bfcl_eval simulated APIs not importable")

    def check(entry_id, category, result, question, answer):
        prompting = [[_as_prompting_output(step) for step in turn] for turn in result]
        return check_multi_turn_entry(entry_id, category, prompting, question, answer,
                                      mode="state", style="prompting")

    _agreement(data, category, check)


@pytest.mark.parametrize("category", AGENTIC)
def test_agentic_reproduces_official_scores(data, category):
    _agreement(data, category, check_agentic_entry)
