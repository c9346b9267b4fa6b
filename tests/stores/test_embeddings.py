"""Embedding backends: the offline local model, and any LangChain ``Embeddings``."""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

import deepread
from deepread.stores.embeddings import LocalEmbeddings, local_embeddings, resolve_embeddings
from deepread.stores.local_model import LocalModel, model_feeds


def test_local_vectors_are_unit_length_and_384_wide():
    vectors = local_embeddings().embed_array(["a short text", "another one, a bit longer"])
    assert vectors.shape == (2, LocalEmbeddings.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_or_in_a_padded_batch():
    texts = ["json", "Serialize obj as a JSON formatted stream to fp " * 20]
    batch = local_embeddings().embed_array(texts)
    alone = np.array(local_embeddings().embed_query(texts[0]))
    assert np.allclose(batch[0], alone, atol=1e-4)


def test_a_texts_vector_does_not_depend_on_the_texts_batched_with_it():
    # Ingest embeds whichever documents are parsed by then in one call; this is why
    # that grouping cannot change a stored vector.
    text = "The Ten class is a descriptor whose __get__() method always returns 10"
    model = local_embeddings()
    alone = model.embed_array([text])[0]
    others = ["x " * k for k in range(1, 40)] + ["JSON encoders and decoders " * 30]
    assert np.array_equal(model.embed_array([*others, text])[-1], alone)
    assert np.array_equal(model.embed_array([text, "short"])[0], alone)


def test_related_texts_are_closer_than_unrelated_ones():
    q = np.array(local_embeddings().embed_query("How do I encode Python objects as JSON?"))
    near, far = local_embeddings().embed_array(
        ["Serialize obj to a JSON formatted str.", "Bananas are rich in potassium."]
    )
    assert q @ near > q @ far + 0.2


def test_any_langchain_embeddings_can_back_a_collection(store, shapes_file):
    fake = DeterministicFakeEmbedding(size=16)
    idx = deepread.Index.open(store=store, collection="fake", embeddings=fake)
    idx.ingest([shapes_file])
    assert idx.retrieve("apples", k=2, mode="dense")
    idx.close()


def test_a_collection_refuses_queries_with_other_embeddings(store, shapes_file):
    idx = deepread.Index.open(
        store=store, collection="fake", embeddings=DeterministicFakeEmbedding(size=16)
    )
    idx.ingest([shapes_file])
    idx.close()
    with pytest.raises(deepread.StoreError, match="built with embeddings"):
        deepread.Index.open(store=store, collection="fake")


def test_embeddings_are_chosen_by_name():
    assert isinstance(resolve_embeddings("local"), LocalEmbeddings)
    assert isinstance(resolve_embeddings(), LocalEmbeddings)
    with pytest.raises(ValueError, match="unknown embeddings"):
        resolve_embeddings("word2vec")


def test_a_model_file_that_is_not_the_published_one_is_refused(tmp_path):
    from deepread.stores.embeddings import MODEL_SHA256, EmbeddingModelError, check_sha256

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(EmbeddingModelError, match=f"expected {MODEL_SHA256}"):
        check_sha256(fake, MODEL_SHA256)


def test_the_installed_model_file_matches_its_published_sha256():
    from deepread.stores.embeddings import MODEL_SHA256, _model_file, check_sha256

    assert check_sha256(_model_file(), MODEL_SHA256).name == "model.onnx"


def test_a_query_from_the_quick_session_gets_the_optimised_sessions_vector():
    # ``search`` builds its session without graph optimisation (one query, then the
    # process ends): the vector must be the one the stored collection was searched with.
    text = "How do I make json.dumps sort the keys of dictionaries?"
    optimised = np.array(LocalModel(threads=1).embed_query(text))
    quick = LocalModel(threads=1)
    quick.load_beside(optimised=False).join()
    assert np.allclose(np.array(quick.embed_query(text)), optimised, atol=1e-5)


def test_documents_embedded_after_a_quick_load_use_the_optimised_session():
    model = LocalModel(threads=1)
    model.load_beside(optimised=False).join()
    assert model.optimised is False
    model.embed_array(["a paragraph of a document"])
    assert model.optimised is True


def test_a_query_keeps_whichever_session_is_loaded():
    model = LocalModel(threads=1)
    assert model.optimised is None
    model.embed_query("json")
    assert model.optimised is True


def _published_quick_session() -> object:
    """The published model file run as it is, without graph optimisation."""
    from deepread.environment.quiet_import import import_onnxruntime
    from deepread.stores.local_model import _model_file

    ort = import_onnxruntime()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    return ort.InferenceSession(
        str(_model_file()), sess_options=options, providers=["CPUExecutionProvider"]
    )


def test_the_quick_session_gives_the_published_graphs_numbers_to_the_bit():
    # The quick session runs a rewritten graph (the word-embedding rows gathered before
    # they are dequantised, the weights read from the model file where they are): a
    # query, and a padded batch, must come out exactly as from the published graph.
    quick = LocalModel(threads=1)
    quick.load_beside(optimised=False).join()
    texts = ["sort keys json", "How do I make json.dumps sort the keys?", "x " * 300]
    encodings = [quick.tokenizer().encode(t) for t in texts]
    _, session, inputs = quick._model(False)
    published = _published_quick_session()
    batch, one = model_feeds(encodings, inputs), model_feeds(encodings[:1], inputs)
    assert np.array_equal(session.run(None, batch)[0], published.run(None, batch)[0])
    assert np.array_equal(session.run(None, one)[0], published.run(None, one)[0])
