"""A static table fitted to the model's vectors: the least-squares fit is right, and a text
the table cannot embed is said to be one (deepread/stores/taught_table.py)."""

from __future__ import annotations

import numpy as np
import pytest

from deepread.stores.embeddings import local_embeddings
from deepread.stores.taught_table import TaughtTable, teach, token_ids


def _bags(rng: np.random.Generator, count: int, vocabulary: int) -> list[np.ndarray]:
    return [rng.integers(0, vocabulary, rng.integers(3, 30)) for _ in range(count)]


def test_a_table_taught_on_mean_pooled_vectors_predicts_texts_it_never_saw() -> None:
    rng = np.random.default_rng(7)
    truth = rng.standard_normal((60, 8)).astype(np.float32)
    seen, unseen = _bags(rng, 600, 60), _bags(rng, 50, 60)
    table = teach(seen, np.stack([truth[ids].mean(0) for ids in seen]), 60, rounds=60)
    got = np.stack([table[ids].mean(0) for ids in unseen])
    want = np.stack([truth[ids].mean(0) for ids in unseen])
    cosine = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cosine.min() > 0.99


def test_a_token_no_text_held_gets_no_row() -> None:
    rng = np.random.default_rng(3)
    texts = [rng.integers(0, 10, 5) for _ in range(40)]
    table = teach(texts, rng.standard_normal((40, 4)).astype(np.float32), 20)
    assert not table[10:].any()
    assert table[:10].any(axis=1).all()


def test_teaching_from_a_text_of_no_token_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one token"):
        teach([np.array([1, 2]), np.array([], np.int64)], np.ones((2, 4), np.float32), 5)


def test_a_text_of_untaught_tokens_is_marked_for_the_model() -> None:
    tokenizer = local_embeddings().tokenizer()
    rows = np.zeros((tokenizer.get_vocab_size(), 384), np.float32)
    (walrus,) = token_ids(tokenizer, ["walrus"])
    rows[walrus] = 1.0
    vectors, ok = TaughtTable(rows, tokenizer).embed(["walrus", "penguin", ""])
    assert ok.tolist() == [True, False, False]
    assert np.linalg.norm(vectors[0]) == pytest.approx(1.0)
    assert not vectors[1:].any()
