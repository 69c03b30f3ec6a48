"""Pricing files: YAML and JSON forms, and errors that name the file, the line and the problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek_otel import Cost, PricingError
from ek_otel.gold.pricing import load_pricing, pricing_from_dict, read_pricing

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pricing.yaml"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_and_json_give_the_same_table(tmp_path):
    obj = {"currency": "USD", "as_of": "2026-11-01", "models": {"a": {"input": 2.5, "output": 10, "cached_input": 1.25, "reasoning": 10}, "b": {"input": 1, "output": 2}}}
    import yaml

    from_yaml = load_pricing(write(tmp_path, "p.yaml", yaml.safe_dump(obj)))
    from_json = load_pricing(write(tmp_path, "p.json", json.dumps(obj)))
    assert from_yaml == from_json
    price = from_yaml.price_of("a")
    assert (price.input, price.output, price.cached_input, price.reasoning) == (2.5, 10.0, 1.25, 10.0)
    assert from_yaml.price_of("b").cached_input is None


def test_metadata_is_kept(tmp_path):
    info = read_pricing(write(tmp_path, "p.yaml", "currency: EUR\nas_of: 2026-11-01\nsource: my sheet\nmodels:\n  m: {input: 1, output: 1}\n"))
    assert (info.currency, info.as_of, info.source) == ("EUR", "2026-11-01", "my sheet")


def test_table_prices_a_cost(tmp_path):
    table = load_pricing(write(tmp_path, "p.yaml", "models:\n  m: {input: 2, output: 8}\n"))
    assert table.dollars(Cost(input_tokens=500_000, output_tokens=250_000), "m") == pytest.approx(1.0 + 2.0)


def test_example_file_is_dated_and_loads():
    info = read_pricing(EXAMPLE)
    assert info.as_of is not None
    assert "EXAMPLE" in EXAMPLE.read_text()
    assert len(info.table.models) >= 1


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("models:\n  a: {input: 1, output: 2}\n  b: {input: 1}\n", 3, "model 'b': the 'output' price is missing"),
        ("models:\n  a: {input: 1, output: 2}\n  b: {input: -1, output: 2}\n", 3, "model 'b': input must be a number >= 0"),
        ("models:\n  a:\n    input: 1\n    output: 2\n    cached: 1\n", 2, "unknown price 'cached' (did you mean 'cached_input'?)"),
        ("models:\n  a: [1, 2]\n", 2, "model 'a': prices must be a mapping"),
        ("models:\n  a: {input: yes, output: 2}\n", 2, "model 'a': input must be a number >= 0"),
        ("modles:\n  a: {input: 1, output: 2}\n", None, "unknown key 'modles' (did you mean 'models'?)"),
        ("currency: USD\n", None, "the 'models' mapping is missing"),
        ("models: {}\n", None, "'models' must be a non-empty mapping"),
        ("currency: dollars\nmodels:\n  a: {input: 1, output: 2}\n", None, "currency must be a 3-letter ISO code"),
        ("as_of: last week\nmodels:\n  a: {input: 1, output: 2}\n", None, "as_of must be a date YYYY-MM-DD"),
        ("- a\n- b\n", None, "a pricing file must be a mapping"),
        ("models:\n  a: {input: 1, output: 2\n", 3, "invalid YAML"),
        ("", None, "the file is empty"),
    ],
)
def test_bad_yaml_pricing_files(tmp_path, text, line, message):
    path = write(tmp_path, "p.yaml", text)
    with pytest.raises(PricingError) as info:
        load_pricing(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert message in str(info.value)
    assert str(info.value).startswith(f"{path}:{line}: " if line else f"{path}: ")


def test_bad_json_pricing_file_names_line(tmp_path):
    path = write(tmp_path, "p.json", '{\n  "models": {\n    "a": {"input": 1, "output": 2},\n    "b": {"input": 1, "output": "x"}\n  }\n}\n')
    with pytest.raises(PricingError) as info:
        load_pricing(path)
    assert str(info.value) == f"{path}:4: model 'b': output must be a number >= 0 (dollars per million tokens), got 'x'"


def test_invalid_json_names_line(tmp_path):
    path = write(tmp_path, "p.json", '{\n  "models": {\n    "a": {"input": 1,}\n  }\n}\n')
    with pytest.raises(PricingError, match=r"p\.json:3: invalid JSON"):
        load_pricing(path)


def test_missing_file(tmp_path):
    with pytest.raises(PricingError, match="no such file"):
        load_pricing(tmp_path / "none.yaml")


def test_pricing_from_dict_without_path():
    with pytest.raises(PricingError, match="^the 'models' mapping is missing"):
        pricing_from_dict({})


def test_yaml_prices_are_read_as_json_numbers(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("as_of: 2024-12-01\nmodels:\n  m: {input: 2.5, output: 1_0}\n")
    with pytest.raises(PricingError, match=r"p.yaml:3: model 'm': output must be a number"):
        read_pricing(path)
    path.write_text("as_of: 2024-12-01\nmodels:\n  m: {input: 2.5, output: 10}\n")
    assert read_pricing(path).as_of == "2024-12-01"
