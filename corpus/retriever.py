"""``Index.as_retriever()``: a deepread collection as a LangChain ``BaseRetriever``.

So that any LangChain chain or agent that takes a retriever (RAG chains, ensemble
retrievers, ``create_retriever_tool``) can search a deepread collection. It runs the same
Algorithm-1 retrieve as the agent — hybrid search, reranking, each hit widened by
``window`` inside its own section, de-duplicated in order — and returns ``k`` Documents,
one per hit: the hit's paragraph with its window's neighbours as one passage (as a
chain expects ``k`` chunks, not ``k`` times the window). Each carries the hit's
coordinates and its passage's range, so an answer built from it can still cite
``[doc_id:sec_id:para_idx]`` and be re-read with ``read_section``.

Only ``langchain_core`` is needed here, never LangGraph: the corpus layer stays usable
without the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from deepread.records.documents import Document, Paragraph


def checked_window(value: Any) -> tuple[int, int]:
    """``value`` as ``(up, down)``, two whole numbers >= 0; else a ``ValueError``."""
    window = tuple(value) if isinstance(value, (list, tuple)) else ()
    if len(window) != 2 or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in window
    ):
        raise ValueError(f"window must be (up, down) with both >= 0, got {value!r}")
    return (window[0], window[1])


class DeepReadRetriever(BaseRetriever):
    """A deepread collection's hits as LangChain Documents, best first: ``k`` of them,
    each the hit's paragraph with its ``window`` of neighbours (a neighbour already in
    an earlier hit's passage is not repeated; a hit always is its own passage's).

    Metadata of each Document: ``doc_id``, ``sec_id``, ``para_idx`` (the hit: the
    citation), ``paragraphs`` (``[first, last]`` para_idx of the passage, inclusive: the
    ``read_section`` range that reads it again), ``page`` (the hit's, PDFs; else None),
    ``pages`` (every page the passage is printed on, in order; ``[]`` without pages),
    ``source`` (the file), ``title`` (the document's), ``section`` (the section's title),
    ``kind`` (the hit's: "text", "table", "figure", "code"…), ``score`` (the hit's),
    and where the passage is in its source: ``boxes`` (a PDF's ``[page, x0, top, x1,
    bottom]`` rectangles of all its paragraphs) or ``span`` (``[start, end]`` in the
    source's text), ``None`` where the store kept no places.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: Any = Field(description="The deepread.Index to search.")
    k: int = Field(default=5, ge=1, description="Ranked hits per query.")
    window: tuple[int, int] = Field(
        default=(0, 0),
        description="Paragraphs (up, down) added around each hit, inside its section.",
    )
    documents: list[int] | None = Field(default=None, description="doc_ids to search; None: all.")

    @field_validator("window")
    @classmethod
    def _window(cls, value: tuple[int, int]) -> tuple[int, int]:
        return checked_window(value)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        window: tuple[int, int] | None = None,
        documents: list[int] | None = None,
    ) -> list[LCDocument]:
        """The paragraphs of ``query``'s hits. ``k``, ``window`` and ``documents`` given
        to one call (``retriever.invoke(query, k=1)``, as LangChain's standard retriever
        tests call it) apply to that call only; the retriever's own otherwise."""
        if window is not None:
            window = checked_window(window)  # a bad one refused as at construction
        result = self.index.search(
            query,
            k=self.k if k is None else k,  # Index.search refuses k < 1 or not a whole number
            window=self.window if window is None else window,
            doc_id=self.documents if documents is None else documents,
        )
        shown = {p.coord: p for p in result.paragraphs}
        docs = {d.doc_id: d for d in self.index.documents()}
        up, down = self.window if window is None else window
        out: list[LCDocument] = []
        taken: set[tuple[int, int, int]] = set()
        for hit in result.hits:
            passage = [
                shown[c]
                for i in range(hit.para_idx - up, hit.para_idx + down + 1)
                if (c := (hit.doc_id, hit.sec_id, i)) in shown
                and (c not in taken or c == hit.coord)  # (a hit is always its own passage's)
            ]
            taken.update(p.coord for p in passage)
            if hit.coord in shown:
                out.append(to_document(shown[hit.coord], passage, docs.get(hit.doc_id), hit.score))
        return out


def to_document(
    hit: Paragraph,
    passage: list[Paragraph],
    document: Document | None,
    score: float,
) -> LCDocument:
    """A hit and its passage as a LangChain Document with its coordinates in the
    metadata."""
    sections = document.sections if document else []
    section = sections[hit.sec_id].title if hit.sec_id < len(sections) else ""
    metadata: dict[str, Any] = {
        "doc_id": hit.doc_id,
        "sec_id": hit.sec_id,
        "para_idx": hit.para_idx,
        "paragraphs": [passage[0].para_idx, passage[-1].para_idx],
        "page": hit.page,
        "pages": sorted({page for p in passage for page in p.pages}),
        "source": document.source if document else "",
        "title": document.title if document else "",
        "section": section,
        "kind": hit.kind,
        "score": score,
    }
    # where the passage is in its source (Paragraph.boxes, .span): every paragraph's
    # rectangles, or the character range from its first to its last; None when the
    # store was written before places were kept
    places = [p.to_dict() for p in passage]
    boxes = [b for place in places for b in (place["boxes"] or [])]
    spans = [place["span"] for place in places if place["span"] is not None]
    metadata["boxes"] = boxes if any(place["boxes"] is not None for place in places) else None
    metadata["span"] = [spans[0][0], spans[-1][1]] if spans else None
    return LCDocument(
        page_content="\n\n".join(p.text for p in passage),
        metadata=metadata,
        id=f"{hit.doc_id}:{hit.sec_id}:{hit.para_idx}",
    )
