"""Documents of no profile's kind — a product manual and a research paper — are read by
the general rules alone: titled by what they print, their headings kept, their answers
stated first by the question's words; no profile (deepread/profiles/) adds anything to them.

The manual is Markdown and the paper a PDF built here (tests/support/pdf_builder.py),
both ingested into a real store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.pdf_builder import Doc, filler

import deepread
from deepread.corpus.parsing import parse_file
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.read_plan import Sections
from deepread.profiles import PROFILES

MANUAL = """\
# Widget 3000 Owner's Guide

Revised March 3, 2024

## Getting started

Unpack the widget and place it on a flat surface away from water.

Plug the power cable into a grounded outlet before switching the widget on.

## Resetting the widget

To reset the widget, hold the power button for ten seconds until the light blinks.

After a reset the widget keeps its settings but forgets its paired devices.

## Specifications

The widget weighs 2.4 kg and draws 45 W at full load.
"""


def paper(path: Path) -> Path:
    """A two-page paper: its title and authors, an abstract, numbered sections whose
    text states figures of a year ("In 2019 … 91.2 %, 88.5 % and 90.1 %")."""
    doc = Doc().page()
    doc.line("Sparse Retrieval for Long Documents", size=18, bold=True).gap(6)
    doc.line("Ada Lovelace and Alan Turing", size=11).gap(12)
    doc.line("Abstract", size=12, bold=True).gap(4)
    doc.para("We study how sparse retrieval ranks passages of long documents. " * 3)
    doc.line("1 Introduction", size=12, bold=True).gap(4)
    doc.para(filler(60))
    doc.page()
    doc.line("2 Results", size=12, bold=True).gap(4)
    doc.para(
        "In 2019 the ranker reached an accuracy of 91.2%, a recall of 88.5% and an F1 of "
        "90.1% on the long-document set."
    )
    doc.para(filler(40, 1))
    return doc.save(path)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    folder = tmp_path_factory.mktemp("general")
    (folder / "widget-3000-manual.md").write_text(MANUAL, encoding="utf-8")
    paper(folder / "sparse-retrieval.pdf")
    with deepread.Index.open(store=folder / "store", collection="general") as idx:
        idx.ingest([folder / "widget-3000-manual.md", folder / "sparse-retrieval.pdf"])
        yield idx


def document(index: deepread.Index, file: str) -> deepread.Document:
    return next(d for d in index.documents() if Path(d.source).name == file)


def test_a_manual_is_titled_by_its_own_heading_its_kind_and_its_date(shelf):
    card = document(shelf, "widget-3000-manual.md").card

    assert card is not None and card.kind == "manual"
    assert card.title == "Widget 3000 Owner's Guide — manual, March 3, 2024"


def test_a_paper_is_titled_by_its_title_line_and_has_no_kind_or_period(shelf):
    card = document(shelf, "sparse-retrieval.pdf").card

    assert card is not None and (card.kind, card.period) == (None, None)
    assert card.title == "Sparse Retrieval for Long Documents"


def test_a_paper_s_first_page_is_no_cover_its_headings_are_kept(tmp_path):
    parsed = parse_file(paper(tmp_path / "paper.pdf"))

    titles = [s.title for s in parsed.sections[1:]]
    kept = ["Sparse Retrieval for Long Documents", "Abstract", "1 Introduction", "2 Results"]
    assert [t for t in titles if t in kept] == kept, titles


def test_no_profile_turns_a_question_about_a_manual_to_a_section_first(shelf):
    doc = document(shelf, "widget-3000-manual.md")
    sections = Sections(shelf)
    outlines = {doc.doc_id: sections.outline(doc.doc_id)}

    for question in ("What is the total revenue of the widget?", "Why did sales fall?"):
        got = PROFILES.first_reads(
            question, outlines, sections.subtree_tokens, sections.holds_table
        )
        assert got == ([], []), question


def test_a_manual_s_answer_states_first_the_paragraph_sharing_the_question_s_words(shelf):
    doc = document(shelf, "widget-3000-manual.md").doc_id

    out = build_graph(index=shelf).invoke(
        {"question": "How do I reset the widget?"},
        context=Context(documents=[doc], check_sufficiency=False),
    )

    first = out["answer"].splitlines()[0]
    assert "To reset the widget, hold the power button" in first, out["answer"]


def test_no_profile_puts_a_paragraph_of_a_manual_first_for_a_question_naming_no_year():
    order = PROFILES.quote_order("How do I reset the widget?")

    for text in MANUAL.split("\n\n"):
        assert all(order(text)), text
