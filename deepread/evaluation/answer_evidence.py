"""What a person gets: the gold evidence the *answer* shows, beside what the agent read.

Every other evidence figure measures what the agent was shown; a person sees the answer.
For one agent run (its final answer and checked citations) this gives:

* ``evidence_in_answer`` — the same test as *evidence read*, on the answer's text: for a
  benchmark (FinanceBench, SyllabusQA) half of an evidence text's 24-character shingles
  (:mod:`deepread.evaluation.shingles`), for the devset a gold quote verbatim
  (:mod:`deepread.evaluation.evidence`). The answer's text counts for the documents it
  cites: an answer citing nothing shows nothing a person can trace;
* ``answer_cites_gold_page`` (benchmarks whose evidence is a page: FinanceBench) — a
  paragraph the answer cites is on a gold page, beside *a gold page was shown*;
* ``first_quote_gold`` — the answer's first citation holds gold evidence (its paragraph
  holds a gold quote or evidence text, or is on a gold page): the best quote should come
  first;
* ``first_line_gold`` — the answer's first line holds it, what a person reads in five
  seconds: for a benchmark whose evidence is a page (FinanceBench), the line's first
  citation is on a gold page; else the line's own text holds a gold quote (the devset)
  or half an evidence text's shingles (SyllabusQA).
"""

from __future__ import annotations

from typing import Any

from deepread.corpus.index import Index
from deepread.evaluation.benchmark import Shown, score, shown_paragraphs
from deepread.evaluation.dataset import Question
from deepread.evaluation.evidence import DocResolver, coverage
from deepread.nodes.citations import parse_citations
from deepread.nodes.read_memory import regions_of
from deepread.records.documents import Paragraph


def cited_paragraphs(index: Index, citations: list[dict[str, Any]]) -> list[Paragraph]:
    """The paragraphs ``citations`` name (``doc_id``, ``sec_id``, ``para_idx``), in the
    order they are cited, each once: one read per run of neighbouring cited paragraphs."""
    wanted = list(
        dict.fromkeys((int(c["doc_id"]), int(c["sec_id"]), int(c["para_idx"])) for c in citations)
    )
    found: dict[tuple[int, int, int], Paragraph] = {}
    for key, intervals in regions_of(wanted).items():
        try:
            paragraphs = shown_paragraphs(index, {key: intervals})
        except KeyError:  # CoordinateError: written again or removed since it was cited
            continue
        found |= {paragraph.coord: paragraph for paragraph in paragraphs}
    return [found[c] for c in wanted if c in found]


def answer_metrics(
    index: Index,
    resolver: DocResolver,
    question: Question,
    answer: str,
    citations: list[dict[str, Any]],
    scoped: bool,
) -> dict[str, Any]:
    """The answer's evidence figures (see the module docstring); None where the question
    has no evidence of that kind."""
    if not question.evidence:
        return {}
    cited = cited_paragraphs(index, citations)
    docs = list(dict.fromkeys(p.doc_id for p in cited))
    first = cited[:1]
    line = next((ln for ln in answer.splitlines() if ln.strip()), "")
    # the line's first citation, when the answer's checked citations hold it
    line_cite = parse_citations(line)[:1]
    line_cites = [p for p in cited if p.coord in line_cite]
    if scoped:
        pages = {d: frozenset(p.page for p in cited if p.doc_id == d and p.page) for d in docs}
        in_answer = score(
            question, [Shown(resolver.by_id.get(d, ""), answer, pages[d]) for d in docs], resolver
        )
        head = score(
            question,
            [
                Shown(
                    resolver.by_id.get(p.doc_id, ""), p.text, frozenset([p.page] if p.page else [])
                )
                for p in first
            ],
            resolver,
        )
        on_page = score(
            question,
            [
                Shown(resolver.by_id.get(p.doc_id, ""), line, frozenset([p.page] if p.page else []))
                for p in line_cites
            ],
            resolver,
        )
        by_text = all(item.page is None for item in question.evidence)  # SyllabusQA
        return {
            "evidence_in_answer": in_answer["evidence_read"],
            "answer_cites_gold_page": in_answer["gold_page_shown"],
            "first_quote_gold": any(head["evidence_found"]) or any(head["pages_found"]),
            "first_line_gold": any(on_page["evidence_found" if by_text else "pages_found"]),
        }
    shown = [(resolver.by_id.get(d, ""), answer) for d in docs]
    return {
        "evidence_in_answer": coverage(question.evidence, shown, resolver).share,
        "first_quote_gold": any(
            coverage(
                question.evidence,
                [(resolver.by_id.get(p.doc_id, ""), p.text) for p in first],
                resolver,
            ).found
        ),
        "first_line_gold": any(
            coverage(
                question.evidence,
                [(resolver.by_id.get(p.doc_id, ""), line) for p in line_cites],
                resolver,
            ).found
        ),
    }
