#!/usr/bin/env bash
# Install the real observability backends the tests talk to, each in its own virtualenv.
#
# They are large and pin versions that conflict with ek-otel's own dependencies, so they never go
# into the project's environment. The venvs live under a cache directory that the machine may keep
# between CI runs; a venv that already holds the pinned version is reused as it is.
#
#   scripts/ci_backends.sh            # install what is missing (both at once), print the exports
#   scripts/ci_backends.sh phoenix    # just one of them
#   EK_OTEL_CI_CACHE=/tmp/x scripts/ci_backends.sh
#
# The tests find the servers through EK_OTEL_PHOENIX (the `phoenix` executable) and
# EK_OTEL_MLFLOW (the `mlflow` executable); the script prints both as `export` lines. Google
# ADK (google-adk) and LangChain agentevals get a venv each too (their dependencies are large
# and pinned apart: google-genai, langchain); EK_OTEL_ADK_PYTHON and EK_OTEL_AGENTEVALS_PYTHON
# name their interpreters.
set -euo pipefail

PHOENIX_VERSION="${PHOENIX_VERSION:-20.26.1}"
# 3.17.2: the newest whose mlflow-skinny is on the index (3.18.0 is listed without it)
MLFLOW_VERSION="${MLFLOW_VERSION:-3.17.2}"
# The peers whose match modes tests/core/test_modes_vs_peers.py checks verdicts against
ADK_VERSION="${ADK_VERSION:-2.13.0}"
AGENTEVALS_VERSION="${AGENTEVALS_VERSION:-0.0.9}"
CACHE="${EK_OTEL_CI_CACHE:-${HOME:-/root}/.cache/ek-otel-ci}"
PYTHON="${PYTHON:-python3}"

ensure_venv() {  # name package version executable
  local name="$1" package="$2" version="$3" exe="$4"
  local venv="$CACHE/$name-venv"
  local stamp="$venv/.ek-otel-installed"
  if [ -x "$venv/bin/$exe" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$package==$version" ] \
      && "$venv/bin/python" -c "import sys" 2>/dev/null; then
    echo "ci_backends: reusing $venv ($package==$version)" >&2
  else
    echo "ci_backends: installing $package==$version into $venv" >&2
    rm -rf "$venv"
    mkdir -p "$CACHE"
    "$PYTHON" -m venv "$venv"
    # pip's own noise goes to stderr; the one thing on stdout is the export line below
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$package==$version" >&2
    echo "$package==$version" > "$stamp"
  fi
}

want="${1:-all}"
# Both installs run at once (each in its own venv), then the export lines are printed.
pids=()
if [ "$want" = all ] || [ "$want" = phoenix ]; then
  ensure_venv phoenix arize-phoenix "$PHOENIX_VERSION" phoenix & pids+=($!)
fi
if [ "$want" = all ] || [ "$want" = mlflow ]; then
  ensure_venv mlflow mlflow "$MLFLOW_VERSION" mlflow & pids+=($!)
fi
if [ "$want" = all ] || [ "$want" = adk ]; then
  ensure_venv adk google-adk "$ADK_VERSION" python & pids+=($!)
fi
if [ "$want" = all ] || [ "$want" = agentevals ]; then
  ensure_venv agentevals agentevals "$AGENTEVALS_VERSION" python & pids+=($!)
fi
for pid in "${pids[@]}"; do
  wait "$pid"
done
if [ "$want" = all ] || [ "$want" = phoenix ]; then
  echo "export EK_OTEL_PHOENIX=$CACHE/phoenix-venv/bin/phoenix"
fi
if [ "$want" = all ] || [ "$want" = mlflow ]; then
  echo "export EK_OTEL_MLFLOW=$CACHE/mlflow-venv/bin/mlflow"
fi
if [ "$want" = all ] || [ "$want" = adk ]; then
  echo "export EK_OTEL_ADK_PYTHON=$CACHE/adk-venv/bin/python"
fi
if [ "$want" = all ] || [ "$want" = agentevals ]; then
  echo "export EK_OTEL_AGENTEVALS_PYTHON=$CACHE/agentevals-venv/bin/python"
fi
