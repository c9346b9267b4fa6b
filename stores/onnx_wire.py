"""ONNX's protobuf wire format, read and written directly: a message's fields found by
their offsets, a field encoded, a ``NodeProto``'s names and attributes decoded.

Enough to rewire a few nodes of the published embedding model and point its weights at
the file they are in (:mod:`deepread.stores.quick_graph`) without the ``onnx`` package
(not a dependency) and without copying the weights: a field is an offset into the
model's bytes until it is changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol, overload


class Buffer(Protocol):
    """The model's bytes: ``bytes`` or a read-only ``mmap`` of its file."""

    @overload
    def __getitem__(self, index: int, /) -> int: ...
    @overload
    def __getitem__(self, index: slice, /) -> bytes: ...
    def __len__(self) -> int: ...
    def find(self, sub: bytes, start: int, end: int, /) -> int: ...


# field numbers (onnx.proto): NodeProto.input, .output, .name, .op_type, .attribute,
# .domain; AttributeProto.name, .i
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
ATTRIBUTE_NAME, ATTRIBUTE_INT = 1, 3
# wire types
VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


def varint(data: Buffer, i: int) -> tuple[int, int]:
    """The varint at ``data[i]`` and the offset after it."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def fields(data: Buffer, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, int]]:
    """``(number, begin, end)`` of each field of the message in ``data[start:end]``,
    ``data[begin:end]`` the whole field, its key included (:func:`payload`: a
    length-delimited field's contents)."""
    i, end = start, len(data) if end is None else end
    while i < end:
        begin = i
        key, i = varint(data, i)
        wire = key & 7
        if wire == VARINT:
            _, i = varint(data, i)
        elif wire == FIXED64:
            i += 8
        elif wire == LENGTH_DELIMITED:
            length, i = varint(data, i)
            i += length
        elif wire == FIXED32:
            i += 4
        else:
            raise ValueError(f"protobuf wire type {wire} at byte {begin}")
        yield key >> 3, begin, i


def payload(data: Buffer, begin: int) -> tuple[int, int]:
    """``(start, end)`` of the contents of the length-delimited field at ``data[begin]``."""
    _, i = varint(data, begin)
    length, i = varint(data, i)
    return i, i + length


def text(data: Buffer, begin: int) -> str:
    """The string held by the length-delimited field at ``data[begin]``."""
    start, end = payload(data, begin)
    return data[start:end].decode()


def encode_field(number: int, contents: bytes) -> bytes:
    """A length-delimited field ``number`` holding ``contents``."""
    return encode_varint(number << 3 | LENGTH_DELIMITED) + encode_varint(len(contents)) + contents


def encode_int(number: int, value: int) -> bytes:
    """A varint field ``number`` holding ``value`` (not negative)."""
    return encode_varint(number << 3 | VARINT) + encode_varint(value)


@dataclass
class Node:
    """A ``NodeProto``'s op, name, inputs and outputs; its attributes and domain kept as
    their encoded fields."""

    op: str = ""
    name: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    rest: list[bytes] = field(default_factory=list)

    @classmethod
    def read(cls, data: Buffer, start: int, end: int) -> Node:
        """The node encoded in ``data[start:end]``."""
        node = cls()
        for number, begin, stop in fields(data, start, end):
            if number == NODE_INPUT:
                node.inputs.append(text(data, begin))
            elif number == NODE_OUTPUT:
                node.outputs.append(text(data, begin))
            elif number == NODE_NAME:
                node.name = text(data, begin)
            elif number == NODE_OP:
                node.op = text(data, begin)
            elif number in (NODE_ATTRIBUTE, NODE_DOMAIN):
                node.rest.append(data[begin:stop])
        return node

    def int_attribute(self, name: str, default: int) -> int:
        """The value of the node's integer attribute ``name`` (``default``: it has none)."""
        for encoded in self.rest:
            number, begin, _ = next(fields(encoded))
            if number != NODE_ATTRIBUTE:
                continue
            found, value = "", default
            for n, at, _ in fields(encoded, *payload(encoded, begin)):
                if n == ATTRIBUTE_NAME:
                    found = text(encoded, at)
                elif n == ATTRIBUTE_INT:
                    value = varint(encoded, varint(encoded, at)[1])[0]
            if found == name:
                return value
        return default

    def encoded(self) -> bytes:
        parts = [encode_field(NODE_INPUT, n.encode()) for n in self.inputs]
        parts += [encode_field(NODE_OUTPUT, n.encode()) for n in self.outputs]
        parts += [encode_field(NODE_NAME, self.name.encode())]
        parts += [encode_field(NODE_OP, self.op.encode())]
        return b"".join(parts + self.rest)
