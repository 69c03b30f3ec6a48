"""Content types and capped streaming decompression."""

from __future__ import annotations

import gzip
import zlib

import pytest
import zstandard

from ek_otel.errors import DecodeError
from ek_otel.serve.body import BodyTooLarge, Decompressor, UnsupportedMediaType


@pytest.mark.parametrize("encoding, compress", [
    (None, lambda b: b), ("identity", lambda b: b), ("gzip", gzip.compress),
    ("deflate", zlib.compress), ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
])
def test_round_trip_in_small_chunks(encoding, compress):
    data = bytes(range(256)) * 1000
    wire = compress(data)
    d = Decompressor(encoding, cap=len(data))
    for i in range(0, len(wire), 777):
        d.feed(wire[i:i + 777])
    assert d.finish() == data


@pytest.mark.parametrize("encoding, compress", [
    ("gzip", gzip.compress), ("deflate", zlib.compress),
    ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
])
def test_bombs_stop_at_the_cap(encoding, compress):
    bomb = compress(bytes(200 * 2**20))                # 200 MiB of zeros, a few hundred KB
    d = Decompressor(encoding, cap=2**20)
    with pytest.raises(BodyTooLarge):
        for i in range(0, len(bomb), 65536):
            d.feed(bomb[i:i + 65536])
        d.finish()
    assert d.size <= 2**20 + 256 * 1024


def test_corrupt_and_truncated_streams():
    with pytest.raises(DecodeError):
        d = Decompressor("gzip", cap=100)
        d.feed(b"\x1f\x8bnot gzip at all")
    d = Decompressor("gzip", cap=10_000)
    d.feed(gzip.compress(b"x" * 5000)[:-10])
    with pytest.raises(DecodeError):
        d.finish()


def test_unknown_content_encodings():
    with pytest.raises(UnsupportedMediaType):
        Decompressor("br", cap=1)
