"""The embedding model's graph for the quick session (``deepread search``: one query, and
the process ends): the published graph, its word-embedding table dequantised per token
rather than whole, and its weights read from the model file where they are.

Two costs of a first query on the published graph, with no graph optimisation:

* the int8 model dequantises its 30,522 × 384 word-embedding table — ``Cast`` to float,
  ``Mul`` by a scale per row — and then ``Gather``-s the text's rows from it: two 47 MB
  float tables written into fresh memory, ~45 ms of a first query's ~60 (an optimised
  session folds them into a constant once, when it is built, for ~0.2 s). Here the
  chain gathers first — the int8 rows and their scales for the text's tokens — then
  casts and multiplies those: each number is the same single float product of the same
  two operands (int8 → float is exact), so the vectors are the same to the bit;
* onnxruntime parses the whole 23 MB file and copies every weight out of it. Here the
  graph is given as bytes of ~0.3 MB, each weight larger than :data:`INLINE_BYTES` an
  external-data reference to its own bytes in the published ``model.onnx`` (location,
  offset, length), read by onnxruntime from there; the small constants that shape
  inference reads stay inline. (onnxruntime reads a graph given as bytes from a folder
  it is told since 1.21; with an older one the weights stay inline, copied.)

The file is read as ONNX's protobuf wire format (:mod:`deepread.stores.onnx_wire`); only
the nodes and value infos that name the table are decoded. A graph without that chain
keeps its nodes as they are.
"""

from __future__ import annotations

from deepread.stores.onnx_wire import (
    Buffer,
    Node,
    encode_field,
    encode_int,
    fields,
    payload,
    text,
)

#: the published model's word-embedding table (the ``Mul`` of the ``Cast`` of its int8
#: form and its scales, then one ``Gather``)
TABLE = "inner.embeddings.word_embeddings.weight"
#: a weight this large or larger is read from the model file, not copied into the graph
INLINE_BYTES = 1 << 16

# field numbers (onnx.proto): ModelProto.graph; GraphProto.node, .initializer, .output,
# .value_info; ValueInfoProto.name; TensorProto.raw_data, .external_data, .data_location
# (EXTERNAL = 1); StringStringEntryProto.key, .value
MODEL_GRAPH = 7
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_OUTPUT, GRAPH_VALUE_INFO = 1, 5, 12, 13
VALUE_INFO_NAME = 1
TENSOR_RAW_DATA, TENSOR_EXTERNAL_DATA, TENSOR_DATA_LOCATION, EXTERNAL = 9, 13, 14, 1
ENTRY_KEY, ENTRY_VALUE = 1, 2


def quick_graph(model: Buffer, location: str | None) -> bytes:
    """The quick session's graph of ``model`` (a serialised ONNX ``ModelProto``, the
    file ``location`` in the folder onnxruntime is told to read external data from;
    None: its weights kept inline)."""
    graphs = [(begin, end) for number, begin, end in fields(model) if number == MODEL_GRAPH]
    if len(graphs) != 1:
        raise ValueError(f"an ONNX model holds one graph, not {len(graphs)}")
    name = TABLE.encode()
    nodes: dict[int, Node] = {}  # by index in pieces: the nodes that name the table
    infos: dict[int, str] = {}  # by index in pieces: the value infos that name it
    pieces: list[bytes] = []
    for number, begin, end in fields(model, *payload(model, graphs[0][0])):
        if number == GRAPH_INITIALIZER and location is not None:
            pieces.append(_by_reference(model, begin, end, location))
            continue
        if number != GRAPH_INITIALIZER and model.find(name, begin, end) != -1:
            if number == GRAPH_NODE:
                nodes[len(pieces)] = Node.read(model, *payload(model, begin))
            elif number == GRAPH_VALUE_INFO:
                infos[len(pieces)] = _value_info_name(model, begin)
            elif number == GRAPH_OUTPUT:
                nodes.clear()  # the table itself is an output: its nodes stay
                infos.clear()
        pieces.append(model[begin:end])
    chain = _chain(list(nodes.values()))
    if chain is not None:
        at = {id(node): i for i, node in nodes.items()}
        cast, mul, gather = chain
        rewired = _rows_first(cast, mul, gather)
        pieces[at[id(cast)]] = b"".join(encode_field(GRAPH_NODE, n.encoded()) for n in rewired)
        pieces[at[id(mul)]] = pieces[at[id(gather)]] = b""
        for i, info in infos.items():  # the whole table's float forms are no tensors now
            if info in (TABLE, cast.outputs[0]):
                pieces[i] = b""
    start, end = graphs[0]
    return model[:start] + encode_field(MODEL_GRAPH, b"".join(pieces)) + model[end:]


def _by_reference(model: Buffer, begin: int, end: int, location: str) -> bytes:
    """The initializer (a ``TensorProto``) at ``model[begin:end]``, its raw data, when
    large, replaced by a reference to where it is in the file ``location``."""
    kept: list[bytes] = []
    raw: tuple[int, int] | None = None
    for number, at, stop in fields(model, *payload(model, begin)):
        if number == TENSOR_RAW_DATA:
            raw = payload(model, at)
        else:
            kept.append(model[at:stop])
    if raw is None or raw[1] - raw[0] < INLINE_BYTES:
        return model[begin:end]
    reference = [encode_int(TENSOR_DATA_LOCATION, EXTERNAL)]
    for key, value in (("location", location), ("offset", raw[0]), ("length", raw[1] - raw[0])):
        entry = encode_field(ENTRY_KEY, key.encode()) + encode_field(
            ENTRY_VALUE, f"{value}".encode()
        )
        reference.append(encode_field(TENSOR_EXTERNAL_DATA, entry))
    return encode_field(GRAPH_INITIALIZER, b"".join(kept + reference))


def _value_info_name(model: Buffer, begin: int) -> str:
    for number, at, _ in fields(model, *payload(model, begin)):
        if number == VALUE_INFO_NAME:
            return text(model, at)
    return ""


def _chain(nodes: list[Node]) -> tuple[Node, Node, Node] | None:
    """The ``Cast`` of the int8 table, its ``Mul`` by the rows' scales and the one
    ``Gather`` (on axis 0) of the product, among ``nodes`` (those that name the table) —
    when no other node uses the table's float forms."""
    muls = [n for n in nodes if n.op == "Mul" and n.outputs == [TABLE] and len(n.inputs) == 2]
    if len(muls) != 1:
        return None
    mul = muls[0]
    casts = [n for n in nodes if n.op == "Cast" and n.outputs == mul.inputs[:1]]
    gathers = [n for n in nodes if n.op == "Gather" and n.inputs[:1] == [TABLE]]
    if len(casts) != 1 or len(gathers) != 1:
        return None
    cast, gather = casts[0], gathers[0]
    users = [n for n in nodes if {TABLE, cast.outputs[0]} & set(n.inputs)]
    if len(users) != 2 or not any(u is mul for u in users) or not any(u is gather for u in users):
        return None
    if len(cast.inputs) != 1 or len(gather.inputs) != 2 or gather.int_attribute("axis", 0) != 0:
        return None
    return cast, mul, gather


def _rows_first(cast: Node, mul: Node, gather: Node) -> list[Node]:
    """``Gather(Mul(Cast(q), scale), ids)`` as ``Mul(Cast(Gather(q, ids)), Gather(scale,
    ids))``: the same products, of the gathered rows only."""
    quantised, scale, ids = cast.inputs[0], mul.inputs[1], gather.inputs[1]
    q_rows, scale_rows = f"{quantised}_rows", f"{scale}_rows"
    float_rows = f"{cast.outputs[0]}_rows"
    return [
        Node("Gather", f"{gather.name}_q", [quantised, ids], [q_rows], gather.rest),
        Node("Gather", f"{gather.name}_scale", [scale, ids], [scale_rows], gather.rest),
        Node("Cast", cast.name, [q_rows], [float_rows], cast.rest),
        Node("Mul", mul.name, [float_rows, scale_rows], gather.outputs, mul.rest),
    ]
