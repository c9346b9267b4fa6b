"""A library, not a document: titles that identify documents, and finding the ones a
question is about.

:class:`Library` keeps, for one collection read through ``deepread.Index``, each
document's card (:mod:`~deepread.corpus.library.titles`: its identifying title, file
name, kind, period, pages, top-level sections, made from the front matter ingest kept,
:mod:`~deepread.corpus.library.front`) and the document search over the cards
(:mod:`~deepread.corpus.library.search`). Both follow the collection as documents come
and go, document by document: the cards made again only for the documents a change
reaches (:mod:`~deepread.corpus.library.cards`), when the collection is read; the search
index for the documents written, when a question that names a company, period or form
is first matched against them — a process that only lists or reads documents
(``deepread docs``, ``toc``, ``read``), or searches for words naming none, never
builds it (on 157 filings, 0.6 s of ``Index.documents()``'s 1.0).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from deepread.corpus.library.cards import Cards
from deepread.corpus.library.search import DocumentSearch, Match, asked_words, proper_names
from deepread.records.documents import Card, Document

__all__ = ["Library", "Match", "proper_names"]


class Library:
    """Cards and document search of one collection's documents (see module doc)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stored: list[Document] = []  # the records the cards were made from
        self._titled: dict[int, Document] = {}
        self._cards = Cards()
        self._search = DocumentSearch()
        self._searched: list[Document] | None = None  # the records the search index is of

    def _refresh(self, stored: Sequence[Document]) -> None:
        # The store replaces a document's record whenever it writes it (a new version, a
        # move, a forced re-ingest): the same records, by identity, are the same library.
        # Holding them keeps their identities from being reused.
        if len(stored) == len(self._stored) and all(
            a is b for a, b in zip(stored, self._stored, strict=True)
        ):
            return
        made = self._cards.update(stored)
        before, old = {d.doc_id: d for d in self._stored}, self._titled
        # A document whose record and card are the ones it had keeps its titled object.
        self._titled = {
            d.doc_id: was
            if before.get(d.doc_id) is d
            and (was := old.get(d.doc_id)) is not None
            and was.card == made[d.doc_id]
            else titled(d, made[d.doc_id])
            for d in stored
        }
        self._stored = list(stored)

    def _searchable(self, stored: Sequence[Document]) -> DocumentSearch:
        """The document search over ``stored``'s cards, brought up to date."""
        self._refresh(stored)
        if self._searched is not self._stored:
            self._search.update(self._titled.values())
            self._searched = self._stored
        return self._search

    def documents(self, stored: Sequence[Document]) -> list[Document]:
        """``stored`` (as the store holds them) with their identifying titles and cards
        (made once per set of documents; the same objects until it changes)."""
        with self._lock:
            self._refresh(stored)
            return list(self._titled.values())

    def document(self, stored: Sequence[Document], doc_id: int) -> Document:
        """One document of ``stored`` with its identifying title and card."""
        with self._lock:
            self._refresh(stored)
            return self._titled[doc_id]

    def find(
        self, stored: Sequence[Document], question: str, scope: Sequence[int] | None = None
    ) -> list[Match]:
        """The documents of ``scope`` (default all) that ``question`` names, best first."""
        if not any(asked_words(question)):
            # It names no one and no period: no document to find, and no index to build
            # for it (most of a one-shot ``deepread search``'s own work on a small store).
            return []
        with self._lock:
            return self._searchable(stored).search(question, scope)

    def holds(self, stored: Sequence[Document], word: str) -> tuple[bool, bool]:
        """Whether some document's card holds ``word``: anywhere, and in its key."""
        with self._lock:
            search = self._searchable(stored)
            return search.holds(word), search.in_key(word)


def titled(doc: Document, card: Card) -> Document:
    """``doc`` under its identifying title (its root section's too) with its card."""
    sections = list(doc.sections)
    if sections and sections[0].title != card.title:
        sections[0] = replace(sections[0], title=card.title, children=list(sections[0].children))
    return replace(doc, title=card.title, sections=sections, card=card)
