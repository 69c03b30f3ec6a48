"""scripts/otelcol.sh and the Collector it builds: the components of the manifest, no more."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml

from collector_helpers import ROOT

# Without $EK_OTEL_OTELCOL the first test builds the Collector (scripts/otelcol.sh; minutes when
# its cache is cold): longer than the suite's 300 s per test. Each wait below has its own deadline.
pytestmark = pytest.mark.timeout(3600)

MANIFEST = ROOT / "collector" / "builder-config.yaml"


def test_the_script_prints_the_cached_binary_on_its_last_line(otelcol):
    done = subprocess.run(["bash", str(ROOT / "scripts" / "otelcol.sh")], capture_output=True,
                          text=True, timeout=3600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [otelcol]          # stdout: the path, and only it
    cache = os.environ.get("EK_OTEL_CI_CACHE", os.path.expanduser("~/.cache/ek-otel-ci"))
    assert otelcol.startswith(os.path.join(cache, "otelcol-"))
    assert not otelcol.startswith(str(ROOT))             # never in the tree


def test_components_are_exactly_the_manifests(otelcol):
    listed = yaml.safe_load(subprocess.run([otelcol, "components"], capture_output=True,
                                           text=True, check=True, timeout=60).stdout)
    manifest = yaml.safe_load(MANIFEST.read_text())
    assert listed["buildinfo"]["version"] == manifest["dist"]["version"]
    names = {kind: {c["name"] for c in listed.get(kind) or []}
             for kind in ("receivers", "processors", "exporters", "extensions", "connectors")}
    assert names["receivers"] == {"otlp"}
    assert names["processors"] == {"batch", "memory_limiter", "groupbytrace"}
    # (the configs' `otlp` is the otlp_grpc exporter's older name, still accepted)
    assert names["exporters"] == {"otlp_grpc", "otlp_http", "debug", "load_balancing"}
    assert names["extensions"] == set() and names["connectors"] == set()
    providers = {p["scheme"] for p in listed["providers"]}
    assert providers == {"env", "file", "yaml"}
    modules = {c["module"].split()[0] for kind in ("receivers", "processors", "exporters")
               for c in listed[kind]}
    assert modules == {e["gomod"].split()[0] for kind in ("receivers", "processors", "exporters")
                       for e in manifest[kind]}
