"""collector-config.yaml and collector-loadbalancing.yaml: their structure, and that they use
exactly the components collector/builder-config.yaml builds (tests/collector runs them)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "collector-config.yaml"
LB_CONFIG = ROOT / "collector-loadbalancing.yaml"
MANIFEST = ROOT / "collector" / "builder-config.yaml"

#: component type -> the module of the manifest that provides it
MODULE_OF = {
    ("receivers", "otlp"): "receiver/otlpreceiver",
    ("processors", "batch"): "processor/batchprocessor",
    ("processors", "memory_limiter"): "processor/memorylimiterprocessor",
    ("processors", "groupbytrace"): "processor/groupbytraceprocessor",
    ("exporters", "otlp_grpc"): "exporter/otlpexporter",
    ("exporters", "otlp_http"): "exporter/otlphttpexporter",
    ("exporters", "debug"): "exporter/debugexporter",
    ("exporters", "load_balancing"): "exporter/loadbalancingexporter",
}


def check_references(config: dict) -> None:
    """Every pipeline names only defined components, and has receivers and exporters."""
    pipelines = config["service"]["pipelines"]
    assert pipelines
    for name, pipeline in pipelines.items():
        assert name.split("/")[0] in ("traces", "logs", "metrics"), name
        assert pipeline["receivers"] and pipeline["exporters"], name
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in (config.get(kind) or {}), f"{name}: {component} is not defined"
        if pipeline.get("processors"):
            assert pipeline["processors"][0] == "memory_limiter", name


def manifest_modules() -> set:
    manifest = yaml.safe_load(MANIFEST.read_text())
    mods = set()
    for kind in ("receivers", "processors", "exporters", "providers"):
        for entry in manifest[kind]:
            path, version = entry["gomod"].split()
            mods.add(path.split("/collector/", 1)[-1].split("opentelemetry-collector-contrib/")[-1])
            assert re.fullmatch(r"v\d+\.\d+\.\d+", version), entry
    return mods


def test_main_config():
    config = yaml.safe_load(CONFIG.read_text())
    check_references(config)
    assert set(config["receivers"]["otlp"]["protocols"]) == {"grpc", "http"}
    ek = config["exporters"]["otlp_grpc/ek-otel"]
    assert ek["endpoint"] == "${env:EK_OTEL_ENDPOINT:-127.0.0.1:4317}" and ek["tls"]["insecure"] is True
    assert ek["retry_on_failure"]["enabled"] is True and ek["sending_queue"]["enabled"] is True
    assert "compression" not in ek              # the exporter's default: gzip
    assert config["exporters"]["otlp_grpc/backend"]["endpoint"] == "${env:BACKEND_OTLP_ENDPOINT}"
    pipelines = config["service"]["pipelines"]
    to_ek = [p for p in pipelines.values() if "otlp_grpc/ek-otel" in p["exporters"]]
    to_backend = [p for p in pipelines.values() if "otlp_grpc/backend" in p["exporters"]]
    assert to_ek and to_backend
    for pipeline in to_ek + to_backend:
        assert pipeline["receivers"] == ["otlp"]
        assert pipeline["processors"] == ["memory_limiter", "batch"]


def test_load_balancing_config():
    config = yaml.safe_load(LB_CONFIG.read_text())
    check_references(config)
    lb = config["exporters"]["load_balancing/ek-otel"]
    assert lb["routing_key"] == "traceID"
    assert lb["protocol"]["otlp"]["retry_on_failure"]["enabled"] is True
    assert lb["resolver"]["static"]["hostnames"] == "${env:EK_OTEL_BACKENDS}"
    pipeline = config["service"]["pipelines"]["traces/ek-otel"]
    assert pipeline["exporters"] == ["load_balancing/ek-otel"]
    assert pipeline["processors"].index("groupbytrace") == 1     # before the routing
    assert config["service"]["pipelines"]["logs/ek-otel"]["exporters"] == ["load_balancing/ek-otel"]


def test_the_manifest_builds_exactly_what_the_configs_use_and_the_providers():
    used = set()
    for path in (CONFIG, LB_CONFIG):
        config = yaml.safe_load(path.read_text())
        for kind in ("receivers", "processors", "exporters"):
            used |= {(kind, name.split("/")[0]) for name in config[kind]}
    assert used <= set(MODULE_OF), used - set(MODULE_OF)
    expected = {MODULE_OF[key] for key in MODULE_OF} | {
        f"confmap/provider/{p}provider" for p in ("env", "file", "yaml")}
    assert manifest_modules() == expected
    # the debug and OTLP/HTTP exporters are built in for the users' own pipelines (docs)
    assert {MODULE_OF[key] for key in used} | {"exporter/debugexporter",
                                               "exporter/otlphttpexporter"} == {
        MODULE_OF[key] for key in MODULE_OF}


def test_one_release_for_every_module():
    manifest = yaml.safe_load(MANIFEST.read_text())
    versions = {entry["gomod"].split()[1] for kind in ("receivers", "processors", "exporters")
                for entry in manifest[kind]}
    assert versions == {"v" + manifest["dist"]["version"]}
    assert {entry["gomod"].split()[1] for entry in manifest["providers"]} == {"v1.67.0"}
