import os
import sys

import pytest
from openinference.instrumentation.openai import OpenAIInstrumentor

from ek_otel.testing.fake_openai import FakeOpenAI

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session", autouse=True)
def instrumented():
    """The app's instrumentation, as it runs in production."""
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument()
    yield
    instrumentor.uninstrument()


@pytest.fixture
def model():
    """A scripted model (ek-otel's fake OpenAI server): its base URL."""
    with FakeOpenAI() as server:
        yield server.base_url
