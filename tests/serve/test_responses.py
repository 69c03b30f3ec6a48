"""One error → status table: both receivers classify the same condition the same way."""

from __future__ import annotations

import os
import urllib.error
import urllib.request

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from ek_otel.errors import ConfigError, DecodeError, InputError, Overloaded, PermanentError
from ek_otel.serve import responses
from ek_otel.serve.body import BodyTooLarge, UnsupportedMediaType

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@pytest.mark.parametrize("error, http, code, retry", [
    (responses.Unauthenticated("no token"), 401, "UNAUTHENTICATED", None),
    (responses.MethodNotAllowed("GET"), 405, "UNIMPLEMENTED", None),
    (UnsupportedMediaType("text/plain"), 415, "INVALID_ARGUMENT", None),
    (BodyTooLarge("over"), 413, "RESOURCE_EXHAUSTED", None),
    (responses.BodyTimeout("slow"), 408, "DEADLINE_EXCEEDED", None),
    (responses.ClientGone("reset"), 400, "INVALID_ARGUMENT", None),
    (DecodeError("truncated"), 400, "INVALID_ARGUMENT", None),
    (RecursionError("deep"), 400, "INVALID_ARGUMENT", None),
    (InputError("no request message"), 400, "INVALID_ARGUMENT", None),
    (ConfigError("{x} is wrong", fields=("x",)), 400, "INVALID_ARGUMENT", None),
    (Overloaded("at the cap", retry_after_s=4), 503, "UNAVAILABLE", 4),
    (responses.NotReady("starting", retry_after_s=2), 503, "UNAVAILABLE", 2),
    (ZeroDivisionError("a bug of ours"), 503, "UNAVAILABLE", 7),
])
def test_each_error_has_one_http_status_and_one_grpc_code(error, http, code, retry):
    refusal = responses.refusal_for(error, retry_after_s=7)
    assert (refusal.http_status, refusal.grpc_code.name, refusal.retry_after_s) == (http, code, retry)
    assert refusal.ours == isinstance(error, ZeroDivisionError)
    assert ("Retry-After" in refusal.http_headers()) == (retry is not None)
    assert bool(refusal.grpc_trailers()) == (retry is not None)


def test_no_row_is_shadowed_by_an_earlier_row_of_a_base_class():
    seen: list = []
    for row in responses.STATUS_TABLE:
        for err in row.errors:
            assert not any(issubclass(err, earlier) for earlier in seen), err
        seen.extend(row.errors)
    assert responses.STATUS_TABLE[-2].errors == (PermanentError,)


def _http(url, body, headers):
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def _grpc(target, body, metadata=()):
    with grpc.insecure_channel(target) as channel:
        export = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
        try:
            export(body, metadata=metadata, timeout=30)
        except grpc.RpcError as err:
            return err.code(), dict(err.trailing_metadata() or ())
    return grpc.StatusCode.OK, {}


def _retry_delay(details: bytes) -> int:
    info = error_details_pb2.RetryInfo()
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    return info.retry_delay.seconds


def test_both_receivers_answer_the_same_condition_with_the_same_code(start_server):
    """Undecodable, unauthenticated, overloaded: the HTTP error body's google.rpc code is the
    gRPC status code, and a retryable refusal carries the same delay on both."""
    from test_http_receiver import pb_request

    server = start_server(auth_token="tok", max_open_traces=1, grace_s=60.0, max_wait_s=600.0,
                          retry_after_s=3)
    url = server.http_url + "/v1/traces"
    auth = {"Content-Type": "application/x-protobuf", "Authorization": "Bearer tok"}
    good = (("authorization", "Bearer tok"),)
    assert _http(url, pb_request(b"\x61" * 16, [b"\x01" * 8]), auth)[0] == 200   # fills the cap
    cases = {
        "undecodable": (os.urandom(2048), auth, good),
        "unauthenticated": (pb_request(b"\x62" * 16, [b"\x01" * 8]),
                            {"Content-Type": "application/x-protobuf"}, ()),
        "overloaded": (pb_request(b"\x63" * 16, [b"\x01" * 8]), auth, good),
    }
    answers = {}
    for name, (body, headers, metadata) in cases.items():
        status, http_headers, http_body = _http(url, body, headers)
        code, trailers = _grpc(server.grpc_target, body, metadata)
        assert status_pb2.Status.FromString(http_body).code == code.value[0], name
        answers[name] = (status, code.name)
        if status == 503:
            assert http_headers["Retry-After"] == "3"
            assert _retry_delay(trailers["grpc-status-details-bin"]) == 3
    assert answers == {"undecodable": (400, "INVALID_ARGUMENT"),
                       "unauthenticated": (401, "UNAUTHENTICATED"),
                       "overloaded": (503, "UNAVAILABLE")}
