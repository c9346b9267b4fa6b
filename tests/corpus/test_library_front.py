"""Front matter kept at ingest (corpus/library/front.py), on PDFs built here: an annual
report that wraps its 10-K in a letter to shareholders keeps the 10-K's cover too, so
that the report alone is titled by its registrant, form and year (issue 34: AMD's 2022
annual report prints its cover on page 7 and was titled "DEAR SHAREHOLDERS")."""

from __future__ import annotations

from pathlib import Path

from support.pdf_builder import Doc, filler

from deepread.corpus.library import Library
from deepread.corpus.library.front import front_matter
from deepread.corpus.parsing import parse_file
from deepread.records.documents import Document

COVER = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    "Washington, D.C. 20549",
    "FORM 10-K",
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    "For the fiscal year ended December 31, 2022",
    "Commission File Number 001-07882",
    "ACME WIDGETS, INC.",
    "(Exact name of registrant as specified in its charter)",
]


def report(path: Path, cover_page: bool = True) -> Path:
    """A glossy annual report: a letter over two pages, then (or not) the 10-K cover."""
    doc = Doc().page()
    doc.line("2022 ANNUAL REPORT", size=20, bold=True).gap(10)
    doc.line("DEAR SHAREHOLDERS,", size=14, bold=True).gap(8)
    for i in range(14):
        doc.para(filler(30, i))
    doc.page()
    for i in range(14, 24):
        doc.para(filler(30, i))
    doc.page()
    if cover_page:
        for line in COVER:
            doc.line(line, size=11, bold=line.isupper()).gap(6)
    doc.para(filler(60, 30))
    return doc.save(path)


def titled(path: Path) -> Document:
    structured = parse_file(path)
    stored = Document(0, structured.title, str(path), structured.sections)
    stored.front = front_matter(structured)
    return Library().documents([stored])[0]


def test_an_annual_report_keeps_its_10k_cover_and_is_titled_by_it(tmp_path: Path) -> None:
    doc = titled(report(tmp_path / "acme_annual_report.pdf"))
    assert doc.front is not None and doc.front.lines[:3] == tuple(COVER[:3])
    assert "DEAR SHAREHOLDERS," in doc.front.lines  # the first page is still kept
    assert doc.title == "ACME WIDGETS, INC. — Form 10-K, fiscal year ended December 31, 2022"


def test_a_report_without_a_form_cover_keeps_its_first_page_only(tmp_path: Path) -> None:
    doc = titled(report(tmp_path / "letter.pdf", cover_page=False))
    assert doc.front is not None and doc.front.lines[0] == "2022 ANNUAL REPORT"
    assert not any("registrant" in line for line in doc.front.lines)
