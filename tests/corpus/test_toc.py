"""The Directory Structure (paper Fig. 5) and its token budget."""

from __future__ import annotations

import re

from support.documents import deep_document

from deepread.nodes.toc import render_toc, section_line
from deepread.text.tokens import count_tokens

LINE = re.compile(
    r"^\s*\((\d+)\) \[(\d+)\] (.+) \| paragraphs=(\d+) \| tokens=(\d+) \| "
    r"children=(\[[\d, ]*\]|hidden\(\d+\))$"
)


def test_every_line_has_the_paper_format():
    toc = render_toc([deep_document(1), deep_document(2)])
    assert toc.max_level is None
    for line in toc.text.splitlines():
        assert LINE.match(line), line


def test_documents_are_grouped_and_keyed_by_doc_id_and_sec_id():
    toc = render_toc([deep_document(1), deep_document(2)])
    keys = [LINE.match(line).group(1, 2) for line in toc.text.splitlines()]
    assert len(keys) == len(set(keys))  # sec ids repeat across documents; keys do not
    assert [k[0] for k in keys] == sorted(k[0] for k in keys)


def test_a_section_line_lists_its_children_and_reading_cost():
    doc = deep_document(1, breadth=2)
    assert section_line(doc, doc.sections[1]) == (
        "(1) [1] Chapter 1 | paragraphs=3 | tokens=120 | children=[2, 5]"
    )


def test_a_toc_within_budget_is_not_collapsed():
    docs = [deep_document(1)]
    full = render_toc(docs)
    assert render_toc(docs, budget=full.tokens).text == full.text


def test_a_tight_budget_collapses_the_deepest_level_first_and_says_so():
    docs = [deep_document(1)]
    full = render_toc(docs)
    toc = render_toc(docs, budget=full.tokens // 2)
    assert toc.tokens <= full.tokens // 2
    assert toc.max_level == 2
    assert "Item" not in toc.text and "Section 4.4" in toc.text
    assert "children=hidden(4)" in toc.text
    assert "TOC collapsed to fit its budget: only levels 0–2" in toc.text
    assert toc.tokens == count_tokens(toc.text)


def test_an_even_tighter_budget_keeps_collapsing_level_by_level():
    docs = [deep_document(1)]
    levels = [render_toc(docs, budget=b).max_level for b in (10_000, 700, 200, 80)]
    assert levels == [None, 2, 1, 0]


def test_documents_are_left_out_only_after_everything_collapsed_and_named():
    docs = [deep_document(i) for i in range(1, 6)]
    toc = render_toc(docs, budget=120)
    assert toc.max_level == 0 and toc.documents_shown < 5
    left_out = ", ".join(str(i) for i in range(toc.documents_shown + 1, 6))
    assert f"doc_id {left_out}; retrieve still searches them" in toc.text


def test_titles_are_kept_on_one_line():
    doc = deep_document(1, breadth=1)
    doc.sections[1].title = "A title\nsplit over  lines"
    assert "(1) [1] A title split over lines |" in render_toc([doc]).text


def test_a_document_line_lists_no_empty_sections_when_its_tree_follows():
    # The root's card said "sections: ; +1 more" when the TOC lists the sections below
    # it anyway (issue 36).
    from dataclasses import replace

    from deepread.records.documents import Card

    doc = deep_document(1, breadth=2)
    doc = replace(
        doc, card=Card("Report 1", "report1.pdf", "Form 10-Q", sections=("Part I", "Part II"))
    )

    root = render_toc([doc]).text.splitlines()[0]

    assert "sections:" not in root, root
    assert "file=report1.pdf" in root
    assert Card("R", "r.pdf", sections=("A",)).describe(max_sections=0) == "file=r.pdf"
    assert (
        Card("R", "r.pdf", sections=("A", "B")).describe(1) == "file=r.pdf | sections: A; +1 more"
    )
