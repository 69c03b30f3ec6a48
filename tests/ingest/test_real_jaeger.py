"""The corpus through a real Jaeger: every scenario's OTLP traces are sent to Jaeger 2 (built
from its Go modules by scripts/jaeger.sh, with collector/jaeger/config.yaml: OTLP in, in-memory
storage), read back from Jaeger's query API (``/api/traces/<id>``, the JSON that the Jaeger UI
downloads), and that Jaeger-form file must give the same episodes as the OTLP form it came from.

Only the traces go through Jaeger (it stores no logs), so both sides read the traces alone.
What Jaeger's format cannot carry (``differences`` allows exactly these, nothing else):
- times in microseconds (an end is the start plus the duration, each cut to the microsecond):
  a ``*_ns`` field and a latency within 2 us;
- attribute values that are arrays or maps become their JSON text (``["stop"]``), and an
  attribute with an empty value becomes the empty string;
- a span attribute whose key is a process tag too (the resource but ``service.name``) is dropped (openlit writes
  ``telemetry.sdk.name`` on its spans as well as on the resource).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.episode_dict import episode_to_dict
from ek_otel.ingest.formats import JAEGER, foreign_json_kind
from ek_otel.pipeline import read_episodes

from .test_jaeger_tempo import records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "collector"))

from collector_helpers import built_binary, listen_port, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if (p / "traces.jsonl").is_file())
CONFIG = ROOT / "collector" / "jaeger" / "config.yaml"


@pytest.fixture(scope="session")
def jaeger_binary() -> str:
    """Jaeger 2 ($EK_OTEL_JAEGER, else built by scripts/jaeger.sh)."""
    return built_binary("EK_OTEL_JAEGER", "jaeger.sh", "Jaeger")


@pytest.fixture(scope="session")
def jaeger(jaeger_binary, tmp_path_factory):
    """A running Jaeger 2 with every scenario's traces sent to it: {scenario: Jaeger JSON path}."""
    folder = tmp_path_factory.mktemp("jaeger")
    ports = {name: listen_port() for name in
             ("JAEGER_QUERY_HTTP", "JAEGER_QUERY_GRPC", "JAEGER_OTLP_GRPC", "JAEGER_OTLP_HTTP")}
    env = {**os.environ, **{k: f"127.0.0.1:{p}" for k, p in ports.items()}}
    log_path = folder / "jaeger.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([jaeger_binary, "--config", str(CONFIG)], env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        def ready() -> bool:
            assert proc.poll() is None, f"Jaeger exited:\n{log_path.read_text()[-4000:]}"
            return "Everything is ready" in log_path.read_text(errors="replace")

        wait_for(ready, 60, "Jaeger to start")
        otlp = f"http://127.0.0.1:{ports['JAEGER_OTLP_HTTP']}/v1/traces"
        query = f"http://127.0.0.1:{ports['JAEGER_QUERY_HTTP']}/api/traces/"
        with httpx.Client(timeout=30) as client:
            wait_for(lambda: client.get(query + "0" * 31 + "1").status_code in (200, 404), 30,
                     "Jaeger's query API")
            files = {}
            for scenario in SCENARIOS:
                lines = (CORPUS / scenario / "traces.jsonl").read_text().splitlines()
                for line in lines:
                    if line.strip():
                        sent = client.post(otlp, content=line,
                                           headers={"Content-Type": "application/json"})
                        assert sent.status_code == 200, (scenario, sent.status_code, sent.text)
                files[scenario] = (lines, folder / f"{scenario}.json")
            for scenario, (lines, path) in files.items():
                ids = sorted({r.trace_id for r in records(CORPUS / scenario / "traces.jsonl")})
                want = sum(1 for r in records(CORPUS / scenario / "traces.jsonl"))
                traces = fetch(client, query, ids, want, scenario)
                path.write_text(json.dumps({"data": traces}))
                files[scenario] = path
        yield files
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def fetch(client: httpx.Client, query: str, ids: list, want: int, scenario: str) -> list:
    """Jaeger's traces of ``ids``, once it holds all ``want`` spans (storage is asynchronous)."""
    deadline = time.monotonic() + 30
    while True:
        traces = []
        for trace_id in ids:
            got = client.get(query + trace_id)
            if got.status_code == 200:
                traces.extend(got.json()["data"])
        if sum(len(t["spans"]) for t in traces) >= want or time.monotonic() > deadline:
            assert sum(len(t["spans"]) for t in traces) == want, (scenario, want, traces)
            return traces
        time.sleep(0.2)


def episodes(path: Path) -> list:
    """The episodes of one file, as dicts, with the file's name taken out of the provenance."""
    out = []
    for e in read_episodes([str(path)], report=BadInputReport()):
        d = episode_to_dict(e)
        out.append(dict(d, provenance=dict(d["provenance"], source="")))
    return sorted(out, key=lambda d: json.dumps(d, sort_keys=True))


def differences(jaeger, otlp, path: str = "") -> list:
    """Where the Jaeger form differs from the OTLP form beyond the microsecond.

    >>> differences({"end_ns": 999_000, "cost": {"latency_s": 1.000001}},
    ...             {"end_ns": 1_000_000, "cost": {"latency_s": 1.0000019}})
    []
    >>> differences({"args": {"a": 1}}, {"args": {"a": 2}})
    ['.args.a: 1 != 2']
    """
    if isinstance(jaeger, dict) and isinstance(otlp, dict):
        return [d for k in sorted(set(jaeger) | set(otlp), key=str)
                for d in differences(jaeger.get(k, "<none>"), otlp.get(k, "<none>"), f"{path}.{k}")]
    if isinstance(jaeger, list) and isinstance(otlp, list) and len(jaeger) == len(otlp):
        return [d for i, (a, b) in enumerate(zip(jaeger, otlp))
                for d in differences(a, b, f"{path}[{i}]")]
    if path.endswith("_ns") and isinstance(jaeger, int) and isinstance(otlp, int):
        same = abs(jaeger - otlp) < 2000  # start to the us; end = start + duration in us
    elif path.endswith("latency_s") and isinstance(jaeger, float) and isinstance(otlp, float):
        same = abs(jaeger - otlp) < 2e-6
    else:
        same = jaeger == otlp
    return [] if same else [f"{path}: {jaeger!r} != {otlp!r}"]


GO_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                   "\u2028": "\\u2028", "\u2029": "\\u2029"}


def attribute_as_jaeger_keeps_it(value):
    """An OTLP attribute value as Jaeger's tags hold it: arrays and maps as their JSON text,
    written by Go's encoding/json (which escapes <, > and & in strings).

    >>> attribute_as_jaeger_keeps_it(["a -> b"])
    '["a -\\\\u003e b"]'
    """
    if isinstance(value, (list, tuple, dict)):
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return "".join(GO_JSON_ESCAPES.get(c, c) for c in text)
    return "" if value is None else value


def span_attributes_through_jaeger(span) -> dict:
    """What Jaeger keeps of a span's attributes: not those whose key is one of the process
    tags too (all the resource but ``service.name``, which is the process's service name)."""
    return {key: attribute_as_jaeger_keeps_it(value) for key, value in span.attributes.items()
            if key == "service.name" or key not in span.resource}


def test_every_scenario_is_sent_through_jaeger():
    assert len(SCENARIOS) >= 120


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_jaeger_form_gives_the_same_episodes_as_the_otlp_form(jaeger, scenario):
    path = jaeger[scenario]
    assert foreign_json_kind(json.loads(path.read_text())) == JAEGER
    back, sent = episodes(path), episodes(CORPUS / scenario / "traces.jsonl")
    assert len(back) == len(sent) >= 1
    assert [d for a, b in zip(back, sent) for d in differences(a, b)] == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_jaeger_form_gives_the_same_spans(jaeger, scenario):
    def key(r):
        return (r.trace_id, r.span_id)

    otlp = {key(r): r for r in records(CORPUS / scenario / "traces.jsonl")}
    back = {key(r): r for r in records(jaeger[scenario])}
    assert back.keys() == otlp.keys()
    for k, a in otlp.items():
        b = back[k]
        assert (b.parent_span_id, b.name, b.kind, b.scope_name, b.status_code) == (
            a.parent_span_id, a.name, a.kind, a.scope_name, a.status_code), k
        # Jaeger keeps the start and the duration, each in microseconds
        assert (b.start_ns, b.end_ns - b.start_ns) == (
            a.start_ns // 1000 * 1000, (a.end_ns - a.start_ns) // 1000 * 1000), k
        assert [e.name for e in b.events] == [e.name for e in a.events]
        assert dict(b.attributes) == span_attributes_through_jaeger(a), k
        assert b.resource == a.resource, k


def test_the_shipped_config_is_valid_for_the_built_jaeger(jaeger_binary, tmp_path):
    env = {**os.environ, **{name: "127.0.0.1:1" for name in
                            ("JAEGER_QUERY_HTTP", "JAEGER_QUERY_GRPC", "JAEGER_OTLP_GRPC",
                             "JAEGER_OTLP_HTTP")}}
    done = subprocess.run([jaeger_binary, "validate", "--config", str(CONFIG)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    wrong = tmp_path / "wrong.yaml"  # validate does refuse: a storage the build does not have
    wrong.write_text(CONFIG.read_text().replace("memory:", "no_such_storage:"))
    broken = subprocess.run([jaeger_binary, "validate", "--config", str(wrong)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert broken.returncode != 0


def test_the_build_script_refuses_arguments():
    done = subprocess.run(["bash", str(ROOT / "scripts" / "jaeger.sh"), "--update-sum"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "no arguments are taken" in done.stderr
