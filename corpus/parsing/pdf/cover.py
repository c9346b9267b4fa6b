"""A document's cover pages: the particulars a form prints large are not sections.

Some kinds of document open with a form — an SEC filing's cover names the Commission,
the form, the registrant and its file number, each line set in capitals or bold and
standing alone — and every cue of :mod:`~deepread.corpus.parsing.pdf.typography` and
:mod:`~deepread.corpus.parsing.pdf.standalone` then says "heading": a TOC would begin
with a dozen one-line sections no question is about. The kinds that have a cover say
how to find it and which one line of it stays a heading (the section holding the
cover's lines as its text): their profiles (:class:`deepread.profiles.profile.Cover`,
called through :data:`deepread.profiles.PROFILES`). Labels (an 8-K's "Item 5.07") and
an outline's entries are not touched; a document of no such kind has no cover.
"""

from __future__ import annotations

from collections.abc import Iterable

from deepread.corpus.parsing.pdf.labels import label_kind
from deepread.corpus.parsing.pdf.paragraphs import Para, norm
from deepread.profiles import PROFILES

__all__ = ["cover_heading", "cover_pages"]


def _page_texts(paras: list[Para]) -> dict[int, str]:
    """The first pages a cover is looked for in, each as its lines' normalised text."""
    read = PROFILES.cover_pages_read
    texts: dict[int, list[str]] = {}
    for p in paras:
        if p.page <= read:
            texts.setdefault(p.page, []).append(p.raw)
    return {page: norm(" ".join(parts)) for page, parts in texts.items()}


def cover_pages(paras: list[Para], heads: Iterable[int]) -> set[int]:
    """The pages of ``paras`` that are a cover (empty when it has none); ``heads``: the
    headings so far, a Part or an Item among them ending the cover."""
    texts = _page_texts(paras)
    if not texts:
        return set()
    labelled = {paras[i].page for i in heads if label_kind(norm(paras[i].raw)) in ("part", "item")}
    return PROFILES.cover_pages(texts, labelled)


def cover_heading(line: str) -> bool:
    """Whether ``line`` (:func:`~deepread.corpus.parsing.pdf.paragraphs.norm`) is the
    one line of a cover kept as a heading ("FORM 10-Q")."""
    return PROFILES.cover_heading(line)
