"""What a run was asked, read from the real packages' spans of the corpus: the first user
message and the tool definitions (``ek_otel.ingest.requests``)."""

from __future__ import annotations

import os
import sys

import pytest

from ek_otel.ingest.requests import first_user_message, tool_definition, tool_definitions
from ek_otel.ingest.records import LogRecord, SpanRecord

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_real_packages import SCENARIOS, read  # noqa: E402

QUESTION = "Weather and time in Paris, in Fahrenheit?"
TOOLS = {"get_weather", "get_time", "convert_temperature"}


def _records(scenario: str):
    records, _ = read(scenario, "pb")
    return ([r for r in records if isinstance(r, SpanRecord)],
            [r for r in records if isinstance(r, LogRecord)])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_first_user_message_is_the_question_or_nothing(scenario):
    """Every package that records the request gives the scripted question (frameworks wrap it
    in their own prompt); none gives anything else (a tool's input, a placeholder)."""
    spans, logs = _records(scenario)
    text = first_user_message(spans, logs)
    assert text is None or QUESTION in text, text


#: The provider-run tools the hosted-tools scenarios offer beside the scripted ones.
HOSTED_TOOLS = {"web_search", "code_execution", "file_search", "code_interpreter", "computer",
                "web_search_preview", "computer_use_preview"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_tool_definitions_are_the_scripted_tools(scenario):
    spans, _ = _records(scenario)
    names = {t["name"] for t in tool_definitions(spans)}
    # a hosted-tools scenario also offers the provider's own tools (web search, code execution)
    assert not names or TOOLS <= names <= TOOLS | {"final_answer"} | HOSTED_TOOLS, names
    for tool in tool_definitions(spans):
        assert set(tool) <= {"name", "description", "parameters"}


def test_most_of_the_corpus_records_the_request():
    read_input = sum(first_user_message(*_records(s)) is not None for s in SCENARIOS)
    read_tools = sum(bool(tool_definitions(_records(s)[0])) for s in SCENARIOS)
    assert read_input >= 80 and read_tools >= 70, (read_input, read_tools)


def test_tool_definition_shapes():
    assert tool_definition({"name": "f", "input_schema": {"type": "object"}}) == {
        "name": "f", "parameters": {"type": "object"}}
    assert tool_definition("{'type': 'function', 'function': {'name': 'g'}}") == {"name": "g"}
    assert tool_definition({"description": "no name"}) is None
