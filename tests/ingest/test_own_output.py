"""One rule for ek-otel's own output, per instrumentation scope, in dumps and in requests."""

from __future__ import annotations

import json

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ek_otel.emit.attributes import SCOPE_NAME
from ek_otel.ingest.own_output import drop_own_output, is_own_output


def _trace_request(batches):
    req = ExportTraceServiceRequest()
    for service, scopes in batches:
        rs = req.resource_spans.add()
        kv = rs.resource.attributes.add()
        kv.key, kv.value.string_value = "service.name", service
        for scope in scopes:
            ss = rs.scope_spans.add()
            ss.scope.name = scope
            span = ss.spans.add()
            span.trace_id, span.span_id, span.name = b"\x01" * 16, b"\x02" * 8, scope
    return req


def test_protobuf_drops_our_scopes_and_keeps_the_agent_scopes_of_the_same_resource():
    req = _trace_request([("agent", ["openinference", SCOPE_NAME]), ("ek-otel", ["x"]),
                          ("agent", ["langchain"])])
    out = ExportTraceServiceRequest.FromString(
        drop_own_output("traces", req.SerializeToString(), "protobuf"))
    kept = [[ss.scope.name for ss in rs.scope_spans] for rs in out.resource_spans]
    assert kept == [["openinference"], ["langchain"]]


def test_protobuf_without_our_output_is_returned_as_it_is():
    body = _trace_request([("agent", ["a", "b"])]).SerializeToString()
    assert drop_own_output("traces", body, "protobuf") is body
    assert drop_own_output("traces", b"\xff\xff", "protobuf") == b"\xff\xff"


def test_logs_follow_the_same_rule():
    req = ExportLogsServiceRequest()
    for scope in ("agent", SCOPE_NAME):
        sl = req.resource_logs.add().scope_logs.add()
        sl.scope.name = scope
        sl.log_records.add().body.string_value = scope
    out = ExportLogsServiceRequest.FromString(
        drop_own_output("logs", req.SerializeToString(), "protobuf"))
    assert [rl.scope_logs[0].scope.name for rl in out.resource_logs] == ["agent"]


def test_json_camel_and_snake_case_are_read_alike():
    for rk, sk, vk in (("resourceSpans", "scopeSpans", "stringValue"),
                       ("resource_spans", "scope_spans", "string_value")):
        body = json.dumps({rk: [
            {"resource": {"attributes": [{"key": "service.name", "value": {vk: "agent"}}]},
             sk: [{"scope": {"name": "a"}}, {"scope": {"name": SCOPE_NAME}}]},
            {"resource": {"attributes": [{"key": "service.name", "value": {vk: "ek-otel"}}]},
             sk: [{"scope": {"name": "b"}}]},
        ]}).encode()
        out = json.loads(drop_own_output("traces", body, "json"))
        assert [[s["scope"]["name"] for s in r[sk]] for r in out[rk]] == [["a"]]


def test_the_record_rule_is_the_scope_rule():
    assert is_own_output({"service.name": "ek-otel"}, "anything")
    assert is_own_output({"service.name": "agent"}, SCOPE_NAME)
    assert not is_own_output({"service.name": "agent"}, "openinference")
