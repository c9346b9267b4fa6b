"""PDF structure from every cue, on PDFs built in the test (fpdf2; no downloaded files).

One cue per test: outline, printed contents, bold/size headings, labels (Part/Item/Note),
running headers and page numbers, exhibits, and the bounded-cost cases of issue 15.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from support.pdf_builder import LEFT, Doc, filler

from deepread.corpus.parsing import Structured, parse_file


def titles(doc: Structured) -> list[str]:
    return [s.title for s in doc.sections[1:]]


def section(doc: Structured, title: str):
    return next(s for s in doc.sections if s.title == title)


def parent_title(doc: Structured, title: str) -> str:
    return doc.sections[section(doc, title).parent].title


def test_outline_entries_become_sections_at_their_depth(tmp_path: Path):
    doc = Doc().page().section("Introduction", 0).line("Introduction", size=14, bold=True)
    doc.para(filler(60)).section("Background", 1).line("Background", size=12, bold=True)
    doc.para(filler(60, 1)).page().section("Results", 0).line("Results", size=14, bold=True)
    doc.para(filler(60, 2))
    parsed = parse_file(doc.save(tmp_path / "outline.pdf"))
    assert titles(parsed) == ["Introduction", "Background", "Results"]
    assert parent_title(parsed, "Background") == "Introduction"
    assert section(parsed, "Results").level == 1


def test_bold_and_larger_lines_are_headings_ranked_by_size(tmp_path: Path):
    doc = Doc().page().line("Annual Overview", size=16, bold=True)
    doc.para(filler(50))
    for k, name in enumerate(["Markets", "Products", "People"]):
        doc.line(name, bold=True).para(filler(40, k))
    doc.line("Outlook", size=16, bold=True).para(filler(50, 5))
    doc.line("Risks", bold=True).para(filler(40, 6))
    parsed = parse_file(doc.save(tmp_path / "typography.pdf"))
    assert titles(parsed) == [
        "Annual Overview",
        "Markets",
        "Products",
        "People",
        "Outlook",
        "Risks",
    ]
    assert parent_title(parsed, "Products") == "Annual Overview"
    assert parent_title(parsed, "Risks") == "Outlook"


def test_part_item_and_note_labels_nest_whatever_their_fonts(tmp_path: Path):
    doc = Doc().page().line("PART I", bold=True).line("Item 1. Business", bold=True)
    doc.para(filler(50)).line("Item 1A. Risk Factors", bold=True).para(filler(50, 1))
    doc.page().line("PART II", bold=True)
    doc.line("Item 8. Financial Statements and Supplementary Data", bold=True)
    doc.para(filler(40, 2)).line("Note 1 - Summary of Significant Accounting Policies")
    doc.para(filler(40, 3)).line("Note 2 - Revenue").para(filler(40, 4))
    parsed = parse_file(doc.save(tmp_path / "labels.pdf"))
    assert parent_title(parsed, "Item 1A. Risk Factors") == "PART I"
    assert parent_title(parsed, "Item 8. Financial Statements and Supplementary Data") == "PART II"
    assert (
        parent_title(parsed, "Note 2 - Revenue")
        == "Item 8. Financial Statements and Supplementary Data"
    )


def test_a_label_and_its_title_on_one_baseline_make_one_heading(tmp_path: Path):
    doc = Doc().page().line("PART I", bold=True)
    doc.line("Item 1.", bold=True, advance=False).line("BUSINESS", x=LEFT + 60, bold=True)
    doc.para(filler(60))
    parsed = parse_file(doc.save(tmp_path / "split-label.pdf"))
    assert "Item 1. BUSINESS" in titles(parsed)


def test_a_bold_line_under_a_run_in_titled_line_is_a_heading_of_its_own(tmp_path: Path):
    # A syllabus typed in one font: bold titles alone on their line or run into their
    # text, set with no extra space, so PDFium puts them in one box with the line above.
    doc = Doc().page()
    for k, name in enumerate(["Prerequisites:", "Design Projects:"]):
        doc.line(name, bold=True).para(filler(60, k), space_after=0)
    doc.mixed(
        ("Grading Scheme: ", True), ("(for ECE 4670): 15% homework, 50% labs, 35% prelims", False)
    )
    doc.line("List of Topics Covered:", bold=True)
    for k in range(8):
        doc.line(f"Topic {k}: {filler(8, k)}", x=LEFT + 18)
    doc.line("Student Outcomes:", bold=True).para(filler(60, 9))
    parsed = parse_file(doc.save(tmp_path / "syllabus.pdf"))
    assert "List of Topics Covered:" in titles(parsed)
    topics = section(parsed, "List of Topics Covered:")
    assert any("Topic 3" in p.text for p in parsed.paragraphs if p.sec_id == topics.sec_id)


def test_a_bold_phrase_wrapping_onto_the_next_line_stays_in_its_paragraph(tmp_path: Path):
    doc = Doc().page().line("Benefits", bold=True).para(filler(50))
    doc.mixed(
        ("Payments start six months after the participant leaves. ", False),
        ("Severance may delay", True),
    )
    doc.line("the start of any payment based on termination of employment.", bold=True)
    doc.para(filler(50, 1))
    parsed = parse_file(doc.save(tmp_path / "plan.pdf"))
    assert titles(parsed) == ["Benefits"]
    assert any(
        "leaves. Severance may delay the start of any payment" in p.text for p in parsed.paragraphs
    )


def test_printed_contents_entries_find_plain_headings_and_are_not_sections(tmp_path: Path):
    names = [
        "Company Overview",
        "Market Conditions",
        "Operating Results",
        "Liquidity",
        "Outlook for the Year",
    ]
    doc = Doc().page().line("Table of Contents", size=12)
    for k, name in enumerate(names):
        doc.line(name, advance=False).right(str(2 + k), 540).gap(14)
    for k, name in enumerate(names):
        doc.page().line(name).para(filler(80, k)).para(filler(60, k + 1))
    parsed = parse_file(doc.save(tmp_path / "contents.pdf"))
    assert titles(parsed) == names
    assert all(s.n_para > 0 for s in parsed.sections[1:])
    assert section(parsed, "Liquidity").parent == 0


def test_running_headers_and_page_numbers_are_not_paragraphs(tmp_path: Path):
    doc = Doc()
    for n in range(1, 7):
        doc.page().line("ACME Corporation | 2023 Annual Report", y=30, size=8)
        doc.para(filler(80, n)).para(filler(70, n + 1))
        doc.line(str(n), x=300, y=740, size=8)
    parsed = parse_file(doc.save(tmp_path / "furniture.pdf"))
    texts = [p.text for p in parsed.paragraphs]
    assert not any("ACME Corporation" in t for t in texts)
    assert not any(t.strip().isdigit() for t in texts)
    assert len(texts) == 12


def test_a_row_of_figures_atop_every_page_is_data_not_a_running_header(tmp_path: Path):
    doc = Doc()
    for n in range(1, 7):
        doc.page().line(f"Segment {n} revenue", y=40, advance=False)
        doc.line(f"{1000 + 37 * n:,}", x=400, y=40, advance=False)
        doc.line(f"{2000 + 91 * n:,}", x=480, y=40)
        doc.gap(40).para(filler(80, n))
    parsed = parse_file(doc.save(tmp_path / "figures-on-top.pdf"))
    text = " ".join(p.text for p in parsed.paragraphs)
    for n in range(1, 7):
        assert f"{1000 + 37 * n:,}" in text and f"{2000 + 91 * n:,}" in text


def test_an_exhibit_starting_a_page_is_a_top_level_section(tmp_path: Path):
    doc = Doc().page().line("PART IV", bold=True).line("Item 15. Exhibits", bold=True)
    doc.para(filler(60)).page().line("Exhibit 31.1", x=460).line("CERTIFICATION", bold=True)
    doc.para(filler(60, 1)).para(filler(50, 2))
    parsed = parse_file(doc.save(tmp_path / "exhibit.pdf"))
    exhibit = next(s for s in parsed.sections if s.title.startswith("Exhibit 31.1"))
    assert exhibit.level == 1 and exhibit.parent == 0 and exhibit.n_para == 2


def test_sequence_lines_parse_whole_within_a_cpu_bound(tmp_path: Path):
    # Letters only, no spaces, no sentence end (DNA, base64): the line joiner once ran a
    # regular expression over the whole growing paragraph per line (quadratic: 24 pages
    # took a minute). Twenty pages must come back whole and quickly: within 2 CPU
    # seconds, ~13x the 0.15 s they take once the PDF stack is loaded, while a rescan of
    # the paragraph per line takes ~5 s (CPU time, which a loaded machine does not
    # stretch as it does the wall clock). That the cost grows linearly with the pages is
    # tests/corpus/test_hostile_files.py::test_parsing_sequence_line_pdfs_grows_linearly_
    # with_their_pages.
    doc = Doc()
    rng = random.Random(11)
    lines = ["".join(rng.choice("ACGT") for _ in range(90)) for _ in range(20 * 55)]
    for p in range(20):
        doc.page()
        for ln in lines[p * 55 : (p + 1) * 55]:
            doc.line(ln, font="Helvetica", size=9)
    path = doc.save(tmp_path / "sequence.pdf")
    parse_file(Doc().page().line("ACGT").save(tmp_path / "warm.pdf"))  # load the PDF stack
    started = time.process_time()

    parsed = parse_file(path)

    assert time.process_time() - started < 2
    joined = "".join(p.text.replace(" ", "") for p in parsed.paragraphs)
    assert joined == "".join(lines)


def test_joining_many_unspaced_lines_looks_at_one_line_at_a_time():
    from deepread.corpus.parsing.pdf.lines import Line
    from deepread.corpus.parsing.pdf.words import join_lines

    # 5,000 lines of 1,000 letters: a join that rescans the paragraph per line would scan
    # ~12 GB of text and never finish; a linear one takes milliseconds.
    lines = [Line("G" * 999 + "-", 0, 1, 0, 1, 9, 0, 0, False) for _ in range(5000)]
    text = join_lines(lines, (set(), set()))
    assert len(text) == 5000 * 1000
