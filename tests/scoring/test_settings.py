"""ScoreSettings: the one shape scoring options travel in (JSON round trip)."""

from __future__ import annotations

import json

import pytest

from ek_otel.core.cost import ModelPrice, PriceTable
from ek_otel.scoring import ScoreSettings, load_settings

ROOT_GOLD = "examples/tasks.jsonl"


def test_json_round_trip_keeps_every_field_and_the_provenance():
    settings = ScoreSettings(
        level="arg", strategy="best_first", matcher="ek",
        prices=PriceTable({"gpt-4o": ModelPrice(2.5, 10.0, cached_input=1.25),
                           "m": ModelPrice(1.0, 2.0, reasoning=3.0)}),
        default_task_id="t1", gold_sha256="ab" * 32, evaluator_version="9.9.9",
        group_by="session", task_id_keys=("my.task", "ek.task.id"), scored_at_ns=42)
    back = ScoreSettings.from_json(settings.to_json())
    assert back == settings
    assert back.provenance() == settings.provenance()
    assert back.prices.find("gpt-4o-2024-08-06") == ModelPrice(2.5, 10.0, cached_input=1.25)


def test_loaded_settings_travel_as_json(tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    tasks, settings = load_settings(str(root / "examples" / "tasks.jsonl"),
                                    pricing=str(root / "examples" / "pricing.yaml"),
                                    task_id_keys=["x.task"])
    assert ScoreSettings.from_json(settings.to_json()) == settings
    assert json.loads(settings.to_json())["gold_sha256"] == settings.gold_sha256


@pytest.mark.parametrize("text, message", [
    ("[]", "not a JSON object"),
    ('{"level": "arg", "extra": 1}', "unknown key 'extra'"),
])
def test_from_json_refuses_what_is_not_settings(text, message):
    with pytest.raises(ValueError, match=message):
        ScoreSettings.from_json(text)


def test_from_json_validates_like_the_constructor():
    with pytest.raises(ValueError, match="level must be one of"):
        ScoreSettings.from_json('{"level": "word"}')


def test_a_canonicalizer_does_not_travel():
    with pytest.raises(ValueError, match="cannot travel"):
        ScoreSettings(canonicalizer=str.lower).to_json()


def test_ignore_tools_travel_as_json_and_only_when_given():
    import json

    from ek_otel.scoring.settings import ScoreSettings

    s = ScoreSettings(ignore_tools=["final_answer", "transfer_to_*"])
    assert s.ignore_tools == ("final_answer", "transfer_to_*")
    assert ScoreSettings.from_json(s.to_json()) == s
    assert "ignore_tools" not in json.loads(ScoreSettings().to_json())
    assert "ignore_tools" not in ScoreSettings().provenance().matcher
