"""Shards of a parallel read (``ek_otel.ingest.shard``): who owns a trace, and the bad-input
report of several processes merged back into the report of one."""

from __future__ import annotations

import random

import pytest

from ek_otel.ingest.bad_input import BadInputReport
from ek_otel.ingest.dumps import read_dump
from ek_otel.ingest.records import Origin
from ek_otel.ingest.shard import Shard, merge_shard_reports, owner_of


@pytest.mark.parametrize("count", [1, 2, 3, 7])
@pytest.mark.parametrize("share", [None, 0.0, 0.2, 0.5, 1.0])
def test_every_trace_has_exactly_one_owner_and_item_agrees(count, share):
    rng = random.Random(count)
    shards = [Shard(i, count, first_share=share) for i in range(count)]
    owners = []
    for _ in range(2000):
        trace = f"{rng.getrandbits(128):032x}"
        owner = owner_of(trace, count, share)
        assert [shard.item(trace) for shard in shards] == [i == owner for i in range(count)]
        owners.append(owner)
    assert [shard.item("") for shard in shards] == [i == 0 for i in range(count)]
    if share is not None and count > 1:
        assert abs(owners.count(0) / len(owners) - share) < 0.05


def _replay(events: list, count: int, keep: int) -> tuple:
    """``events``: what every process meets in order: ("unit", reason) or ("item", trace,
    reason): one report the way one process fills it, and the merged report of ``count``."""
    one = BadInputReport(keep=keep)
    shards = [Shard(i, count, keep) for i in range(count)]
    for n, event in enumerate(events):
        origin = Origin("d.jsonl", n)
        if event[0] == "unit":
            one.add(event[1], str(n), origin)
            for shard in shards:
                shard.unit()
                shard.add(event[1], str(n), origin)
        else:
            one.add(event[2], str(n), origin)
            for shard in shards:
                if shard.item(event[1]):
                    shard.add(event[2], str(n), origin)
                    shard.add(event[2], f"{n} again", origin)  # several cases of one record
            one.add(event[2], f"{n} again", origin)
    merged = BadInputReport(keep=keep)
    merge_shard_reports([shard.state() for shard in shards], merged)
    return (list(one.counts.items()), [str(c) for c in one.cases]), \
        (list(merged.counts.items()), [str(c) for c in merged.cases])


@pytest.mark.parametrize("keep", [0, 1, 5, 100])
def test_merged_report_is_the_report_of_one_process(keep):
    rng = random.Random(keep)
    traces = [f"{rng.getrandbits(128):032x}" for _ in range(6)] + [""]
    reasons = ["invalid JSON", "invalid id", "nesting too deep", "invalid UTF-8", "malformed record"]
    events = [("unit", rng.choice(reasons)) if rng.random() < 0.3 else ("item", rng.choice(traces), rng.choice(reasons))
              for _ in range(300)]
    for count in (2, 3, 5):
        one, merged = _replay(events, count, keep)
        assert merged == one


def test_a_shard_is_a_report_for_the_readers(tmp_path):
    """read_dump with a shard: every record still comes (others' light: no attributes), in the
    same order."""
    dump = tmp_path / "d.jsonl"
    spans = [{"traceId": f"{i:032x}", "spanId": f"{i:016x}", "name": f"s{i}",
              "attributes": [{"key": "k", "value": {"stringValue": "v"}}]} for i in range(1, 40)]
    dump.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": %s}]}]}\n' % str(spans).replace("'", '"'))
    full = list(read_dump([str(dump)], report=BadInputReport()))
    shard = Shard(1, 3)
    sharded = list(read_dump([str(dump)], report=shard, shard=shard))
    assert [(r.trace_id, r.span_id, r.parent_span_id) for r in sharded] == \
        [(r.trace_id, r.span_id, r.parent_span_id) for r in full]
    for record, whole in zip(sharded, full):
        mine = owner_of(record.trace_id, 3) == 1
        assert (record == whole) if mine else (record.attributes == {} != whole.attributes)
