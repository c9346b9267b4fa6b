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


def test_the_quick_graph_with_its_weights_inline_gives_the_published_numbers():
    # onnxruntime before 1.21 cannot read a bytes graph's weights from a folder: the
    # rewired graph then carries them itself, and must compute the same.
    import numpy as np

    from deepread.environment.quiet_import import import_onnxruntime
    from deepread.stores.local_model import LocalModel, model_feeds

    ort = import_onnxruntime()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    inline = quick_model(_model_file(), MODEL_SHA256, in_place=False)
    assert len(inline) > 20_000_000
    sessions = [
        ort.InferenceSession(m, sess_options=options, providers=["CPUExecutionProvider"])
        for m in (inline, str(_model_file()))
    ]
    tokenizer = LocalModel().tokenizer()
    feeds = model_feeds([tokenizer.encode("sort keys json")], {"token_type_ids"})
    rewired, published = (s.run(None, feeds)[0] for s in sessions)
    assert np.array_equal(rewired, published)


def test_weights_are_read_from_the_models_folder_from_onnxruntime_1_21():
    from deepread.stores.local_model import _reads_weights_from_a_folder

    assert not _reads_weights_from_a_folder("1.20.1")
    assert _reads_weights_from_a_folder("1.21.0")
    assert _reads_weights_from_a_folder("1.32.0")
    assert _reads_weights_from_a_folder("2.0.0")
