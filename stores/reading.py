"""The two reading primitives of DeepRead, exactly as Algorithm 1 states them.

* :func:`retrieve_windows` — rank paragraphs, take the top ``k`` hits, expand each hit by the
  scanning window ``(up, down)`` *inside its own section* (clipped to
  ``[0, n_para-1]``), concatenate in hit order and keep each coordinate's first
  occurrence (lines 7–22, Eq. 11–14).
* :func:`read_range` — clip ``[start, end]`` to ``[0, n_para-1]`` and return the
  contiguous paragraphs in order (lines 23–27, Eq. 15).

Coordinates are 0-based here (the paper counts from 1); ranges are inclusive.
"""

from __future__ import annotations

from collections.abc import Collection as Coords
from collections.abc import Sequence
from typing import cast

from deepread.records.documents import Hit, Paragraph
from deepread.records.errors import CoordinateError, UsageError
from deepread.records.reads import Retrieved, SectionRead
from deepread.stores.backend import RetrievalMode
from deepread.stores.collection import Collection
from deepread.stores.rerank import Reranker


def _n_para(collection: Collection, doc_id: int, sec_id: int) -> int:
    try:
        return collection.document(doc_id).section(sec_id).n_para
    except KeyError as exc:
        raise CoordinateError(str(exc.args[0])) from None


def _section_title(collection: Collection, doc_id: int, sec_id: int) -> str:
    sections = collection.document(doc_id).sections
    return sections[sec_id].title if 0 < sec_id < len(sections) else ""


def retrieve_windows(
    collection: Collection,
    query: str | Sequence[str],
    dense: list[float] | Sequence[list[float] | None] | None,
    *,
    k: int = 5,
    window: tuple[int, int] = (0, 0),
    doc_ids: Sequence[int] | None = None,
    mode: RetrievalMode = "hybrid",
    reranker: Reranker | None = None,
    candidates: int = 30,
    exclude: Coords[tuple[int, int, int]] = (),
) -> Retrieved:
    """Algorithm 1, lines 7–22.

    ``query`` may be a list (with one dense vector per query): each query ranks its own
    top ``k``; the lists are merged in rank order (every query's first hit, then every
    second hit, …), repeated coordinates kept once, then windowed and de-duplicated as
    for one query. With a ``reranker``, the first stage takes ``candidates`` hits and the
    reranker keeps ``k``.

    ``exclude``: coordinates that may not be hits (the paragraphs a reader has already
    been shown): the ranking goes on past them, so the hits are the best ``k`` of the
    rest — the next results page of the same query. Excluded paragraphs may still come
    back inside a hit's scanning window.
    """
    up, down = window
    if up < 0 or down < 0:
        raise UsageError(f"window sizes must be >= 0, got ({up}, {down})")
    if doc_ids is not None and len(doc_ids) == 0:
        raise UsageError("the document scope is empty; pass None to search all documents")
    for doc_id in doc_ids or ():
        try:
            collection.document(doc_id)  # unknown ids are an error, not an empty result
        except KeyError as exc:
            raise CoordinateError(str(exc.args[0])) from None
    queries = [query] if isinstance(query, str) else list(query)
    vectors: list[list[float] | None]
    if isinstance(query, str):  # one query, one vector (or None)
        vectors = [cast("list[float] | None", dense)]
    else:
        vectors = list(cast("Sequence[list[float] | None] | None", dense) or [None] * len(queries))
    per_query = []
    # Ranked past the excluded paragraphs: at most ``len(exclude)`` of the first hits
    # are dropped, so that many more are asked for, ranked (and reranked) as on the
    # first page so the order is that page's continued, then the excluded dropped.
    extra = len(exclude)
    for text, vector in zip(queries, vectors, strict=True):
        first = collection.rank(
            text, vector, (max(k, candidates) if reranker else k) + extra, mode, doc_ids
        )
        if reranker is not None:
            titles = [_section_title(collection, h.doc_id, h.sec_id) for h, _ in first]
            first = reranker.rerank(text, first, titles, k + extra)
        first = [(hit, para) for hit, para in first if para.coord not in exclude][:k]
        per_query.append(first)
    ranked: list[tuple[Hit, Paragraph]] = []
    taken: set[tuple[int, int, int]] = set()
    for rank in range(max((len(r) for r in per_query), default=0)):
        for result in per_query:
            if rank < len(result) and result[rank][1].coord not in taken:
                taken.add(result[rank][1].coord)
                ranked.append(result[rank])
    out = Retrieved(
        query=query if isinstance(query, str) else queries, hits=[hit for hit, _ in ranked]
    )
    seen: set[tuple[int, int, int]] = set()
    for hit, para in ranked:
        if up == 0 and down == 0:
            span = [para]  # the hit's own payload: no second lookup needed
        else:
            n_para = _n_para(collection, hit.doc_id, hit.sec_id)
            lo, hi = max(0, hit.para_idx - up), min(n_para - 1, hit.para_idx + down)
            span = collection.paragraphs(hit.doc_id, hit.sec_id, lo, hi)
        for p in span:
            if p.coord not in seen:
                seen.add(p.coord)
                out.paragraphs.append(p)
    return out


def read_range(
    collection: Collection, doc_id: int, sec_id: int, start: int, end: int
) -> SectionRead:
    """Algorithm 1, lines 23–27: the clipped, inclusive range, in order."""
    n_para = _n_para(collection, doc_id, sec_id)
    lo, hi = max(0, start), min(n_para - 1, end)
    return SectionRead(doc_id, sec_id, lo, hi, collection.paragraphs(doc_id, sec_id, lo, hi))
