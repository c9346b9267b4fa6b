"""Hybrid ranking made repeatable: reciprocal-rank fusion of the dense and BM25 lists, done
here rather than inside the engine.

Both engines can fuse in one request (a ``Prefetch`` per vector and an RRF query), but
they order equal scores *inside* each prefetched list arbitrarily — BM25 gives equal
scores to paragraphs of equal length sharing the query's terms, which is common in
tables, lists and templated text. A tie flipped in one list moves a paragraph by a rank,
changes its fused score, and can change which hit comes first: the ranking depended on
the engine's internals (segment layout; the embedded engine and a server could disagree
on the same data) — for a third of SyllabusQA's dev questions the top 10 did. So each
list is fetched on its own with a margin, ordered by (score, point id), cut, and fused
with the engines' own formula (``qdrant_client.hybrid.fusion``: ``w / (rank + w·(k − 1)
+ 1)`` for the 0-based rank, i.e. ``1 / (k + rank)`` at weight 1), ties again broken by
point id. Where no ties occur, the ranking is the one the engine's fusion gave.

"By point id" means by a paragraph's place: ``(doc_id, sec_id, para_idx)`` from its
payload, then the id itself. Paragraph ids used to be ``doc_id`` and the paragraph's
sequence number packed into an integer, whose order is that place; they are now UUIDs
unique to each write (:mod:`deepread.stores.schema`), whose order means nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from deepread.stores.backend import ScoredPayload

#: Reciprocal-rank fusion constant and the (dense, BM25) weights.
RRF_K = 60
RRF_WEIGHTS = (1.0, 1.0)
#: Extra points fetched past a cut so that ties straddling it are all seen.
TIE_MARGIN = 10


def _place(point: ScoredPayload) -> tuple:
    """Where a point stands among equals: its paragraph's coordinates, then its id."""
    payload = point.payload
    ident = (0, point.id, "") if isinstance(point.id, int) else (1, 0, str(point.id))
    return (payload.get("doc_id", 0), payload.get("sec_id", 0), payload.get("para_idx", 0), ident)


def ordered(points: Sequence[ScoredPayload], limit: int) -> list[ScoredPayload]:
    """The first ``limit`` points by score, equal scores (to 1e-9) by place (``_place``)."""
    return sorted(points, key=lambda p: (-round(p.score, 9), _place(p)))[:limit]


def fused(
    search: Callable[[str, int], list[ScoredPayload]], limit: int, candidates: int
) -> list[ScoredPayload]:
    """The RRF fusion of ``search("dense", n)`` and ``search("bm25", n)``: each list's
    first ``candidates`` in a repeatable order, then the best ``limit`` fused."""
    scores: dict[int | str, float] = {}
    payloads: dict[int | str, ScoredPayload] = {}
    for using, weight in zip(("dense", "bm25"), RRF_WEIGHTS, strict=True):
        for rank, point in enumerate(ordered(search(using, candidates + TIE_MARGIN), candidates)):
            scores[point.id] = scores.get(point.id, 0.0) + weight / (
                rank + 1.0 + weight * (RRF_K - 1.0)
            )
            payloads.setdefault(point.id, point)
    return ordered([ScoredPayload(i, s, payloads[i].payload) for i, s in scores.items()], limit)
