"""``ek-otel score``'s outputs are byte-identical to those of main before the speed work
(``tests/cli/data/output_baseline``, written by ``python tests/cli/identity_dump.py DIR --baseline``
on that main): the JSON report, the tables, the score file (the emitted spans, with the
instance id and the times of the scoring run normalized), also with late spans (revisions)."""

from __future__ import annotations

import json
import os
import random
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import identity_dump  # noqa: E402

BASELINE = os.path.join(HERE, "data", "output_baseline")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return identity_dump.baseline(str(tmp_path_factory.mktemp("identity")))


@pytest.mark.parametrize("name", sorted(os.listdir(BASELINE)))
def test_outputs_are_those_of_the_baseline(outputs, name):
    with open(os.path.join(BASELINE, name), encoding="utf-8") as f:
        assert outputs[name] == f.read()


def test_the_baseline_covers_late_spans_bad_input_and_own_output():
    late = json.load(open(os.path.join(BASELINE, "late.report.json")))
    assert any(e["revision"] == 1 for e in late["episodes"])
    assert "invalid JSON" in open(os.path.join(BASELINE, "cli.stderr")).read()
    assert len(json.load(open(os.path.join(BASELINE, "cli.report.json")))["episodes"]) == 24


def test_report_chunks_are_the_stdlib_text():
    from ek_otel.scoring.report_json import indented_json_chunks

    rng = random.Random(3)
    special = ["\x00\x1f\x7f\u2028\"\\/é😀", 1e-05, -2.5e-7, 1e16, 1.5e-10, -0.0, 10**20, {1: 2},
               "x: 0.00001", 1e-4, True, None, [], {}, [[[]]]]
    cases = [{"k": v, "l": [v] * 5} for v in special] + [[v] for v in special] + special
    cases += [{"a": [{"x": rng.random() * 10 ** rng.randint(-12, 12), "n": rng.randint(-10**6, 10**6)}
                     for _ in range(rng.randint(0, 7))], "b": rng.random()} for _ in range(200)]
    for data in cases:
        want = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
        assert b"".join(indented_json_chunks(data, block=2)) == want, data
