"""The quick session's graph: the word-embedding rows gathered before they are
dequantised, the weights referred to in the model file rather than copied."""

from __future__ import annotations

from deepread.stores.local_model import MODEL_SHA256, _model_file, quick_model
from deepread.stores.onnx_wire import Node, fields, payload
from deepread.stores.quick_graph import GRAPH_NODE, MODEL_GRAPH, TABLE, quick_graph


def _nodes(model: bytes) -> list[Node]:
    graph = next(begin for number, begin, _ in fields(model) if number == MODEL_GRAPH)
    return [
        Node.read(model, *payload(model, begin))
        for number, begin, _ in fields(model, *payload(model, graph))
        if number == GRAPH_NODE
    ]


def test_the_quick_graph_dequantises_no_whole_word_embedding_table():
    published = _nodes(_model_file().read_bytes())
    quick = _nodes(quick_model(_model_file(), MODEL_SHA256))
    assert any(n.outputs == [TABLE] for n in published)
    assert not any(n.outputs == [TABLE] or TABLE in n.inputs for n in quick)
    assert [n.op for n in quick if n.outputs == ["embedding"]] == ["Mul"]
    assert len(quick) == len(published) + 1  # two gathers and a cast and a mul, for three


def test_the_quick_graph_refers_to_its_weights_in_the_model_file():
    assert len(quick_model(_model_file(), MODEL_SHA256)) < 1_000_000  # the file: 23 MB


def test_a_graph_without_the_table_keeps_its_nodes():
    published = _model_file().read_bytes()
    renamed = published.replace(TABLE.encode(), TABLE.upper().encode())  # the same length
    assert [n.op for n in _nodes(quick_graph(renamed, "model.onnx"))] == [
        n.op for n in _nodes(renamed)
    ]
