"""A paragraph named on one line for people: its coordinates, page(s), document and section.

``ask`` and ``chat`` name each citation this way, ``search`` each hit:
``[4:3:30] p. 49  Title › Section`` — ``pp. 49–50`` for a paragraph that runs on to the
next page, no page for a source without pages. A document whose title another shares
is named by its title and file (``Title (x.pdf)``), not the note ``docs`` lists it with
(``(same title as doc 5; file: x.pdf)``), which on every line of a long list only
repeated itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def page_label(pages: Sequence[int]) -> str:
    """``p. 49``, ``pp. 49–50`` (first to last), or ``""`` without pages."""
    if not pages:
        return ""
    first, last = pages[0], pages[-1]
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def document_label(doc: Any) -> str:
    """The document's title, with its file where another document has the same title."""
    from deepread.corpus.library.cards import labelled_title

    return "?" if doc is None else labelled_title(doc)


def section_label(doc: Any, sec_id: int) -> str:
    """The section's title; the document's own title for its root section."""
    from deepread.corpus.library.cards import own_title

    if doc is None or not 0 <= sec_id < len(doc.sections):
        return ""
    title = doc.sections[sec_id].title
    return own_title(doc)[0] if title == doc.title else title


def cited_line(coord: Sequence[int], pages: Sequence[int], doc: Any) -> str:
    """``[doc:sec:para] p. N  Title › Section`` (``doc``: the Document, or None when the
    collection could not be read: ``?``)."""
    doc_id, sec_id, para_idx = coord
    page = page_label(pages)
    where = f"{document_label(doc)} › {section_label(doc, sec_id)}"
    return f"[{doc_id}:{sec_id}:{para_idx}] " + (f"{page}  {where}" if page else where)


def citation_pages(citation: dict[str, Any]) -> list[int]:
    """A citation's pages (``pages``, else its ``page``), as ``finalize`` placed it."""
    pages = citation.get("pages")
    if pages:
        return list(pages)
    return [citation["page"]] if citation.get("page") else []
