"""Real observability backends for the tests: Arize Phoenix and MLflow servers on 127.0.0.1.

Both are large and pin versions that conflict with ek-otel's, so each lives in its own
virtualenv, made by ``scripts/ci_backends.sh`` (which ``.ci/run`` calls). The executables are
``$EK_OTEL_PHOENIX`` / ``$EK_OTEL_MLFLOW``, else the script's default locations. When one is
missing the tests that need it are skipped, except when ``$EK_OTEL_REQUIRE_BACKENDS`` is set
(CI sets it): then a missing backend is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Optional

import httpx
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "serve"))

from serve_helpers import free_port, wait_for  # noqa: E402

DEFAULT_PHOENIX = os.path.expanduser("~/.cache/ek-otel-ci/phoenix-venv/bin/phoenix")
DEFAULT_MLFLOW = os.path.expanduser("~/.cache/ek-otel-ci/mlflow-venv/bin/mlflow")
#: How long Phoenix may take to answer /healthz (it runs its migrations first; the machine
#: is shared and slow at times).
STARTUP_TIMEOUT_S = 180.0


def backend_executable(env_var: str, default: str, what: str) -> str:
    """The backend's executable, or skip (locally) / fail (CI) when it is not installed."""
    path = os.environ.get(env_var) or default
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    message = (f"{what} is not installed at {path} (set ${env_var}, or run "
               f"scripts/ci_backends.sh)")
    if os.environ.get("EK_OTEL_REQUIRE_BACKENDS"):
        pytest.fail(message)
    pytest.skip(message)


def wait_until(predicate, timeout: float, what: str):
    """Poll ``predicate`` until truthy (see ``serve_helpers.wait_for``)."""
    return wait_for(predicate, timeout, what)


class BackendServer:
    """A backend's server process on 127.0.0.1 and free ports, in its own working directory
    and process group. ``stop()`` then ``start()`` restarts it on the same ports with the same
    data (a backend that was down for a while)."""

    name = "backend"
    health_path = "/health"

    def __init__(self, executable: str, working_dir: Optional[str] = None):
        self.executable = executable
        self.working_dir = working_dir or tempfile.mkdtemp(prefix=f"ek-otel-{self.name}-")
        self.port = free_port()
        self.proc: Optional[subprocess.Popen] = None
        self.log_path = os.path.join(self.working_dir, f"{self.name}.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> tuple:
        """(argv, extra environment)."""
        raise NotImplementedError

    def start(self) -> "BackendServer":
        argv, extra = self.command()
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(argv, env={**os.environ, **extra}, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     cwd=self.working_dir)
        log.close()
        wait_until(self._healthy, STARTUP_TIMEOUT_S,
                   f"{self.name} on {self.url} (log: {self.log_path})")
        return self

    def _healthy(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.proc.returncode}:\n"
                                 f"{self.log_tail()}")
        try:
            return httpx.get(f"{self.url}{self.health_path}", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def log_tail(self, n: int = 40) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM (then SIGKILL) the server's own process group, nothing else."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.working_dir, ignore_errors=True)

    def get(self, path: str, **params) -> dict:
        response = httpx.get(f"{self.url}{path}", params=params, timeout=30)
        response.raise_for_status()
        return response.json()


class MlflowServer(BackendServer):
    """``mlflow server`` with a SQLite store (what its OTLP endpoint needs)."""

    name = "mlflow"

    def command(self) -> tuple:
        db = os.path.join(self.working_dir, "mlflow.db")
        return ([self.executable, "server", "--host", "127.0.0.1", "--port", str(self.port),
                 "--backend-store-uri", f"sqlite:///{db}", "--default-artifact-root",
                 os.path.join(self.working_dir, "artifacts"), "--workers", "1"],
                {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"})

    def trace(self, trace_id: str) -> dict:
        return self.get(f"/api/3.0/mlflow/traces/tr-{trace_id}")["trace"]["trace_info"]


class PhoenixServer(BackendServer):
    """``phoenix serve`` (HTTP and OTLP/gRPC ports)."""

    name = "phoenix"
    health_path = "/healthz"

    def __init__(self, executable: str, working_dir: Optional[str] = None):
        super().__init__(executable, working_dir)
        self.grpc_port = free_port()

    @property
    def grpc_url(self) -> str:
        return f"http://127.0.0.1:{self.grpc_port}"

    def command(self) -> tuple:
        return ([self.executable, "serve"], {
            "PHOENIX_WORKING_DIR": self.working_dir,
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(self.grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_LOG_MIGRATIONS": "false",
            "PHOENIX_DB_LOGGING_LEVEL": "warning",
            "PHOENIX_SQL_DATABASE_URL": "",
            "PHOENIX_ENABLE_AUTH": "false",
        })

    # -- REST API -------------------------------------------------------------------------

    def paged(self, path: str, **params) -> list:
        """Every item of a paginated list endpoint."""
        items, cursor = [], None
        while True:
            query = dict(params, limit=params.get("limit", 1000))
            if cursor:
                query["cursor"] = cursor
            page = self.get(path, **query)
            items.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    def traces(self, project: str = "default") -> dict:
        """trace id -> (start_time, end_time) as Phoenix computes them from the spans."""
        items = self.paged(f"/v1/projects/{project}/traces")
        return {t["trace_id"]: (t["start_time"], t["end_time"]) for t in items}

    def spans(self, project: str = "default", **filters) -> list:
        return self.paged(f"/v1/projects/{project}/spans", **filters)

    def span_annotations(self, span_ids, project: str = "default") -> list:
        return self.paged(f"/v1/projects/{project}/span_annotations", span_ids=list(span_ids))

    def trace_annotations(self, trace_ids, project: str = "default") -> list:
        return self.paged(f"/v1/projects/{project}/trace_annotations", trace_ids=list(trace_ids))


def send_otlp_json_file(url: str, path: str, headers: Optional[dict] = None) -> set:
    """POST every trace request of an OTLP JSON Lines file to ``url``/v1/traces as protobuf
    (what an SDK exporter sends); the trace ids sent."""
    from ek_otel.ingest.otlp_json import traces_json_to_pb

    trace_ids = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            data = json.loads(line)
            if "resourceSpans" not in data:
                continue
            request, problems = traces_json_to_pb(data)
            assert not problems, problems
            for rs in request.resource_spans:
                for ss in rs.scope_spans:
                    trace_ids.update(span.trace_id.hex() for span in ss.spans)
            response = httpx.post(f"{url}/v1/traces", content=request.SerializeToString(),
                                  headers={"content-type": "application/x-protobuf",
                                           **(headers or {})}, timeout=120)
            assert response.status_code == 200, response.text
    return trace_ids
