"""The stored form of a payload (one trace's share of a request, as the receiver split it):
zstd-packed for the store, unpacked for the scorers, and the digest that deduplicates it.

Packing runs in the receiver's threads, outside the store's single writer; each thread keeps
its own zstd context (a context is not thread-safe).

Example:
    >>> unpack_payload(pack_payload(b"spans")), unpack_payload(b"older, unpacked")
    (b'spans', b'older, unpacked')
"""

from __future__ import annotations

import hashlib
import threading

__all__ = ["pack_payload", "unpack_payload", "payload_digest"]

#: The first bytes of every zstd frame. A payload the receiver splits is a protobuf
#: ``Export*ServiceRequest``: it starts with the tag of field 1 (``0x0a``), or is empty.
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

_codecs = threading.local()


def pack_payload(payload: bytes) -> bytes:
    """The stored form of a payload: a zstd frame (level 1, with its content size).

    Example:
        >>> packed = pack_payload(b"gen_ai.tool.call.arguments" * 40)
        >>> len(packed) < 100, unpack_payload(packed)[:11]
        (True, b'gen_ai.tool')
    """
    compressor = getattr(_codecs, "compressor", None)
    if compressor is None:  # one per thread: a zstd context is not thread-safe
        import zstandard

        compressor = _codecs.compressor = zstandard.ZstdCompressor(level=1)
    return compressor.compress(payload)


def unpack_payload(data: bytes) -> bytes:
    """A payload as the receiver split it: zstd frames are decompressed, anything else (the
    uncompressed payloads of stores written before compression) is returned as it is.

    Example:
        >>> unpack_payload(pack_payload(b"")), unpack_payload(b"raw")
        (b'', b'raw')
    """
    if data[:4] != _ZSTD_MAGIC:
        return bytes(data)
    decompressor = getattr(_codecs, "decompressor", None)
    if decompressor is None:
        import zstandard

        decompressor = _codecs.decompressor = zstandard.ZstdDecompressor()
    return decompressor.decompress(data)


def payload_digest(payload: bytes) -> bytes:
    """The digest that deduplicates payloads of a trace (of the payload as split, never of
    its compressed form).

    Example:
        >>> len(payload_digest(b"x"))
        16
    """
    return hashlib.blake2b(payload, digest_size=16).digest()
