"""Repeated trials of an agent whose model is flaky: a scripted fake model that answers
with the wrong city in one run of five."""

import itertools

import pytest

from ek_otel.testing.fake_openai import DEFAULT_SCRIPT, FakeOpenAI, ScriptedCall, Turn
from weather_agent import ask

FIRST = DEFAULT_SCRIPT[0]
WRONG_CITY = (Turn(FIRST.response_id, FIRST.usage, calls=(
    ScriptedCall("call_weather_1", "get_weather", {"city": "Lyon", "unit": "celsius"}),
    FIRST.calls[1])),) + DEFAULT_SCRIPT[1:]
EXPECTED = [{"get_weather": {"city": ["Paris"], "unit": ["celsius", ""]}},
            {"get_time": {"timezone": ["Europe/Paris"]}},
            {"convert_temperature": {"value": [18.5], "to": ["fahrenheit"]}}]


@pytest.fixture
def flaky_model():
    """Each call starts a model for one run: right four times, then wrong once."""
    plan = itertools.cycle([DEFAULT_SCRIPT, DEFAULT_SCRIPT, DEFAULT_SCRIPT, WRONG_CITY,
                            DEFAULT_SCRIPT])

    def run(question):
        with FakeOpenAI(next(plan)) as server:
            return ask(question, base_url=server.base_url)
    return run


@pytest.mark.ek_trials(k=5, min_success_rate=0.8)
def test_good_enough(ek_trace, flaky_model):
    with ek_trace.span("weather task"):
        flaky_model("Weather and time in Paris, in Fahrenheit?")
    ek_trace.assert_calls(EXPECTED, task_id="weather-80")


@pytest.mark.ek_trials(k=5)
def test_every_time(ek_trace, flaky_model):
    with ek_trace.span("weather task"):
        flaky_model("Weather and time in Paris, in Fahrenheit?")
    ek_trace.assert_calls(EXPECTED, task_id="weather-every-time")


@pytest.mark.ek_trials(k=3)
def test_reliable_model(ek_trace, model):
    with ek_trace.span("weather task"):
        ask("Weather and time in Paris, in Fahrenheit?", base_url=model)
    ek_trace.assert_calls(EXPECTED, task_id="weather-reliable")
