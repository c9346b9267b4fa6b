"""Benchmark scoring: evidence as FinanceBench and SyllabusQA define it, on what was shown.

The definitions are the ones the benchmarks' held-out judge uses:

- *shown*: the paragraphs in the run's read-region memory — retrieve hits, read_section
  ranges and the sufficiency check's extra read alike — in reading order;
- *gold page shown*: a shown paragraph of the evidence's document on the evidence's page
  (FinanceBench's ``evidence_page_num + 1``; ``Paragraph.page`` counts from 1);
- *read*: at least half of the passage's squashed 24-character shingles occur in the
  shown text (:mod:`deepread.evaluation.shingles`);
- *spend*: the characters of the tool results shown to the model ÷ 4 — what the agent
  paid, frames and coordinates included, so a flat baseline given the same spend never
  gets less than the agent had;
- *abstained*: the run ended with ``stop_reason == "no_evidence"``;
- *own document read*: something of the question's own document was shown — what a
  question asked of a whole library (``deepread eval --library``) must achieve first;
  by construction when the run is scoped to that document and shows
  anything.

A question's evidence read and gold page shown are the shares of its evidence items
read and of their pages shown (1 or 0 for the many single-item questions).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deepread.corpus.index import Index
from deepread.evaluation.dataset import Question
from deepread.evaluation.evidence import DocResolver
from deepread.evaluation.shingles import is_read, shown_text
from deepread.records.documents import Paragraph

ABSTAINED = "no_evidence"


@dataclass(frozen=True, slots=True)
class Shown:
    """A piece of text shown: its document's source path, the text, its page(s)."""

    source: str
    text: str
    pages: frozenset[int]


def shown_paragraphs(index: Index, regions: dict[str, list[list[int]]]) -> list[Paragraph]:
    """The paragraphs of the read-region memory ``regions`` (one collection's view,
    ``nodes/state.py``), in reading order."""
    keys = sorted(
        (tuple(map(int, key.split(":"))), intervals) for key, intervals in regions.items()
    )
    out: list[Paragraph] = []
    for (doc_id, sec_id), intervals in keys:
        for start, end in intervals:
            out += index.read(doc_id, sec_id, start, end).paragraphs
    return out


def pieces(paragraphs: Iterable[Paragraph], resolver: DocResolver) -> list[Shown]:
    return [
        Shown(
            resolver.by_id.get(p.doc_id, ""),
            p.text,
            frozenset() if p.page is None else frozenset([p.page]),
        )
        for p in paragraphs
    ]


def _share(found: Sequence[bool]) -> float | None:
    return sum(found) / len(found) if found else None


def score(question: Question, shown: Sequence[Shown], resolver: DocResolver) -> dict[str, Any]:
    """Evidence read and gold pages shown for ``question`` given the ``shown`` pieces.

    An evidence item counts only what was shown of its own document (a name the
    collection does not hold: of every document).
    """
    by_source: dict[str, list[Shown]] = {}
    for piece in shown:
        by_source.setdefault(piece.source, []).append(piece)

    def of(doc: str) -> list[Shown]:
        allowed = resolver.resolve(doc)
        if allowed is None:
            return list(shown)
        return [p for s in sorted(allowed) for p in by_source.get(s, [])]

    texts: dict[str, str] = {}
    found, pages = [], []
    own = resolver.resolve(question.doc) if question.doc else None
    for item in question.evidence:
        mine = of(item.doc)
        if item.doc not in texts:
            texts[item.doc] = shown_text(p.text for p in mine)
        found.append(is_read(item.quote, texts[item.doc]))
        if item.page is not None:
            pages.append(any(item.page in p.pages for p in mine))
    return {
        "evidence_read": _share(found),
        "evidence_found": found,
        "gold_page_shown": _share(pages),
        "pages_found": pages,
        "own_document_read": None if own is None else any(p.source in own for p in shown),
    }


def abstention(question: Question, stop_reason: str | None) -> dict[str, Any]:
    return {"answerable": question.answerable, "abstained": stop_reason == ABSTAINED}
