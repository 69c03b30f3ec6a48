"""``serve --link-by input``: a run without a task id, scored in a real worker process
against the task whose input is its first user message (the setting travels in the
scoring settings' JSON; the worker reads the run's request)."""

from __future__ import annotations

import json
import os
import sys
import urllib.request

from serve_helpers import wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gold"))


def _post_json(url: str, body: bytes) -> int:
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def test_serve_links_a_run_without_task_id_by_its_input(tmp_path, otlp_sink, start_server):
    from test_traces import _refund_script, _run_agent

    from ek_otel.scoring.settings import ScoreSettings

    dump = tmp_path / "replay.jsonl"
    _run_agent(dump, [_refund_script("A-5", "2026-12-04T09:00:00Z", 35.5, 7)], task_id=None,
               question="Refund my last order, please.")
    gold = tmp_path / "link-gold.jsonl"
    gold.write_text(json.dumps({"task_id": "refund-1", "input": "refund my last order,  please.",
                                "ordered": True, "calls": [
                                    {"lookup_order": {"order_id": {"regex": "A-[0-9]+"}}},
                                    {"refund": {"order_id": {"any": True}, "amount": [35.5],
                                                "requested_at": {"any": True}}}]}) + "\n"
                    + json.dumps({"task_id": "other", "input": "something else", "calls": []}) + "\n")
    server = start_server(gold=str(gold), emit_endpoint=otlp_sink.endpoint, emit_protocol="grpc",
                          grace_s=0.2, scorer_processes=1,
                          score_settings=ScoreSettings(link_by="input").to_json())
    assert _post_json(server.http_url + "/v1/traces", dump.read_bytes().strip()) == 200
    wait_for(lambda: len(otlp_sink.scores()) >= 1, 60, "the score exported")
    ((_, _, attrs),) = otlp_sink.scores()
    assert attrs["ek.success"].bool_value is True
    (row,) = server.app.writer.call(lambda s: s.latest_scores())
    envelope = json.loads(row.envelope)
    assert envelope["task_id"] == "refund-1"
    assert "refund.order_id: any value, got 'A-5'" in envelope["score"]["explanation"]
