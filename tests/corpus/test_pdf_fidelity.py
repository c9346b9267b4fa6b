"""The PDF parse keeps the text the page printed, on PDFs built in the test (fpdf2).

Each test is one way a parse used to lose or garble printed text that a reader quotes:
a run-in title's colon, a list item's bullet, a heading that ends the document, dates
taken for page numbers, a table cell wrapped around its row's figure, a schedule's date
read after the topic beside it. The last test states the invariant they share: every
word of a page's text layer lands in some paragraph.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from support.pdf_builder import LEFT, Doc, filler

from deepread.corpus.parsing import Structured, parse_file
from deepread.evaluation.flat_windows import text_layer


def texts(doc: Structured) -> list[str]:
    return [p.text for p in doc.paragraphs]


def words(text: str) -> list[str]:
    return re.findall(r"\w+", re.sub(r"<[^>]+>", " ", text).lower())


def grading_table(doc: Doc) -> Doc:
    """A label / weight table whose middle cells wrap over two lines around the weight
    (the weight set on the cell's middle), each cell's lines drawn one after the other."""
    doc.line("Course Component", advance=False).line("Grade weightings", x=400).gap(8)
    for label, first, second in [
        (
            "Mid-term Exam",
            "(will be held on 3/30/2023 from 7pm-9pm",
            "and will cover sections 1.1 - 3.4 )",
        ),
        (
            "Final Exam",
            "(will be held on 5/23/2023 from 3:30PM - 5:30PM",
            "at Totman Phys. Ed. Bldg. Gym )",
        ),
    ]:
        middle = doc.y
        doc.line(label, y=middle)
        doc.line(first, x=160, y=middle - 6.5).line(second, x=162, y=middle + 6.5)
        doc.line("30%", x=440, y=middle)
        doc.gap(32)
    doc.line("Homework", y=doc.y, advance=False).line("40%", x=440)
    return doc


def test_a_run_in_title_heads_its_paragraph_with_the_colon_it_printed(tmp_path: Path):
    doc = Doc().page().line("Assignments and Exams:", bold=True)
    doc.para(filler(30))
    doc.line("Exams: Two preliminary exams.").gap(6).line("Projects: There are five labs.")
    parsed = parse_file(doc.save(tmp_path / "run-in.pdf"))
    assert any(t.startswith("Exams:\nTwo preliminary exams.") for t in texts(parsed))
    assert "Exams:" in [s.title for s in parsed.sections]


def test_a_list_item_keeps_the_bullet_the_page_printed(tmp_path: Path):
    doc = Doc().page().line("Topics to choose among:", bold=True)
    for topic in ("Key National Indicators", "Backcasting", "Enterprise Risk Management"):
        doc.line(f"• {topic}", x=LEFT + 18)
    doc.para(filler(30))
    parsed = parse_file(doc.save(tmp_path / "bullets.pdf"))
    items = [p for p in parsed.paragraphs if p.kind == "list_item"]
    # (the first also carries the heading above it, as its contextual header)
    assert [p.text.splitlines()[-1] for p in items] == [
        "• Key National Indicators",
        "• Backcasting",
        "• Enterprise Risk Management",
    ]


def test_an_asterisk_marker_stays_in_its_list_item(tmp_path: Path):
    doc = Doc().page().para(filler(30)).line("* Available on Moodle.", x=LEFT + 18)
    doc.para(filler(20, 1))
    parsed = parse_file(doc.save(tmp_path / "asterisk.pdf"))
    assert "* Available on Moodle." in texts(parsed)


def test_bullets_set_apart_from_their_text_make_a_list_not_a_table(tmp_path: Path):
    doc = Doc().page().para(filler(30))
    for topic in ("Logic Model", "Lean Six Sigma", "Balanced Scorecard", "ISO-9000 Standards"):
        doc.line("•", x=LEFT + 18, advance=False).line(topic, x=LEFT + 54)
    doc.para(filler(20, 1))
    parsed = parse_file(doc.save(tmp_path / "tabbed-bullets.pdf"))
    assert not [p for p in parsed.paragraphs if p.kind == "table"]
    assert "• Lean Six Sigma" in texts(parsed)


def test_a_heading_that_ends_the_document_is_also_a_paragraph(tmp_path: Path):
    doc = Doc().page().line("Fri, Dec. 10 Big Data", size=12, bold=True).para(filler(40))
    doc.line("Fri, Dec. 17 Class Presentations of Assignment 4", size=12, bold=True)
    parsed = parse_file(doc.save(tmp_path / "last-heading.pdf"))
    assert "Fri, Dec. 17 Class Presentations of Assignment 4" in texts(parsed)


def test_a_row_of_dates_at_the_page_foot_is_not_a_page_number(tmp_path: Path):
    # Month/day on page index i is (i + 1)/d: "page i+1 of d" to a page-number rule that
    # does not look at the row the dates stand in.
    doc = Doc()
    for n in range(1, 7):
        doc.page().para(filler(80, n)).para(filler(60, n + 1))
        for k, day in enumerate((13, 15, 17)):
            doc.line(f"{n}/{day}", x=120 + 140 * k, y=720, advance=False)
    parsed = parse_file(doc.save(tmp_path / "dates.pdf"))
    text = " ".join(texts(parsed))
    assert all(f"{n}/{day}" in text for n in range(1, 7) for day in (13, 15, 17))


def test_a_date_whose_day_is_below_the_month_is_not_page_of_pages(tmp_path: Path):
    # "3/1" is not "page 3 of 1", however well the month runs with the pages.
    doc = Doc()
    for n in range(1, 7):
        doc.page().para(filler(80, n)).line(f"{n + 2}/1", x=100, y=720)
    parsed = parse_file(doc.save(tmp_path / "single-dates.pdf"))
    text = " ".join(texts(parsed))
    assert all(f"{n + 2}/1" in text for n in range(1, 7))


def test_a_table_cell_wrapped_around_its_figure_stays_in_its_row(tmp_path: Path):
    doc = grading_table(Doc().page().para(filler(30)))
    parsed = parse_file(doc.save(tmp_path / "grading.pdf"))
    table = next(p.text for p in parsed.paragraphs if p.kind == "table")
    assert (
        "<td>Mid-term Exam (will be held on 3/30/2023 from 7pm-9pm and will cover "
        "sections 1.1 - 3.4 )</td><td>30%</td>"
    ) in table
    assert (
        "<td>Final Exam (will be held on 5/23/2023 from 3:30PM - 5:30PM at Totman "
        "Phys. Ed. Bldg. Gym )</td><td>30%</td>"
    ) in table


def test_a_schedule_date_centred_beside_its_topic_is_read_before_it(tmp_path: Path):
    # A date column, a topic column and a readings column drawn row by row: the page is
    # read column by column, and the date, set on the middle of its two-line topic, is
    # drawn before the topic and read before it.
    doc = Doc().page()
    for k in range(6):
        top = doc.y
        doc.line(f"9/{12 + 7 * k}", x=80, y=top + 7)
        doc.line(f"Overview of validity theory part {k}", x=123, y=top)
        doc.line(f"The sources of validity evidence {k}", x=123, y=top + 14)
        doc.line(f"Lehman and McGinn readings chapter {k}", x=360, y=top)
        doc.line(f"Jenkins and Guilford readings chapter {k}", x=360, y=top + 14)
        doc.y = top + 40
    parsed = parse_file(doc.save(tmp_path / "schedule.pdf"))
    joined = " ".join(texts(parsed))
    for k in range(6):
        assert f"9/{12 + 7 * k} Overview of validity theory part {k}" in joined


def test_every_word_of_a_page_with_tables_and_lists_lands_in_a_paragraph(tmp_path: Path):
    doc = grading_table(Doc().page().line("Grading Policy:", bold=True).para(filler(30)))
    doc.gap(10).line("Required Texts:")
    doc.line("• None", x=LEFT + 18).para(filler(25, 2))
    doc.line("Exams: Two preliminary exams.")
    path = doc.save(tmp_path / "page.pdf")
    parsed = parse_file(path)
    printed = Counter(w for word, _ in text_layer(path) for w in words(word))
    kept = Counter(w for t in texts(parsed) for w in words(t))
    assert printed - kept == Counter()
