"""Fixtures of the backend tests: real Phoenix and MLflow servers (see ``backend_servers.py``)."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "serve"))  # serve_helpers

from backend_servers import (DEFAULT_MLFLOW, DEFAULT_PHOENIX, MlflowServer,  # noqa: E402
                             PhoenixServer, backend_executable)
from serve_helpers import server_processes  # noqa: E402,F401


@pytest.fixture(scope="session")
def phoenix_executable() -> str:
    return backend_executable("EK_OTEL_PHOENIX", DEFAULT_PHOENIX, "Arize Phoenix")


@pytest.fixture(scope="session")
def phoenix(phoenix_executable):
    """One Phoenix for the session, started once and stopped at the end."""
    server = PhoenixServer(phoenix_executable).start()
    yield server
    server.remove()


@pytest.fixture(scope="session")
def mlflow_server():
    """One MLflow tracking server for the session."""
    server = MlflowServer(backend_executable("EK_OTEL_MLFLOW", DEFAULT_MLFLOW, "MLflow")).start()
    yield server
    server.remove()
