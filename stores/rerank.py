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
from typing import Protocol

from deepread.stores.backend import UsageError
from deepread.stores.dates import date_terms
from deepread.stores.markup import untagged
from deepread.stores.records import Hit, Paragraph
from deepread.stores.terms import content_words

Candidate = tuple[Hit, Paragraph]

class Reranker(Protocol):
    """Reorders first-stage candidates and keeps ``k``."""

    def rerank(self, query: str, candidates: Sequence[Candidate],
               section_titles: Sequence[str], k: int) -> list[Candidate]: ...


class CoverageReranker:
    """Query-term coverage blended with first-stage rank; offline and model-free.

    ``score = coverage + rank_weight / (1 + first_stage_rank)`` where ``coverage`` is the
    share of the query's content words found in the paragraph or its section title.
    """

    def __init__(self, rank_weight: float = 1.0) -> None:
        self.rank_weight = rank_weight

    def rerank(self, query: str, candidates: Sequence[Candidate],
               section_titles: Sequence[str], k: int) -> list[Candidate]:
        wanted = _words(query, query=True)
        if not wanted:
            return list(candidates[:k])
        scored = []
        for rank, (cand, title) in enumerate(zip(candidates, section_titles, strict=True)):
            text = f"{title} {untagged(cand[1].text)}"
            have = _words(text, query=False)
            coverage = len(wanted & have) / len(wanted)
            scored.append((coverage + self.rank_weight / (1 + rank), -rank, cand))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return [(Hit(c[0].doc_id, c[0].sec_id, c[0].para_idx, float(score)), c[1])
                for score, _, c in scored[:k]]


def _words(text: str, *, query: bool) -> set[str]:
    """Content words, a date or month being one word whatever its spelling: "March 31st"
    is the row "3/31", and "in September" is any row dated in it (:mod:`~deepread.stores.
    dates`, the same terms BM25 indexes)."""
    rest, dated = date_terms(text, query=query)
    return content_words(rest) | set(dated)


def resolve_reranker(spec: Reranker | str | None) -> Reranker | None:
    """``"coverage"`` (the default, also for ``None`` / ``""``), ``"none"``, or a reranker.

    Default chosen by measurement (docs/benchmarks.md): on the devset, hybrid + coverage
    reranking of 30 candidates lifts recall@5 from 0.550 to 0.576 and fact questions from
    0.889 to 1.0; rank weights 0.5–2.0 all reach 1.0 on facts, and 1.0 is the middle of
    that plateau rather than its best point (0.605 at 2.0), to avoid tuning to 30
    questions. (``DEEPREAD_RERANK`` is read by :mod:`deepread.settings`.)
    """
    if spec is not None and not isinstance(spec, str):
        return spec
    name = (spec or "coverage").strip().lower()
    if name == "none":
        return None
    if name == "coverage":
        return CoverageReranker()
    raise UsageError(f"unknown reranker {name!r}: use 'coverage' or 'none'")
