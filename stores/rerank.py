"""Second-stage rerankers: first-stage candidates (N) in, the best k out.

The interface is one method, so a cross-encoder or a hosted rerank API plugs in the same
way. The offline implementation here needs no model: it rescores candidates by how many
of the query's distinct content words they contain (with their section title), blended
with their first-stage rank. It targets the failure the first stage has most on the
devset: a paragraph that holds every term of a precise question ranked below looser
semantic neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from deepread.records.documents import Hit, Paragraph
from deepread.records.errors import UsageError
from deepread.text.dates import date_terms
from deepread.text.markup import untagged
from deepread.text.terms import content_words

Candidate = tuple[Hit, Paragraph]


class Reranker(Protocol):
    """Reorders first-stage candidates and keeps ``k``."""

    def rerank(
        self, query: str, candidates: Sequence[Candidate], section_titles: Sequence[str], k: int
    ) -> list[Candidate]: ...


class CoverageReranker:
    """Query-term coverage blended with first-stage rank; offline and model-free.

    ``score = coverage + rank_weight / (1 + first_stage_rank)`` where ``coverage`` is the
    share of the query's content words found in the paragraph or its section title (a
    date, a range of dates or a month named counting as one word, :func:`_words`). When
    the query names days or months, candidates holding more of them rank first.
    """

    def __init__(self, rank_weight: float = 1.0) -> None:
        self.rank_weight = rank_weight

    def rerank(
        self, query: str, candidates: Sequence[Candidate], section_titles: Sequence[str], k: int
    ) -> list[Candidate]:
        rest, dated = date_terms(query, query=True)
        words = content_words(rest)
        if not words and not dated:
            return list(candidates[:k])
        scored = []
        for rank, (cand, title) in enumerate(zip(candidates, section_titles, strict=True)):
            have = _words(f"{title} {untagged(cand[1].text)}")
            # A date or a range asked is one wanted word, met by any day of it.
            days = sum(not have.isdisjoint(group) for group in dated)
            coverage = (len(words & have) + days) / (len(words) + len(dated))
            scored.append((days, coverage + self.rank_weight / (1 + rank), -rank, cand))
        # A question naming a day asks about that day: the candidates that hold it come
        # first, whatever else they share ("What do we discuss from 9/23 through 9/30?"
        # is the schedule's rows of those days, not a paragraph on "discussion topics").
        scored.sort(key=lambda s: s[:3], reverse=True)
        return [(replace(c[0], score=float(score)), c[1]) for _, score, _, c in scored[:k]]


def _words(text: str) -> set[str]:
    """A candidate's content words and date terms, a date or month being one word
    whatever its spelling: "March 31st" is the row "3/31", and "in September" any row
    dated in it (:mod:`~deepread.text.dates`, the same terms BM25 indexes)."""
    rest, dated = date_terms(text)
    return content_words(rest) | {term for group in dated for term in group}


def resolve_reranker(spec: Reranker | str | None) -> Reranker | None:
    """``"coverage"`` (the default, also for ``None`` / ``""``), ``"none"``, or a reranker.

    Default chosen by measurement (docs/history/benchmarks-2026.md §3): on the devset,
    hybrid + coverage reranking of 30 candidates finds more of the evidence in its top five
    than hybrid alone, every fact question's among them; rank weights 0.5–2.0 all do so,
    and 1.0 is the middle of that plateau rather than its best point, to avoid tuning to
    30 questions. (``DEEPREAD_RERANK`` is read by :mod:`deepread.environment.settings`.)
    """
    if spec is not None and not isinstance(spec, str):
        return spec
    name = (spec or "coverage").strip().lower()
    if name == "none":
        return None
    if name == "coverage":
        return CoverageReranker()
    raise UsageError(f"unknown reranker {name!r}: use 'coverage' or 'none'")
