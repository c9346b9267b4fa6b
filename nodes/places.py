"""Where each citation of the answer is in its source, for whoever shows it.

``finalize`` reports citations as coordinates; a person or a UI shown a citation needs
what it points at: the paragraph's page(s), its text, its document's title and file,
and for opening it as its page the paragraph's place (its rectangles on its pages, or
its character range: :attr:`deepread.records.documents.Paragraph.boxes` / ``span``).
The ``finalize`` node the graphs build (:func:`make_finalize`) reads the paragraphs
from the store once per cited section, and the collection's documents once, and adds
these to the citations (:class:`~deepread.nodes.state.Citation`), in the state — the
served thread's final state — and in the answer message's ``response_metadata``.
Reading them never fails a turn: a store that cannot be read leaves the citations as
coordinates.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.corpus.library.cards import own_title
from deepread.nodes.context import Context
from deepread.nodes.finalize import finalize
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState, Citation
from deepread.records.errors import StoreError
from deepread.text.markup import shown_text

#: Citations given their places per answer (an answer cites a few; the rest stay
#: coordinates) and the widest paragraph range read at once for one section.
MAX_PLACED = 100
_RANGE = 50


def places(index: Index, citations: list[Citation]) -> dict[tuple[int, int, int], Any]:
    """The paragraphs of ``citations`` (the first :data:`MAX_PLACED`), by coordinate."""
    wanted: dict[tuple[int, int], list[int]] = {}
    for c in citations[:MAX_PLACED]:
        wanted.setdefault((c["doc_id"], c["sec_id"]), []).append(c["para_idx"])
    found = {}
    for (doc_id, sec_id), paras in wanted.items():
        paras.sort()
        start: int | None = paras[0]
        while start is not None:
            end = max(p for p in paras if p <= start + _RANGE)
            for para in index.read_section(doc_id, sec_id, start, end):
                found[para.coord] = para
            start = next((p for p in paras if p > end), None)
    return found


def with_places(citations: list[Citation], index: Index) -> list[Citation]:
    """``citations`` with what the store knows of each cited paragraph: its ``page`` and
    ``pages``, its ``text`` (as a person reads it: a table as its rows), its document's
    ``title`` and ``source``, and its ``boxes`` and ``span``."""
    try:
        found = places(index, citations)
        documents = {d.doc_id: d for d in index.documents()}
    except (KeyError, ValueError, StoreError):
        return citations
    out: list[Citation] = []
    for c in citations:
        p = found.get((c["doc_id"], c["sec_id"], c["para_idx"]))
        if p is None:
            out.append(c)
            continue
        place = p.to_dict()
        pages = p.pages
        doc = documents.get(p.doc_id)
        out.append(
            {
                **c,
                "page": pages[0] if pages else None,
                "pages": pages,
                "text": shown_text(p.text, p.kind),
                "title": own_title(doc)[0] if doc is not None else "",
                "source": doc.source if doc is not None else "",
                "boxes": place["boxes"],
                "span": place["span"],
            }
        )
    return out


def make_finalize(resources: Resources) -> AgentNode:
    """The graphs' ``finalize`` node: :func:`~deepread.nodes.finalize.finalize`, its
    citations given their places."""

    @resources.leasing
    def finalize_placed(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        update = finalize(state, runtime)
        citations = update.get("citations") or []
        if not citations:
            return update
        try:
            index = resources.index(runtime.context or Context())
        except (KeyError, ValueError, StoreError):
            return update
        placed = with_places(citations, index)
        update["citations"] = placed
        for message in update.get("messages") or []:
            meta = message.response_metadata
            if "citations" in meta:
                meta["citations"] = [dict(c) for c in placed]
        return update

    return finalize_placed
