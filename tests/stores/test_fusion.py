"""Hybrid fusion (``deepread.stores.fusion``): the ranking depends on scores and point
ids only, never on the order an engine returned equal scores in."""

from __future__ import annotations

from deepread.stores.backend import ScoredPayload
from deepread.stores.fusion import RRF_K, fused


def _lists(dense_order: list[int], bm25_order: list[int]):
    dense = {1: 0.9, 2: 0.8, 3: 0.8, 4: 0.7}
    bm25 = {2: 5.0, 3: 5.0, 4: 5.0, 5: 1.0}  # three paragraphs tie on BM25

    def search(using: str, n: int) -> list[ScoredPayload]:
        scores, order = (dense, dense_order) if using == "dense" else (bm25, bm25_order)
        return [ScoredPayload(i, scores[i], {"i": i}) for i in order][:n]

    return search


def test_hybrid_ranking_does_not_depend_on_the_engine_order_of_ties():
    one = fused(_lists([1, 2, 3, 4], [2, 3, 4, 5]), limit=5, candidates=10)
    two = fused(_lists([1, 3, 2, 4], [4, 3, 2, 5]), limit=5, candidates=10)
    assert [p.id for p in one] == [p.id for p in two] == [2, 3, 4, 1, 5]


def test_fused_scores_are_reciprocal_ranks_summed_over_both_lists():
    got = {p.id: p.score for p in fused(_lists([1, 2, 3, 4], [2, 3, 4, 5]), 5, 10)}
    assert got[1] == 1 / RRF_K  # first in dense, absent from BM25
    assert got[2] == 1 / (RRF_K + 1) + 1 / RRF_K  # second in dense, first in BM25


def test_only_the_first_candidates_of_each_list_are_fused():
    got = fused(_lists([1, 2, 3, 4], [2, 3, 4, 5]), limit=5, candidates=1)
    assert [p.id for p in got] == [1, 2]
