"""The shapes of a diagnosis (ek-otel doctor's data): sums and their JSON."""

from __future__ import annotations

import json
from dataclasses import fields

from hypothesis import given, settings
from hypothesis import strategies as st

from ek_otel.ingest.diagnosis import Gap, NotARun, Read, ScopeSeen

COUNTS = st.integers(0, 50)
READS = st.builds(Read, **{f.name: COUNTS for f in fields(Read) if f.type in ("int", int)})


@given(READS, READS)
@settings(max_examples=100, deadline=None)
def test_reads_add_field_by_field_and_write_plain_json(a, b):
    total = a + b
    for f in fields(Read):
        if isinstance(getattr(a, f.name), int):
            assert getattr(total, f.name) == getattr(a, f.name) + getattr(b, f.name)
    assert json.loads(json.dumps(total.to_dict())) == total.to_dict()


def test_a_scope_names_its_package_and_framework_when_known():
    known = ScopeSeen("pydantic-ai", "2.68.0", 7).to_dict()
    assert known["framework"] and known["spans"] == 7
    unknown = ScopeSeen("my.own.tracer", "", 1).to_dict()
    assert not unknown["framework"]  # nothing recognised: no framework named


def test_gaps_and_non_runs_say_what_they_are():
    gap = Gap("arguments", "2 of 2 tool calls without arguments", "TRACELOOP_TRACE_CONTENT=true")
    assert gap.to_dict()["certain"] is True and gap.to_dict()["fix"] == "TRACELOOP_TRACE_CONTENT=true"
    assert NotARun("ab" * 16, "MCP ping", 2).to_dict()["what"] == "MCP ping"
