"""Reading the BFCL data from a directory, a wheel or the installed package."""

from __future__ import annotations

import os
import zipfile

import pytest

from ek_otel.bfcl.data import BfclData
from ek_otel.errors import BfclDataError

SIZES = {"simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200,
         "parallel": 200, "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258,
         "live_multiple": 1053, "live_parallel": 16, "live_parallel_multiple": 24,
         "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
         "memory_kv": 155, "web_search_no_snippet": 100}


@pytest.mark.parametrize("category, size", sorted(SIZES.items()))
def test_entry_counts(bfcl_data, category, size):
    entries = bfcl_data.entries(category)
    assert len(entries) == size
    assert all(e.id.startswith(category) for e in entries)


def test_multi_turn_and_agentic_entries_get_their_function_docs(bfcl_data):
    miss_func = [e for e in bfcl_data.entries("multi_turn_miss_func") if e.question.get("missed_function")]
    assert miss_func
    entry = miss_func[0]
    held_out = {d["name"] for docs in entry.question["missed_function"].values() for d in docs}
    assert held_out and not held_out & {d["name"] for d in entry.functions}
    memory = bfcl_data.entries("memory_vector")[0]
    assert memory.question["involved_classes"] == ["MemoryAPI_vector"] and memory.functions


def test_a_wheel_reads_like_the_directory(bfcl_data, tmp_path):
    wheel = os.environ.get("EK_OTEL_BFCL_WHEEL")
    if not wheel:
        wheel = tmp_path / "bfcl_eval-0-py3-none-any.whl"
        root = bfcl_data.root
        with zipfile.ZipFile(wheel, "w") as archive:
            for rel in ("BFCL_v4_parallel.json", "possible_answer/BFCL_v4_parallel.json"):
                archive.write(os.path.join(root, rel), "bfcl_eval/data/" + rel)
    from_wheel = BfclData.locate(str(wheel))
    assert from_wheel.kind == "wheel"
    assert [e.answer for e in from_wheel.entries("parallel")] == \
        [e.answer for e in bfcl_data.entries("parallel")]


def test_no_data_names_the_fix(tmp_path):
    with pytest.raises(BfclDataError, match="pip install --no-deps bfcl-eval"):
        BfclData.locate(str(tmp_path))


def test_vetted_data_parses_exactly_as_the_standard_json_module(bfcl_data):
    import json

    from ek_otel.bfcl.jsonlines import parse_json_lines

    assert bfcl_data.vetted
    names = [f"BFCL_v4_{c}.json" for c in ("live_multiple", "live_irrelevance", "simple_python",
                                          "multi_turn_base", "memory", "web_search")]
    names += [f"possible_answer/BFCL_v4_{c}.json" for c in ("live_multiple", "simple_java")]
    for name in names:
        text = bfcl_data.read_text(name)
        fast = parse_json_lines(text, exact_ints=False)
        assert fast == [json.loads(line) for line in text.splitlines() if line.strip()]
        assert repr(fast) == repr([json.loads(line) for line in text.splitlines() if line.strip()])


@pytest.mark.parametrize("category", ["live_multiple", "live_simple", "live_irrelevance",
                                      "simple_python", "parallel_multiple", "live_relevance"])
def test_questions_with_shared_function_docs_equal_a_plain_parse(bfcl_data, category):
    import json

    text = bfcl_data.read_text(f"BFCL_v4_{category}.json")
    plain = [json.loads(line) for line in text.splitlines() if line.strip()]
    fast = bfcl_data.questions(category)
    assert json.dumps(fast) == json.dumps(plain)


def test_a_line_that_does_not_split_cleanly_is_parsed_whole(tmp_path):
    import json

    odd = {"id": "simple_python_0", "question": [[{"role": "user",
           "content": 'x, "function": [1]}'}]], "function": [{"name": "f"}], "extra": 1}
    (tmp_path / "BFCL_v4_simple_python.json").write_text(json.dumps(odd) + "\n")
    assert BfclData.locate(str(tmp_path)).questions("simple_python") == [odd]


@pytest.mark.parametrize("category", ["simple_python", "simple_java", "simple_javascript",
                                      "multiple", "parallel", "parallel_multiple", "irrelevance",
                                      "live_simple", "live_multiple", "live_parallel",
                                      "live_parallel_multiple", "live_irrelevance",
                                      "live_relevance"])
def test_vetted_question_lines_are_the_text_score_files_write(bfcl_data, category):
    """A kept question line without \\u escapes (written into score files as it is) is
    what the official writer gives for the question: json.dumps(..., ensure_ascii=False)."""
    import json

    entries = bfcl_data.entries(category)
    assert all(e.question_line is not None for e in entries)
    plain = [e for e in entries if b"\\u" not in bytes(e.question_line)]
    assert len(plain) > len(entries) * 0.8
    for entry in plain:
        assert json.dumps(entry.question, ensure_ascii=False).encode("utf-8") == bytes(entry.question_line)
    for entry in entries:  # and with escapes, what the official reader reads
        assert json.loads(bytes(entry.question_line)) == entry.question
    unvetted = BfclData(bfcl_data.root, bfcl_data.kind)
    assert all(e.question_line is None for e in unvetted.entries(category))


def test_the_class_tables_are_bfcl_evals_own(bfcl_data):
    """ek-otel writes the class -> doc file and class -> module tables in its own form (one
    stem per class); they must be the official package's, read from its installed source."""
    import ast

    from ek_otel.bfcl.data import FUNC_DOC_FILES
    from ek_otel.bfcl.simulator import BACKEND_MODULES

    source = os.path.join(os.path.dirname(bfcl_data.root), "constants",
                          "executable_backend_config.py")
    tree = ast.parse(open(source, encoding="utf-8").read())
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            env = {"BACKEND_PATH_PREFIX": tables.get("BACKEND_PATH_PREFIX")}
            tables[name] = eval(compile(ast.Expression(node.value), source, "eval"), env)
    assert FUNC_DOC_FILES == tables["MULTI_TURN_FUNC_DOC_FILE_MAPPING"]
    assert BACKEND_MODULES == tables["CLASS_FILE_PATH_MAPPING"]
    assert all(bfcl_data.exists(f"multi_turn_func_doc/{f}") for f in FUNC_DOC_FILES.values())


def test_the_agentic_prompt_is_read_from_the_package_and_its_absence_named(bfcl_data, tmp_path,
                                                                           monkeypatch):
    from ek_otel.bfcl import official

    constants = official._official_module("bfcl_eval.constants.default_prompts")
    prompt = bfcl_data.agentic_prompt()
    assert prompt == constants.ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT
    (first,) = [e for e in bfcl_data.questions("web_search_base")][:1]
    assert first["question"][0][0] == {"role": "system", "content": prompt}
    wheel = tmp_path / "bfcl_eval-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("bfcl_eval/data/BFCL_v4_web_search.json", "")
        archive.writestr("bfcl_eval/constants/default_prompts.py",
                         "ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT = 'own words'\n")
    assert BfclData.locate(str(wheel)).agentic_prompt() == "own words"
    monkeypatch.setattr(BfclData, "installed", classmethod(lambda cls: None))
    with pytest.raises(BfclDataError, match="no agentic system prompt"):
        BfclData.locate(str(_bare(tmp_path))).agentic_prompt()


def _bare(tmp_path):
    """A data folder laid out like bfcl_eval's, with no package around it."""
    folder = tmp_path / "bare" / "data"
    folder.mkdir(parents=True)
    (folder / "BFCL_v4_web_search.json").write_text("")
    return folder
