"""Request bodies: streaming decompression with a size cap (the content type is read by
:func:`ek_otel.ingest.formats.format_of_content_type`).

A body is decompressed chunk by chunk and never allowed to inflate past the cap: a gzip
bomb stops at ``cap + 1`` bytes of output, whatever its ratio (413), instead of filling
memory.

Example:
    >>> import gzip
    >>> d = Decompressor("gzip", cap=10)
    >>> d.feed(gzip.compress(b"hello")) + d.finish()
    b'hello'
    >>> bomb = gzip.compress(bytes(10_000))
    >>> d = Decompressor("gzip", cap=100)
    >>> d.feed(bomb)
    Traceback (most recent call last):
    ...
    ek_otel.serve.body.BodyTooLarge: body over 100 bytes after decompression
"""

from __future__ import annotations

import zlib
from typing import Optional

from ..errors import DecodeError, EkOtelError
from ..ingest.formats import UnsupportedMediaType

__all__ = [
    "ENCODINGS",
    "UnsupportedMediaType",
    "BodyTooLarge",
    "Decompressor",
]

#: Content encodings accepted (gzip is the Collector's default; zstd is a dependency anyway).
ENCODINGS = ("identity", "gzip", "x-gzip", "deflate", "zstd")

_STEP = 256 * 1024


class BodyTooLarge(EkOtelError):
    """A body over the cap after decompression (413)."""


class Decompressor:
    """Incremental decoder of one body in a content encoding, refusing output over ``cap``.

    Raises :class:`BodyTooLarge` as soon as the output would pass the cap,
    :class:`UnsupportedMediaType` for an unknown encoding, and
    :class:`~ek_otel.errors.DecodeError` for a corrupt compressed stream.
    """

    def __init__(self, encoding: Optional[str], cap: int):
        enc = (encoding or "identity").strip().lower()
        if enc not in ENCODINGS:
            raise UnsupportedMediaType(f"unsupported content encoding {enc!r}")
        self.encoding = enc
        self.cap = cap
        self._parts: list[bytes] = []
        self._size = 0
        self._zlib = None
        self._zstd = None
        if enc in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif enc == "deflate":
            self._zlib = zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib or gzip header
        elif enc == "zstd":
            self._zstd = []
            self._compressed_size = 0

    def _emit(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self.cap:
            raise BodyTooLarge(f"body over {self.cap} bytes after decompression")
        if data:
            self._parts.append(data)

    def feed(self, chunk: bytes) -> bytes:
        """Decode one chunk of the wire body; returns b"" (output is kept until finish())."""
        if self._zlib is not None:
            d = self._zlib
            data = chunk
            while data:
                try:
                    out = d.decompress(data, _STEP)
                except zlib.error as exc:
                    raise DecodeError(f"corrupt {self.encoding} body: {exc}") from None
                self._emit(out)
                data = d.unconsumed_tail
                if d.eof:
                    break
        elif self._zstd is not None:
            # zstandard's decompressobj has no output cap: keep the compressed bytes (capped
            # too) and decode them with a bounded stream reader in finish().
            self._compressed_size += len(chunk)
            if self._compressed_size > self.cap:
                raise BodyTooLarge(f"body over {self.cap} bytes")
            self._zstd.append(chunk)
        else:
            self._emit(chunk)
        return b""

    def finish(self) -> bytes:
        """The whole decoded body; DecodeError when a compressed stream was cut short."""
        if self._zlib is not None:
            if not self._zlib.eof:
                try:
                    self._emit(self._zlib.flush(_STEP))
                except zlib.error as exc:
                    raise DecodeError(f"corrupt {self.encoding} body: {exc}") from None
                if not self._zlib.eof:
                    raise DecodeError(f"truncated {self.encoding} body")
        if self._zstd is not None:
            self._finish_zstd()
        body = b"".join(self._parts)
        self._parts = [body] if body else []
        return body

    def _finish_zstd(self) -> None:
        import io

        import zstandard

        compressed = b"".join(self._zstd)
        self._zstd = None
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(compressed))
            while True:
                out = reader.read(_STEP)
                if not out:
                    break
                self._emit(out)
        except zstandard.ZstdError as exc:
            raise DecodeError(f"corrupt zstd body: {exc}") from None

    @property
    def size(self) -> int:
        """Decoded bytes so far."""
        return self._size
