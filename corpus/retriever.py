"""``Index.as_retriever()``: a deepread collection as a LangChain ``BaseRetriever``.

So that any LangChain chain or agent that takes a retriever (RAG chains, ensemble
retrievers, ``create_retriever_tool``) can search a deepread collection. It runs the same
Algorithm-1 retrieve as the agent — hybrid search, reranking, each hit widened by
``window`` inside its own section, de-duplicated in order — and each ``Document`` carries
the paragraph's coordinates, so an answer built from it can still cite
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
    """Paragraphs of a deepread collection as LangChain Documents, in Algorithm-1 order.

    Metadata of each Document: ``doc_id``, ``sec_id``, ``para_idx`` (the citation),
    ``page`` (PDFs; else None), ``source`` (the file), ``title`` (the document's),
    ``section`` (the section's title), ``kind`` ("text", "table", "figure", "code"…),
    ``hit`` (a ranked hit, not a window neighbour) and ``score`` (hits only).
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
        scores = {(h.doc_id, h.sec_id, h.para_idx): h.score for h in result.hits}
        docs = {d.doc_id: d for d in self.index.documents()}
        return [to_document(p, docs.get(p.doc_id), scores.get(p.coord)) for p in result.paragraphs]


def to_document(
    paragraph: Paragraph, document: Document | None, score: float | None = None
) -> LCDocument:
    """One paragraph as a LangChain Document with its coordinates in the metadata."""
    sections = document.sections if document else []
    section = sections[paragraph.sec_id].title if paragraph.sec_id < len(sections) else ""
    metadata: dict[str, Any] = {
        "doc_id": paragraph.doc_id,
        "sec_id": paragraph.sec_id,
        "para_idx": paragraph.para_idx,
        "page": paragraph.page,
        "source": document.source if document else "",
        "title": document.title if document else "",
        "section": section,
        "kind": paragraph.kind,
        "hit": score is not None,
    }
    # where it is in its source (Paragraph.boxes, .span): JSON lists, None when stored
    # before places were kept
    place = paragraph.to_dict()
    metadata["boxes"], metadata["span"] = place["boxes"], place["span"]
    if score is not None:
        metadata["score"] = score
    return LCDocument(
        page_content=paragraph.text,
        metadata=metadata,
        id=f"{paragraph.doc_id}:{paragraph.sec_id}:{paragraph.para_idx}",
    )
