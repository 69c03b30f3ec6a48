"""The protobuf wire format, read and written by hand where a parser cannot be used: to
split requests by trace id without decoding them, to sniff what a dump holds, and to cut
or repair the values a parser refuses (:mod:`ek_otel.ingest.otlp_pb`).

Example:
    >>> encode_varint(300), read_varint(encode_varint(300), 0, 2)
    (b'\\xac\\x02', (300, 2))
    >>> skip_field(b"\\x02ab", 0, 3, 2)  # a length-delimited field of 2 bytes
    3
"""

from __future__ import annotations

__all__ = ["TruncatedField", "read_varint", "encode_varint", "skip_field", "length_delimited_fields"]


class TruncatedField(ValueError):
    """A field whose value runs past the end of its message."""


_ONE_BYTE_VARINTS = [bytes((n,)) for n in range(0x80)]


def read_varint(data: bytes, pos: int, end: int) -> tuple:
    """``(value, position after it)`` of the varint at ``data[pos:end]``; ValueError when it
    is truncated or longer than 64 bits."""
    result = shift = 0
    while True:
        if pos >= end:
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def encode_varint(number: int) -> bytes:
    """``number`` (>= 0) as a varint (the one- and two-byte cases, most lengths, are fast)."""
    if number < 0x80:
        return _ONE_BYTE_VARINTS[number]
    if number < 0x4000:
        return bytes(((number & 0x7F) | 0x80, number >> 7))
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def skip_field(data: bytes, pos: int, end: int, wire: int) -> int:
    """The position after the value of a field of wire type ``wire`` starting at ``pos``;
    ValueError for a group (deprecated, never in OTLP), :class:`TruncatedField` for a
    value that runs past ``end``."""
    if wire == 0:
        return read_varint(data, pos, end)[1]
    if wire == 1:
        pos += 8
    elif wire == 5:
        pos += 4
    elif wire == 2:
        length, pos = read_varint(data, pos, end)
        pos += length
    else:
        raise ValueError(f"wire type {wire}")
    if pos > end:
        raise TruncatedField("truncated field")
    return pos


def length_delimited_fields(data: bytes, start: int, end: int, *, lenient: bool = False):
    """``(field number, value start, value end)`` of each length-delimited field of the
    message at ``data[start:end]``, in order (fields of other wire types are skipped);
    ValueError for a truncated message.

    ``lenient`` is for sniffing what a body holds even when it is cut short: a
    length-delimited value that runs past ``end`` is yielded as it is (its end past
    ``end``), and any other field cut short, or a group, ends the walk without an error.

    Example:
        >>> list(length_delimited_fields(b"\\x08\\x01\\x12\\x02ab", 0, 6))  # 1: varint, 2: b"ab"
        [(2, 4, 6)]
        >>> list(length_delimited_fields(b"\\x12\\x09ab", 0, 4, lenient=True))  # cut short
        [(2, 2, 11)]
    """
    pos = start
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        wire = tag & 7
        if wire == 2:
            length, value = read_varint(data, pos, end)
            pos = value + length
            if pos > end and not lenient:
                raise TruncatedField("truncated field")
            yield tag >> 3, value, pos
        elif lenient and wire not in (0, 1, 5):
            return
        else:
            try:
                pos = skip_field(data, pos, end, wire)
            except TruncatedField:
                if not lenient:
                    raise
                return
