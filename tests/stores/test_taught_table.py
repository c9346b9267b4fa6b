"""A static table fitted to the model's vectors: the least-squares fit is right, and a text
the table cannot embed is said to be one (deepread/stores/taught_table.py)."""

from __future__ import annotations

import numpy as np
import pytest

from deepread.stores import taught_table
from deepread.stores.embeddings import local_embeddings
from deepread.stores.taught_table import TaughtTable, teach, token_ids, weights


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


# -- what a table knows, and says it does not (issue 50 §1) ----------------------------------


def _table(texts: list[np.ndarray], rng: np.random.Generator) -> TaughtTable:
    """A table taught on ``texts`` (vectors random: what it knows is at stake here)."""
    vectors = rng.standard_normal((len(texts), 8)).astype(np.float32)
    return TaughtTable.learn(texts, vectors, local_embeddings().tokenizer())


def _sample(rng: np.random.Generator, count: int = 2_000) -> list[np.ndarray]:
    """Texts of tokens 1-3, four times each in every text (the sample's stop-words), and
    six of tokens 10-1999 (a few texts each)."""
    return [np.r_[[1, 2, 3] * 4, rng.integers(10, 2_000, 6)] for _ in range(count)]


def test_a_token_in_every_text_weighs_next_to_nothing_and_a_rare_one_about_one() -> None:
    weight, taught = weights(_sample(np.random.default_rng(1)), 3_000)

    assert weight[1:4].max() < 0.01
    assert np.median(weight[10:2_000]) > 0.8
    assert weight[2_000:].tolist() == [1.0] * 1_000  # never seen: as rare as can be
    assert taught[1:4].all() and not taught[2_000:].any()


def test_stop_words_cannot_carry_a_vector() -> None:
    rng = np.random.default_rng(2)
    table = _table(_sample(rng), rng)
    rare = np.flatnonzero(table.taught[10:2_000])[:3] + 10

    _, ok = table.embed_ids([np.array([1, 2, 3] * 40), np.r_[[1, 2, 3] * 4, rare]])

    assert ok.tolist() == [False, True]


def test_a_text_whose_taught_tokens_are_too_few_or_a_small_share_goes_to_the_model() -> None:
    rng = np.random.default_rng(3)
    table = _table(_sample(rng), rng)
    a, b, c = np.flatnonzero(table.taught[10:2_000])[:3] + 10
    never = [2_500, 2_501, 2_502, 2_503, 2_504]

    _, ok = table.embed_ids(
        [
            np.array([a]),  # one word: too few
            np.array([a, b, *never]),  # mostly words never taught
            np.array([a, b, c, never[0]]),  # mostly taught
        ]
    )

    assert ok.tolist() == [False, False, True]


def test_a_token_the_sample_holds_once_is_taught_and_one_it_never_holds_is_not() -> None:
    """A filing's one telling word, seen in one paragraph of the sample, keeps its row."""
    texts = [np.array([5, 6, 7]), np.array([5, 6, 8]), np.array([5, 6, 9]), np.array([9])]

    _, taught = weights(texts, 12)

    assert taught.nonzero()[0].tolist() == [5, 6, 7, 8, 9]  # 10 and 11: never held


def test_past_max_pairs_an_even_spread_of_the_texts_is_fitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(taught_table, "MAX_PAIRS", 1_000)
    texts = [np.arange(i % 50, i % 50 + 20) for i in range(200)]  # 20 pairs each: 4,000

    chosen = taught_table._within_budget(texts, np.ones(100, bool))

    assert 45 <= len(chosen) <= 50 and sum(20 for _ in chosen) <= 1_000
    assert chosen[0] < 5 and chosen[-1] > 190  # spread over all, not the first 50
