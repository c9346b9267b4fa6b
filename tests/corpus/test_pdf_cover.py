"""A filing's cover page and wrapped titles are not sections (issue 36), on PDFs built here.

A 10-Q's TOC opened with its cover's lines as sections ("Washington, D.C. 20549", "OR",
"Yes X No") and held pieces of titles cut where a line wrapped ("Fair Value at",
"Accumulated Other"): corpus/parsing/pdf/cover.py and fragments.py. The filings are
generated with fpdf2 (tests/support/pdf_builder.py), set as EDGAR filings are: every
cover line bold or in capitals, standing alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pdf_builder import Doc, filler

from deepread.corpus.parsing import parse_file
from deepread.corpus.parsing.pdf.fragments import fragment

COVER = [
    ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", 14),
    ("Washington, D.C. 20549", 10),
    ("FORM 10-Q", 16),
    ("QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT", 10),
    ("OR", 10),
    ("TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT", 10),
    ("Commission File Number 001-34028", 10),
    ("ACME WIDGETS, INC.", 14),
    ("1 Water Street, Camden, NJ 08102", 10),
]
NOISE = {line for line, _ in COVER} - {"FORM 10-Q"} | {"Fair Value at", "Accumulated Other"}


def filing(path: Path, *, outline: bool = False) -> Path:
    """A two-page 10-Q: its cover, then Part I with a note whose table heads wrapped."""
    doc = Doc().page()
    if outline:
        doc.section("Cover", 0)
    for text, size in COVER:
        doc.line(text, size=size, bold=True).gap(8)
    doc.para("Indicate by check mark whether the registrant has filed all reports. Yes X No")
    doc.page()
    if outline:
        doc.section("Part I. Financial Information", 0)
    doc.line("PART I. FINANCIAL INFORMATION", size=12, bold=True).gap(6)
    doc.line("Item 1. Financial Statements", size=12, bold=True).gap(6)
    doc.para(filler(60))
    doc.line("Note 4: Fair Value Measurements", bold=True).gap(6)
    doc.para(filler(40, 1))
    doc.line("Fair Value at", bold=True).gap(6)
    doc.para(filler(30, 2))
    doc.line("Accumulated Other", bold=True).gap(6)
    doc.para(filler(30, 3))
    doc.line("Liquidity and Capital Resources", bold=True).gap(6)
    doc.para(filler(50, 4))
    return doc.save(path)


def test_a_10q_cover_is_one_section_named_by_its_form(tmp_path: Path) -> None:
    parsed = parse_file(filing(tmp_path / "10q.pdf"))

    titles = [s.title for s in parsed.sections[1:]]
    assert titles[0] == "FORM 10-Q"
    assert not NOISE & set(titles), titles
    # The cover's lines are kept, as the text of its section (and of the preamble).
    text = " ".join(p.text for p in parsed.paragraphs)
    assert "Washington, D.C. 20549" in text and "ACME WIDGETS, INC." in text
    assert "Fair Value at" in text and "Accumulated Other" in text


def test_the_filings_own_headings_are_kept(tmp_path: Path) -> None:
    parsed = parse_file(filing(tmp_path / "10q.pdf"))

    titles = [s.title for s in parsed.sections[1:]]
    for kept in (
        "PART I. FINANCIAL INFORMATION",
        "Item 1. Financial Statements",
        "Note 4: Fair Value Measurements",
        "Liquidity and Capital Resources",
    ):
        assert kept in titles, titles


def test_under_an_outline_the_cover_lines_are_no_sub_headings(tmp_path: Path) -> None:
    parsed = parse_file(filing(tmp_path / "10q-outline.pdf", outline=True))

    titles = [s.title for s in parsed.sections[1:]]
    assert titles[0] == "Cover"
    assert not (NOISE | {"FORM 10-Q"}) & set(titles), titles
    assert "Note 4: Fair Value Measurements" in titles


def test_a_page_that_is_no_filing_cover_keeps_its_headings(tmp_path: Path) -> None:
    doc = Doc().page().line("Annual Review", size=16, bold=True).gap(8)
    doc.para(filler(50))
    for k, name in enumerate(["Markets", "Products", "Outlook"]):
        doc.line(name, bold=True).gap(6).para(filler(40, k))
    parsed = parse_file(doc.save(tmp_path / "review.pdf"))

    assert [s.title for s in parsed.sections[1:]] == [
        "Annual Review",
        "Markets",
        "Products",
        "Outlook",
    ]


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("Fair Value at", True),
        ("Accumulated Other", True),
        ("Quarterly report pursuant to Section 13 or 15(d) of", True),
        ("Other", False),  # one word: a heading of its own
        ("Corporate and Other", False),  # "other" as a noun: a segment's name
        ("Services & Other", False),
        ("Risks and Uncertainties", False),
        ("Changes in Accumulated Other Comprehensive Loss", False),
        ("Terms of Use.", False),
    ],
)
def test_a_title_does_not_end_on_a_word_that_needs_another(text: str, cut: bool) -> None:
    assert fragment(text) is cut
