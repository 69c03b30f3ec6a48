"""collector-config.yaml: its structure, and the commented scale-out variant's."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

CONFIG = Path(__file__).resolve().parents[2] / "collector-config.yaml"


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


def scale_out_variant() -> dict:
    text = CONFIG.read_text()
    start = text.index("# processors:")
    lines = [re.sub(r"^# ?", "", line) for line in text[start:].splitlines()
             if line.startswith("#") and not line.startswith("# (")]
    return yaml.safe_load("\n".join(lines))


def test_main_config():
    config = yaml.safe_load(CONFIG.read_text())
    check_references(config)
    assert set(config["receivers"]["otlp"]["protocols"]) == {"grpc", "http"}
    ek = config["exporters"]["otlp/ek-otel"]
    assert ek["endpoint"] == "127.0.0.1:4317" and ek["tls"]["insecure"] is True
    assert ek["retry_on_failure"]["enabled"] is True
    assert config["exporters"]["otlp/backend"]["endpoint"].startswith("${env:")
    pipelines = config["service"]["pipelines"]
    to_ek = [p for p in pipelines.values() if "otlp/ek-otel" in p["exporters"]]
    to_backend = [p for p in pipelines.values() if "otlp/backend" in p["exporters"]]
    assert to_ek and to_backend
    for pipeline in to_ek + to_backend:
        assert pipeline["receivers"] == ["otlp"] and pipeline["processors"] == ["batch"]


def test_scale_out_variant():
    main = yaml.safe_load(CONFIG.read_text())
    variant = scale_out_variant()
    merged = {"receivers": main["receivers"], "processors": variant["processors"],
              "exporters": {**variant["exporters"], "otlp/backend": main["exporters"]["otlp/backend"]},
              "service": variant["service"]}
    check_references(merged)
    lb = variant["exporters"]["loadbalancing/ek-otel"]
    assert lb["routing_key"] == "traceID"
    assert "otlp" in lb["protocol"]
    hosts = lb["resolver"]["static"]["hostnames"]
    assert len(hosts) >= 2 and len(set(hosts)) == len(hosts)
    pipeline = variant["service"]["pipelines"]["traces/ek-otel"]
    assert pipeline["exporters"] == ["loadbalancing/ek-otel"]
    assert pipeline["processors"][0] == "groupbytrace"       # before the routing
