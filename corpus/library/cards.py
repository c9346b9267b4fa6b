"""The cards of a collection's documents, kept across its changes.

A document's card (:func:`~deepread.corpus.library.titles.card_of`) depends on the
other documents only through the banners (:class:`~deepread.corpus.library.titles.
Banners`): how many documents print each of its lines, captions and word pairs — and
only up to the counts that decide, 2 ("printed elsewhere") and ``min(BANNER_FLOOR, N)``
("a banner"; the floor is 3). :class:`Cards` keeps each document's printed lines and the
counts; a change (documents stored, rewritten, removed) updates the counts by the
documents that came and went, and makes again only the cards of new documents and of
those printing a line or word pair whose count moved below or up to the floor. A write
to a library of a thousand filings remade every card (0.8 s); now it makes the new
document's and the few whose banners it changed. :func:`cards` makes every card at once.

Titles still the same after that (a 10-K and its re-filing, two copies, an impostor) are
flagged with the documents that share them and their file names (:func:`distinct`): a
collection-wide step, cheap on made cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from deepread.corpus.library.titles import (
    BANNER_FLOOR,
    Banners,
    captions,
    card_of,
    norm,
    printed,
)
from deepread.records.documents import Card, Document
from deepread.text.invisible import visible


def cards(documents: Sequence[Document]) -> dict[int, Card]:
    """The cards of a collection's documents, each title telling its document apart."""
    return Cards().update(documents)


def same_title(title: str) -> str:
    """A title as a reader compares it: invisible characters and compatibility forms
    (fullwidth letters) do not tell two titles apart, nor do case and punctuation."""
    return norm(visible(title))


def distinct(made: dict[int, Card]) -> dict[int, Card]:
    """``made`` with the titles documents share flagged: ``Title (same title as doc 3;
    file: x.pdf)``.

    A re-filing and a copy share a title, and so does an impostor — a filing whose first
    page claims another company's name, form and year. Which one is genuine cannot be
    told from the documents; each is marked with the others that claim its title and
    its own file name, wherever it is listed (``deepread docs``, the TOC, the document
    search), so that neither passes for the only one.
    """
    sharing: dict[str, list[int]] = {}
    for doc_id, card in sorted(made.items()):
        sharing.setdefault(same_title(card.title), []).append(doc_id)
    out: dict[int, Card] = {}
    for doc_id, card in made.items():
        others = [d for d in sharing[same_title(card.title)] if d != doc_id]
        if not others:
            out[doc_id] = card
            continue
        which = f"doc {others[0]}" if len(others) == 1 else "docs " + ", ".join(map(str, others))
        out[doc_id] = replace(card, title=f"{card.title}{_FLAG} {which}; file: {card.file})")
    return out


_FLAG = " (same title as"


def own_title(doc: Document) -> tuple[str, bool]:
    """``doc``'s title without the flag :func:`distinct` gave it, and whether it had one
    (another document shares the title): where a line names the file anyway, or a
    record carries it beside the title, the flag only repeats it."""
    title, card = doc.title, doc.card
    if card is None or not title.endswith(f"; file: {card.file})") or _FLAG not in title:
        return title, False
    return title[: title.rindex(_FLAG)], True


def labelled_title(doc: Document) -> str:
    """``doc``'s title, with its file where another document has the same title
    (``Title (x.pdf)``): what a line naming it for a person shows."""
    title, shared = own_title(doc)
    return f"{title} ({doc.card.file})" if shared and doc.card else title


@dataclass(slots=True)
class _Kept:
    """One document as its card was last made: the record it was made from (held, so
    its identity is not reused) and what it prints."""

    doc: Document
    lines: frozenset[str]
    grams: frozenset[str]
    looked_up: frozenset[str]  # its lines and captions, whose counts its card reads
    card: Card | None = None


class Cards:
    """Cards of one collection, made again only where its changes reach (module doc).
    Not thread-safe: :class:`~deepread.corpus.library.Library` calls it under its lock."""

    def __init__(self) -> None:
        self._banners = Banners(0, Counter(), Counter())
        self._kept: dict[int, _Kept] = {}

    def update(self, documents: Sequence[Document]) -> dict[int, Card]:
        """The cards of ``documents`` (the collection as it is now), by doc_id. A
        document is the same while its record is the same object (the store keeps a
        record's object while its committed version stands)."""
        banners = self._banners
        was = min(banners.documents, BANNER_FLOOR)
        # The lines and word pairs whose counts moved below or up to the banner floor,
        # the most a card reads of them: only the cards of documents printing one can
        # change.
        moved_lines: set[str] = set()
        moved_grams: set[str] = set()
        now = {d.doc_id: d for d in documents}
        for doc_id, kept in list(self._kept.items()):
            if now.get(doc_id) is not kept.doc:  # removed, or written again
                banners.remove(kept.lines, kept.grams)
                moved_lines.update(k for k in kept.lines if banners.lines[k] < BANNER_FLOOR)
                moved_grams.update(g for g in kept.grams if banners.grams[g] < BANNER_FLOOR)
                del self._kept[doc_id]
        for doc in documents:
            if doc.doc_id not in self._kept:
                lines, grams = printed(doc)
                moved_lines.update(k for k in lines if banners.lines[k] < BANNER_FLOOR)
                moved_grams.update(g for g in grams if banners.grams[g] < BANNER_FLOOR)
                banners.add(lines, grams)
                self._kept[doc.doc_id] = _Kept(doc, lines, grams, lines | captions(doc))
        everyone = min(banners.documents, BANNER_FLOOR) != was  # the floor itself moved
        made: dict[int, Card] = {}
        for doc_id, kept in self._kept.items():
            if (
                kept.card is None
                or everyone
                or not kept.looked_up.isdisjoint(moved_lines)
                or not kept.grams.isdisjoint(moved_grams)
            ):
                kept.card = card_of(kept.doc, banners)
            made[doc_id] = kept.card
        return distinct(made)
