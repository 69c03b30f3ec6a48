"""How each model's results are decoded: the official runner's model registry, else the
form of the results; ``--style`` and ``--underscore-to-dot`` override."""

from __future__ import annotations

import pytest

from ek_otel.bfcl.data import BfclData
from ek_otel.bfcl.models import ModelTraits, lookup, model_registry, registry_from_source
from ek_otel.bfcl.result_files import ResultFile
from ek_otel.bfcl.runner import model_settings

SOURCE = '''
api_inference_model_map = {
    "vendor/chat-FC": ModelConfig(model_name="chat", is_fc_model=True, underscore_to_dot=True),
    "chat-prompt": ModelConfig(model_name="chat", is_fc_model=False, underscore_to_dot=False),
}
'''


def _file(model, category, *results):
    records = tuple({"id": f"{category}_{i}", "result": r} for i, r in enumerate(results))
    return ResultFile(f"{model}/{category}.json", model, category, records)


@pytest.fixture
def registry(monkeypatch):
    from ek_otel.bfcl import runner

    parsed = registry_from_source(SOURCE)
    monkeypatch.setattr(runner, "model_registry", lambda data, models=None: parsed)
    return parsed


def test_the_registry_is_read_from_source_as_the_runner_looks_names_up(registry):
    assert registry == {"vendor/chat-FC": ModelTraits(True, True),
                        "chat-prompt": ModelTraits(False, False)}
    assert lookup(registry, "vendor_chat-FC") == ModelTraits(True, True)


@pytest.mark.parametrize("files, options, expected", [
    # registered: the registry decides, whatever the results look like
    ([_file("vendor_chat-FC", "simple_python", "[f(a=1)]")], {}, ("fc", True)),
    ([_file("chat-prompt", "simple_python", [{"f": "{}"}])], {}, ("prompting", False)),
    # unregistered: any call list makes it function-calling, in any file of the model
    ([_file("mine", "irrelevance", "text"), _file("mine", "simple_python", [])], {},
     ("fc", False)),
    ([_file("mine", "multi_turn_base", [["done"]]),
      _file("mine", "multi_turn_miss_func", [[[{"ls": "{}"}]]])], {}, ("fc", False)),
    ([_file("mine", "multi_turn_base", [["[ls()]", "done"]])], {}, ("prompting", False)),
    ([_file("mine", "memory_kv", [["answer"]])], {}, ("prompting", False)),
    # overrides
    ([_file("vendor_chat-FC", "simple_python", [])],
     {"style": "prompting", "underscore_to_dot": False}, ("prompting", False)),
    ([_file("mine", "simple_python", "[f()]")], {"underscore_to_dot": True},
     ("prompting", True)),
])
def test_model_settings(registry, files, options, expected):
    settings = model_settings(files, BfclData("/nowhere"), **options)
    assert settings == {files[0].model: expected}


def test_the_installed_registry_knows_function_calling_and_prompting_models():
    registry = model_registry(BfclData("/nowhere"))
    if not registry:
        pytest.skip("bfcl_eval is not installed")
    assert len(registry) > 100
    assert {t.is_fc_model for t in registry.values()} == {True, False}
    assert any(t.underscore_to_dot for t in registry.values())


RESULTS = [[{"F": '{"a": 1}'}], "[F(a=1)]", "text", [{"F": {"a": 1}}], "", "```\n[F(a=1)]\n```",
           [], "[]", [{}]]


def test_registered_handlers_decode_as_ek_otel_says(bfcl_data, monkeypatch):
    """Every registered handler ek-otel claims to reproduce (and that imports here without
    its SDK) gives the official verdicts on function-calling, prompting and text results."""
    import ast
    import copy
    import importlib
    import json

    from ek_otel.bfcl.categories import is_relevance
    from ek_otel.bfcl.models import BRANCHING_HANDLERS, PROMPTING_HANDLERS
    from ek_otel.bfcl.official import official_eval_runner, official_language
    from ek_otel.bfcl.single_turn import check_single_turn

    runner = official_eval_runner()
    if runner is None:
        pytest.skip("the official eval runner is not importable")
    from bfcl_eval.constants.enums import ReturnFormat

    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    monkeypatch.setenv("NVIDIA_API_KEY", "unused")
    source_path = importlib.util.find_spec("bfcl_eval.constants").submodule_search_locations[0]
    with open(f"{source_path}/model_config.py", encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    modules = {alias.asname or alias.name: node.module for node in tree.body
               if isinstance(node, ast.ImportFrom) for alias in node.names}
    entries = [bfcl_data.entries(c)[0] for c in
               ("simple_python", "irrelevance", "live_relevance", "simple_java", "parallel")]
    checked, disagreements = set(), []
    for name, traits in registry_from_source_of_installed().items():
        if traits.handler not in BRANCHING_HANDLERS | PROMPTING_HANDLERS | {"GeminiHandler"}:
            continue
        if (traits.handler, traits.is_fc_model) in checked:
            continue
        try:
            module = importlib.import_module(modules[traits.handler])
            handler = getattr(module, traits.handler)(
                model_name=name, temperature=0, registry_name=name,
                is_fc_model=traits.is_fc_model)
        except Exception:  # noqa: BLE001 - its SDK is not installed here
            continue
        checked.add((traits.handler, traits.is_fc_model))
        for entry in entries:
            function = entry.functions[0]["name"]
            for result in RESULTS:
                result = json.loads(json.dumps(result).replace("F", function))
                if is_relevance(entry.category):
                    line = runner._evaluate_single_relevance_entry(
                        handler, entry.id, copy.deepcopy(result), {}, "m", entry.category)
                else:
                    fmt = ReturnFormat.JAVA if "java" in entry.category else ReturnFormat.PYTHON
                    line = runner._evaluate_single_ast_entry(
                        handler, entry.id, copy.deepcopy(result),
                        copy.deepcopy(entry.ground_truth), copy.deepcopy(entry.question), "m",
                        entry.category,
                        official_language(entry.category), fmt)
                verdict = check_single_turn(entry, result, style=traits.style)
                if (verdict.valid, verdict.error_type) != (line["valid"], line.get("error_type")):
                    disagreements.append((traits.handler, traits.is_fc_model, entry.id, result))
    if not checked:
        pytest.skip("no registered handler imports here")
    assert ("LlamaHandler", True) in checked or ("OpenAICompletionsHandler", True) in checked
    assert disagreements == []


def registry_from_source_of_installed():
    registry = model_registry(BfclData("/nowhere"))
    if not registry:
        pytest.skip("bfcl_eval is not installed")
    return registry


@pytest.mark.parametrize("category, result, expected", [
    # GeminiHandler.decode_ast (FC): `result if type(result) is list else [result]`
    ("simple_python", [{"f": {"x": 1}}], (True, None)),
    ("simple_python", [{"f": '{"x": 1}'}], (False, "ast_decoder:decoder_wrong_output_format")),
    ("simple_python", "I cannot.", (False, "ast_decoder:decoder_wrong_output_format")),
    ("simple_python", ["I cannot."], (False, "ast_decoder:decoder_wrong_output_format")),
    ("irrelevance", ["I cannot."], (True, None)),
    ("irrelevance", [{"f": {"x": 1}}], (False, "irrelevance_error:decoder_success")),
])
def test_gemini_function_calling_keeps_decoded_arguments(category, result, expected):
    from ek_otel.bfcl.data import BfclEntry
    from ek_otel.bfcl.single_turn import check_single_turn

    doc = {"name": "f", "parameters": {"type": "dict", "required": ["x"],
                                       "properties": {"x": {"type": "integer"}}}}
    entry = BfclEntry(f"{category}_0", category, {"id": f"{category}_0", "function": [doc]},
                      {"ground_truth": [{"f": {"x": [1]}}]})
    verdict = check_single_turn(entry, result, style=ModelTraits(True, False, "GeminiHandler").style)
    assert (verdict.valid, verdict.error_type) == expected


def _ast_strings(source):
    import ast

    return {node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_may_name_never_misses_a_constant_python_reads():
    """Whenever may_name says no, the name is no string constant of the source: literals in
    every quoting, concatenated across spaces, comments and lines, prefixed, escaped."""
    import random

    from ek_otel.bfcl.models import may_name

    rng = random.Random(11)
    pieces = ["a/b", "a/", "b", "", "a", "/b", "x"]
    quotes = ['"{}"', "'{}'", '"""{}"""', "u'{}'", '"\\x61{}"']
    gaps = [" ", "  # c'\n  ", "\n", ""]
    checked = 0
    for _ in range(3000):
        parts = [rng.choice(quotes).format(rng.choice(pieces)) for _ in range(rng.randint(1, 3))]
        literal = parts[0] + "".join(rng.choice(gaps) + part for part in parts[1:])
        source = "M = {\n  %s: ModelConfig(is_fc_model=True),\n  'k': 1}\n" % literal
        try:
            constants = _ast_strings(source)
        except SyntaxError:
            continue
        for name in ("a/b", "ab", "a", "b/a"):
            assert may_name(source, [name]) or name not in constants, (source, name)
            checked += 1
    assert checked > 5000
    assert not may_name(SOURCE, ["other/chat-FC"]) and may_name(SOURCE, ["vendor/chat-FC"])


def test_the_installed_registry_is_skipped_for_unregistered_models_only():
    from ek_otel.bfcl.models import _installed_roots, _source_at, may_name

    sources = [s for s in (_source_at("dir", root) for root in _installed_roots()) if s]
    if not sources:
        pytest.skip("bfcl_eval is not installed")
    full = model_registry(BfclData("/nowhere"))
    assert all(may_name(sources[0], [name]) for name in full)  # never skips a registered one
    data = BfclData("/nowhere")
    assert model_registry(data, ["glyphh-ada-1.1"]) == {}
    assert model_registry(data, ["gpt-4o-2024-11-20-FC", "mine"]) == full
    assert lookup(model_registry(data, ["openai_gpt-4o-2024-11-20-FC"]), "openai_gpt-4o-2024-11-20-FC") \
        == lookup(full, "openai_gpt-4o-2024-11-20-FC")
