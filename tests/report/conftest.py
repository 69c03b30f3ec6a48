"""Shared fixtures of the report tests: JSON reports made by the real `ek-otel score`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ek_otel.cli import cli

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "examples" / "tasks.jsonl"
TRACES = ROOT / "examples" / "traces.jsonl"
PRICING = ROOT / "examples" / "pricing.yaml"

# Edits of the example traces (the text of the OTLP JSON lines, where arguments are JSON
# inside JSON strings): one run where the failing trials are fixed, one where they all fail.
FIXED = ((r'\\"city\\": \\"Lyon\\"', r'\\"city\\": \\"Paris\\"'), (r"355\.0", "35.5"),
         ("UA 513", "UA 512"))
WORSE = ((r'\\"city\\": \\"Paris\\"', r'\\"city\\": \\"Lyon\\"'), (r'Paris, France\\"', r'Lyon\\"'),
         (r'\\"amount\\": 35\.5', r'\\"amount\\": 355.0'),
         (r'\\"flight\\": \\"UA 51[23]\\"', r'\\"flight\\": \\"UA 999\\"'))

# Issue 16's worsened copy of the example: three runs got worse (the passing flight booking
# books another flight: 0.5 -> 0.0; a passing Paris weather call asks for Lyon: 0.667 ->
# 0.333; the failing refund also gives a wrong reason: same success, worse arguments).
WORSE_THREE = ((r'\\"flight\\": \\"UA 512\\"', r'\\"flight\\": \\"UA 999\\"'),
               (r'\\"city\\": \\"Paris, France\\"', r'\\"city\\": \\"Lyon\\"'),
               (r'355\.0, \\"reason\\": \\"damaged\\"', r'355.0, \\"reason\\": \\"lost\\"'))


def edited_traces(path: Path, edits) -> Path:
    text = TRACES.read_text(encoding="utf-8")
    for pattern, replacement in edits:
        text, n = re.subn(pattern, lambda _m, r=replacement: r.replace("\\\\", "\\"), text)
        assert n, pattern
    path.write_text(text, encoding="utf-8")
    return path


def two_model_traces(directory: Path) -> Path:
    """The example with its failing trials fixed, beside a worse run of another model (other
    trace ids, another model name): two runs that must not be pooled."""
    fixed = edited_traces(directory / "fixed.jsonl", FIXED).read_text(encoding="utf-8")
    worse = edited_traces(directory / "worse.jsonl", WORSE).read_text(encoding="utf-8")
    for trace_id in set(re.findall(r'"traceId":"([0-9a-f]{32})"', worse)):
        worse = worse.replace(trace_id, trace_id[::-1])
    worse = worse.replace('"gpt-4o-mini', '"gpt-4o-large')
    both = directory / "both.jsonl"
    both.write_text(fixed + worse, encoding="utf-8")
    return both


def score_json(traces: Path, out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, ["score", str(traces), "--gold", str(GOLD), "--json",
                                      str(out), *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def example_report(tmp_path_factory) -> tuple:
    """(path, data) of `score examples/traces.jsonl --pricing examples/pricing.yaml --json`."""
    out = tmp_path_factory.mktemp("example") / "report.json"
    return out, score_json(TRACES, out, "--pricing", str(PRICING))


@pytest.fixture(scope="session")
def base_and_worse(tmp_path_factory) -> tuple:
    """Paths of two JSON reports: the example with its failing trials fixed, and a worse one."""
    d = tmp_path_factory.mktemp("compare")
    base, worse = d / "base.json", d / "worse.json"
    score_json(edited_traces(d / "fixed.jsonl", FIXED), base)
    score_json(edited_traces(d / "worse.jsonl", WORSE), worse)
    return base, worse


@pytest.fixture(scope="session")
def example_and_worse_three(tmp_path_factory) -> tuple:
    """Paths of two JSON reports: the example as it is, and its copy with three worse runs."""
    d = tmp_path_factory.mktemp("worse-three")
    base, worse = d / "example.json", d / "worse-three.json"
    score_json(TRACES, base)
    score_json(edited_traces(d / "worse-three.jsonl", WORSE_THREE), worse)
    return base, worse

