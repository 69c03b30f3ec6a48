"""serve/payload.py: the stored form of a payload round-trips, is smaller, and its digest is
of the payload as split (never of its packed form)."""

from __future__ import annotations

import threading

from ek_otel.serve.payload import pack_payload, payload_digest, unpack_payload


def test_round_trip_and_size():
    payload = b"\x0a" + b"gen_ai.tool.call.arguments={\"city\": \"Paris\"}" * 200
    packed = pack_payload(payload)
    assert len(packed) * 4 < len(payload)
    assert unpack_payload(packed) == payload
    assert unpack_payload(memoryview(packed)) == payload


def test_older_unpacked_payloads_come_back_as_they_are():
    assert unpack_payload(b"\x0aold") == b"\x0aold"
    assert unpack_payload(b"") == b""


def test_digest_is_of_the_payload_not_its_packing():
    payload = b"\x0aspans"
    assert payload_digest(payload) == payload_digest(unpack_payload(pack_payload(payload)))
    assert payload_digest(payload) != payload_digest(pack_payload(payload))


def test_threads_pack_concurrently():
    payloads = [bytes([10, i]) * 1000 for i in range(8)]
    out: dict = {}

    def work(i):
        for _ in range(50):
            out[i] = unpack_payload(pack_payload(payloads[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [out[i] for i in range(8)] == payloads
