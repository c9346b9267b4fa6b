"""A document as every JSON output lists it: the same keys from ``deepread ingest``,
``deepread docs``, the chat's ``/docs`` and the ingest graph, each adding its own
(a card, whether the chat reads it, whether it was unchanged)."""

from __future__ import annotations

from typing import Any

from deepread.records.documents import Document


def document_summary(doc: Document, source: str | None = None) -> dict[str, Any]:
    """``doc_id``, ``title``, ``source`` (``source``: the file as the caller names it,
    e.g. a document sent as content under the name the client gave it), and the counts
    of its ``sections``, ``paragraphs`` and ``tokens``."""
    return {
        "doc_id": doc.doc_id,
        "title": doc.title,
        "source": doc.source if source is None else source,
        "sections": len(doc.sections),
        "paragraphs": doc.n_para,
        "tokens": doc.n_tok,
    }
