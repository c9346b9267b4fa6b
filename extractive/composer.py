"""The offline policy's answer: the passages it quotes from what the turn was shown.

It quotes the first search's best hit, the shown paragraph closest to the question in
meaning and those sharing most of its words, best first, each cited — three passages,
and up to six while the next one starts at a paragraph sharing at least half as many of
the question's words as the paragraph sharing most (an answer said in several places, a
question asking several things, shows each place). Each quoted paragraph is one line,
its own citation-like markers escaped, so a document can plant neither a quote nor a
citation in the answer; a long paragraph is quoted from its sentence holding the
question's words; a short one with the shown paragraphs that follow it, within the
quote's length, and a lead-in ending with a colon with the paragraphs it announces
(:mod:`deepread.extractive.passages`). What a kind of document puts first goes first —
in a filing, the paragraphs stating figures of the year the question names, then the
tables with a row named for the quantity it asks (the profiles' ``quote_order``,
:mod:`deepread.profiles`). Quotes of several documents say which document each comes
from. Every answer says plainly that no LLM was used (:data:`NOTICE`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from deepread.corpus.framing import escape, title_text
from deepread.corpus.vectors import local_vectors
from deepread.extractive.passages import ITEM_CHARS, passages
from deepread.nodes.tools.observation import Observation
from deepread.profiles import PROFILES
from deepread.text.clip import clip
from deepread.text.markup import plain
from deepread.text.questions import asked
from deepread.text.terms import terms

NOTICE = (
    "No LLM was used (extractive mode): the passages below are quoted verbatim from "
    "the documents as the best matches for the question."
)

#: A paragraph's coordinates, ``(doc_id, sec_id, para_idx)``.
Coord = tuple[int, int, int]


def _untitled(doc_id: int) -> str:
    return ""


@dataclass(frozen=True)
class Composer:
    """The answer quoting what a turn was shown (see the module docstring)."""

    quotes: int = 3  # passages every answer quotes (as many as are worth quoting)
    quote_chars: int = 700
    #: Passages past ``quotes``, up to ``most_quotes`` in all, each starting at a
    #: paragraph that shares at least ``tied_share`` of the most question words any
    #: shown paragraph shares (and two): an answer said in several places (rules,
    #: differences, options, a question in three parts) shows each of them.
    most_quotes: int = 6
    tied_share: float = 0.5
    #: The identifying title of a document ("" when unknown), named before its quotes
    #: when the answer quotes several documents.
    title: Callable[[int], str] = _untitled

    def answer(self, question: str, shown: Sequence[Observation]) -> str:
        """The answer to ``question`` from the turn's observations ``shown``: every
        paragraph shown, in the order shown, the first search's best hit first."""
        texts: dict[Coord, str] = {}
        top: Coord | None = None
        for seen in shown:
            if top is None and seen.hits:
                top = seen.hits[0].coord  # the first search's best match
            for row in seen.paragraphs:
                texts.setdefault(row.coord, row.text)
        if not texts:
            return f"{NOTICE}\n\nThe documents returned nothing for this question."
        return self.compose(question, texts, top)

    def compose(self, question: str, texts: dict[Coord, str], top: Coord | None = None) -> str:
        """The answer quoting the best of ``texts`` (every paragraph shown this turn, in
        the order shown) for ``question``; ``top``: the first search's best hit."""
        wanted = terms(asked(question))
        shared = words_shared(wanted, texts)
        ranked = [coord for coord, _ in rank_paragraphs(question, texts, top, shared)]
        # what ties a paragraph to the question for a passage past the third: as many
        # of its words as the best-tied paragraph shares, or half (never fewer than two)
        floor = max(2, math.ceil(self.tied_share * max(shared.values(), default=0)))
        chosen = passages(
            ranked,
            texts,
            self.quotes,
            self.quote_chars,
            most=self.most_quotes,
            tied=lambda coord: shared[coord] >= floor,
        )
        # Best first (a person reads the first quote); quotes of one document kept
        # together, documents in the order of their best quote.
        ranks: dict[int, int] = {}  # document -> the rank of its best quote
        for i, passage in enumerate(chosen):
            ranks.setdefault(passage[0][0][0], i)
        chosen.sort(key=lambda passage: ranks[passage[0][0][0]])
        parts = [NOTICE, ""]
        several = len(ranks) > 1
        for i, passage in enumerate(chosen):
            doc = passage[0][0][0]
            if several and (i == 0 or chosen[i - 1][0][0][0] != doc):
                # Quotes of several documents: say which each comes from, never blend.
                title = title_text(self.title(doc))
                parts.append(f"From document {doc}" + (f", {title}:" if title else ":"))
            # A passage's paragraphs on lines of their own, each with its citation.
            for coord, item in passage:
                shown = quote(texts[coord], ITEM_CHARS if item else self.quote_chars, wanted)
                parts.append(f"> {shown} [{coord[0]}:{coord[1]}:{coord[2]}]")
            parts.append("")
        return "\n".join(parts).rstrip()


def unheld_answer(names: Sequence[str]) -> str:
    """The answer to a question about something no document of the library holds."""
    return (
        f"{NOTICE}\n\nNo document of the library mentions {', '.join(names)}: the "
        "library cannot answer this question."
    )


def words_shared(wanted: set[str], texts: dict[Coord, str]) -> dict[Coord, int]:
    """How many of the question's words (``wanted``, its :func:`terms`) each of ``texts``
    holds."""
    return {coord: len(wanted & terms(text)) for coord, text in texts.items()}


def rank_paragraphs(
    question: str,
    texts: dict[Coord, str],
    top: Coord | None = None,
    shared: dict[Coord, int] | None = None,
) -> list[tuple[Coord, str]]:
    """The paragraphs of ``texts`` worth quoting for ``question``, best first: ``top``
    (the search's best hit for the question, when shown: it was ranked with more than
    its words, BM25 and the dense vector of the paragraph under its section's
    headings), the one closest in meaning (local MiniLM, as the sufficiency check
    measures support), then those sharing most of its words — a paraphrase of the
    question ("Class meets Mon/Wed" for "What days is the class held?") shares few of
    its words but is often the answer. Then what the profiles put first goes first
    (:meth:`~deepread.profiles.profile.Profiles.quote_order`: in a filing, the year's
    figures, then a row named for the quantity), each group in the order above (a
    stable sort). A paragraph sharing none of the question's words and standing for
    nothing a profile puts first is no quote unless it is the closest in meaning.
    ``shared``: :func:`words_shared` of the question's words, when the caller has it
    already."""
    own = asked(question)
    wanted = terms(own)
    order = PROFILES.quote_order(own)
    standing = {coord: order(text) for coord, text in texts.items()}  # False first
    if shared is None:
        shared = words_shared(wanted, texts)
    ranked = sorted(
        (kv for kv in texts.items() if shared[kv[0]] or not all(standing[kv[0]])),
        key=lambda kv: -shared[kv[0]],
    )
    ranked.insert(0, _closest(own, texts))
    if top in texts:
        ranked.insert(0, (top, texts[top]))
    return sorted(ranked, key=lambda kv: standing[kv[0]])


def quote(text: str, limit: int, wanted: Collection[str] = ()) -> str:
    """A paragraph as the answer quotes it: its plain text on one line (a line of its own
    cannot pose as another quote), cut to ``limit`` characters at a word, its citation-
    like markers escaped — a paragraph holding "[2:1:0]" cites nothing (corpus/framing).
    A paragraph longer than ``limit`` is quoted from the sentence sharing most of the
    ``wanted`` words (the question's) when that is not its first: the part that answers
    is what is shown, not the opening that happens to fit."""
    flat = " ".join(plain(text).split())
    if len(flat) <= limit:
        return escape(flat)
    start = _best_sentence(flat, wanted, limit)
    return escape(("… " if start else "") + clip(flat[start:], limit))


#: Where a sentence may start: after ". ", "? ", "! ", "; " or ": ".
_SENTENCE = re.compile(r"(?<=[.?!;:])\s+(?=\S)")


def _best_sentence(flat: str, wanted: Collection[str], limit: int) -> int:
    """Where in ``flat`` the quote starts: at the sentence holding most ``wanted`` words
    (the earliest of equals), unless the opening ``limit`` characters already show it
    whole, or no sentence holds any."""
    if not wanted:
        return 0
    wanted = set(wanted)
    starts = [0, *(m.end() for m in _SENTENCE.finditer(flat))]
    ends = [*starts[1:], len(flat)]
    scores = [len(wanted & terms(flat[a:b])) for a, b in zip(starts, ends, strict=True)]
    best = max(range(len(starts)), key=lambda i: (scores[i], -i))
    if scores[best] == 0 or ends[best] <= limit:
        return 0
    return starts[best]


def _closest(query: str, texts: dict[Coord, str]) -> tuple[Coord, str]:
    """The item of ``texts`` whose paragraph (markup removed) is most similar to
    ``query`` by the local MiniLM model."""
    items = list(texts.items())
    bare = [plain(text) or "." for _, text in items]
    vectors = local_vectors([query, *bare])  # L2-normalised
    return items[int(np.argmax(vectors[1:] @ vectors[0]))]
