"""ek-otel reproduces the official score files of a real BFCL submission (single-turn).

For every single-turn category present in ``bfcl-real``: the same header (accuracy,
correct/total), the same failed ids, the same error type and the same official score line
for each failed entry.
"""

from __future__ import annotations

import json

import pytest

from ek_otel.bfcl.categories import SINGLE_TURN, score_subdir
from ek_otel.bfcl.result_files import find_result_files
from ek_otel.bfcl.runner import score_category
from ek_otel.bfcl.score_files import json_safe, score_line


def _official_lines(bfcl_real, model, category):
    path = bfcl_real / "score" / model / score_subdir(category) / f"BFCL_v4_{category}_score.json"
    if not path.is_file():
        pytest.skip(f"bfcl-real has no official score file for {category}")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0], {line["id"]: line for line in lines[1:]}


def _result_file(bfcl_real, category):
    for result_file in find_result_files([str(bfcl_real / "result")]):
        if result_file.category == category:
            return result_file
    pytest.skip(f"bfcl-real has no result file for {category}")


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_single_turn_category_matches_official_score_file(bfcl_real, bfcl_data, category):
    result_file = _result_file(bfcl_real, category)
    header, official = _official_lines(bfcl_real, result_file.model, category)
    score, verdicts = score_category(result_file, bfcl_data)

    assert score.header() == header
    failed = {v.id: v for v in verdicts if not v.valid}
    assert set(failed) == set(official)
    assert {i: v.error_type for i, v in failed.items()} == {
        i: line["error_type"] for i, line in official.items()}
    for entry_id, verdict in failed.items():
        mine = json.loads(json.dumps(json_safe(score_line(verdict, result_file.model))))
        assert mine == official[entry_id]
