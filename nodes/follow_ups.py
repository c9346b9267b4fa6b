"""The names a follow-up may give anew, as a collection knows them: the documents'
companies (their identifying titles, registrants and file names) and the forms its kinds
of document are filed as (:meth:`deepread.profiles.Profiles.forms_named`).

:func:`slots_of` gives them to :func:`deepread.text.follow_ups.in_topic`, which writes
the question a follow-up such as "what about Boeing?" or "and in the 10-Q?" asks: the
topic's question with that name replaced. A company's name is a run of capitalised words
("CVS Health", "Johnson & Johnson") from the first to the last word written as a name
(:func:`~deepread.corpus.library.proper_names`: not a month, a period or a sentence's
common first word) that some document's card holds in its key (title, kind, period, file
name), when those words name documents as ``find_documents`` does (a few of them, not
most: "Inc" names none) — over the whole library, not only the
conversation's scope, so a follow-up naming a company outside it is read as naming it.

A conversation limited to some documents (``Context.documents``; chat's ``/docs 1 3``)
stays limited to them: the limit is the reader's (the tools refuse a document outside
it), and a follow-up does not lift it. A question naming a company none of those
documents is of, nor mentions, while the library holds its documents
(:func:`named_elsewhere`: "what about Boeing?" in a conversation limited to Corning's
10-K) is not answered from the documents in scope: the offline policy says in one line
that the limit leaves that company out and which documents of the library are its, so
the reader can ask again without the limit (``/docs all``), where ``find_documents``
finds them. (Without this, Corning's tax table was quoted for Boeing and checked as
supported.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

from deepread.corpus.library import proper_names
from deepread.profiles import PROFILES
from deepread.text.follow_ups import Slot, Span

#: A run of capitalised words, "&" between them allowed ("Johnson & Johnson").
_RUN = re.compile(r"[A-Z][\w.-]*(?:['’]s\b)?(?:\s+(?:&\s+)?[A-Z][\w.-]*(?:['’]s\b)?)*")
#: A word of a run, without a possessive "'s".
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*?(?=['’]s\b|[^A-Za-z0-9.-]|$)")


def _forms(text: str) -> list[Span]:
    return PROFILES.forms_named(text)


class Library(Protocol):
    """What the names are read from: a collection's cards and document search
    (:class:`deepread.Index`)."""

    def card_holds(self, word: str) -> tuple[bool, bool]: ...

    def find_documents(self, query: str, documents: Sequence[int] | None = None) -> list[Any]: ...

    def text_uses(self, word: str, documents: Sequence[int] | None = None) -> bool: ...


def company_names(index: Library) -> Slot:
    """The company names a text gives that the library's documents are named by."""

    @cache
    def in_key(word: str) -> bool:
        return index.card_holds(word)[1]

    @cache
    def names(name: str) -> bool:
        return bool(index.find_documents(name))

    def find(text: str) -> list[Span]:
        written = set(proper_names(text))
        forms = _forms(text)
        spans: list[Span] = []
        for run in _RUN.finditer(text):
            if any(run.start() < b and a < run.end() for a, b in forms):
                continue
            keyed = [
                (run.start() + w.start(), run.start() + w.end())
                for w in _WORD.finditer(run.group(0))
                if (low := w.group(0).lower().strip(".-")) in written and in_key(low)
            ]
            if keyed and names(text[keyed[0][0] : keyed[-1][1]]):
                spans.append((keyed[0][0], keyed[-1][1]))
        return spans

    return Slot(find, "for")


def slots_of(index: Library | None) -> tuple[Slot, ...]:
    """The names a follow-up may give anew in ``index``: forms, then companies (forms
    only without an index)."""
    forms = Slot(_forms, "in the")
    return (forms,) if index is None else (forms, company_names(index))


def named_elsewhere(index: Library, question: str, scope: Sequence[int]) -> dict[str, list[int]]:
    """The companies ``question`` names whose documents are all outside ``scope`` (a
    conversation's limit) while no paragraph of the scope mentions them: each name, as
    written, with the library's documents it names ("Boeing" asked of a conversation
    limited to Corning's 10-K: Boeing's filings)."""
    out: dict[str, list[int]] = {}
    for start, end in company_names(index).find(question):
        name = question[start:end]
        docs = [m.doc_id for m in index.find_documents(name)]
        if not docs or set(docs) & set(scope):
            continue
        if all(index.text_uses(word, scope) for word in re.findall(r"[A-Za-z0-9]+", name)):
            continue
        out[name] = docs
    return out
