"""PDF lines join into paragraphs by the document's spacing and indentation, and list
items stay one item each (PDFs built in the test).

Cues: a document set at double spacing (every line further apart than pdfminer's box
rule allows), paragraphs a blank line apart that end on a full line, list items whose
number is set with a tab and whose wrapped lines sit at the item's text column, a list
number standing alone before its text, and a contents page whose rows fill their lines
with leader dots.
"""

from __future__ import annotations

from pathlib import Path

from support.pdf_builder import LEFT, RIGHT, Doc, filler

from deepread.corpus.parsing import parse_file

DOUBLE = 2.0
SIZE = 10


def texts(path: Path, kind: str = "text") -> list[str]:
    return [p.text for p in parse_file(path).paragraphs if p.kind == kind]


def test_a_double_spaced_paragraph_is_one_paragraph_and_a_blank_line_still_ends_it(tmp_path: Path):
    doc = Doc().page()
    for k in range(3):
        doc.para(filler(90, k), leading=DOUBLE, space_after=SIZE * DOUBLE)
    assert texts(doc.save(tmp_path / "double.pdf")) == [filler(90, k) for k in range(3)]


def test_double_spaced_paragraphs_without_a_gap_are_told_apart_by_a_short_last_line(tmp_path: Path):
    doc = Doc().page()
    paragraphs = [filler(n, k) for k, n in enumerate((70, 86, 83))]
    for text in paragraphs:
        last = doc.wrap(text)[-1]
        doc.pdf.set_font("Helvetica", "", SIZE)
        assert doc.pdf.get_string_width(last) < 0.6 * (RIGHT - LEFT)  # the premise
        doc.para(text, leading=DOUBLE, space_after=0)
    assert texts(doc.save(tmp_path / "no-gap.pdf")) == paragraphs


def test_a_paragraph_that_ends_on_a_full_line_stays_apart_from_the_next_one_a_blank_line_down(
    tmp_path: Path,
):
    doc = Doc().page()
    first = doc.wrap(filler(120))[:-1]  # whole lines only: the last one is full too
    for line in first:
        doc.line(line, leading=DOUBLE)
    doc.gap(SIZE * DOUBLE)
    doc.para(filler(90, 2), leading=DOUBLE)
    assert texts(doc.save(tmp_path / "full-last.pdf")) == [" ".join(first), filler(90, 2)]


def numbered(doc: Doc, items: list[str], *, leading: float, tab: float) -> Doc:
    """Items "1)", "2)" … at the margin, their text and wrapped lines at ``tab``."""
    for n, text in enumerate(items, start=1):
        doc.line(f"{n})", advance=False)
        for line in doc.wrap(text, width=RIGHT - LEFT - tab):
            doc.line(line, x=LEFT + tab, leading=leading)
    return doc


def test_numbered_items_set_in_one_block_are_one_item_each_with_their_wrapped_lines(tmp_path: Path):
    items = [filler(30, k) for k in range(4)]
    doc = Doc().page().para("Do the following to take part in a study:", space_after=2)
    numbered(doc, items, leading=1.15, tab=18)
    assert texts(doc.save(tmp_path / "items.pdf"), "list_item") == [
        f"{n}) {text}" for n, text in enumerate(items, start=1)
    ]


def test_a_wrapped_list_item_stays_one_item_at_double_spacing(tmp_path: Path):
    items = [filler(30, k) for k in range(4)]
    doc = Doc().page()
    for k in (5, 6):  # the document's prose, whose spacing is the one measured
        doc.para(filler(90, k), leading=DOUBLE, space_after=SIZE * DOUBLE)
    numbered(doc, items, leading=DOUBLE, tab=18)
    assert texts(doc.save(tmp_path / "items-double.pdf"), "list_item") == [
        f"{n}) {text}" for n, text in enumerate(items, start=1)
    ]


def test_a_list_number_set_apart_by_a_tab_is_no_table(tmp_path: Path):
    doc = Doc().page().para(filler(40), space_after=2)
    doc.line("1)", advance=False).line("Sign up when you meet the requirements.", x=LEFT + 36)
    doc.gap(6).para(filler(40, 1))
    path = doc.save(tmp_path / "tabbed.pdf")
    assert texts(path, "table") == []
    assert texts(path, "list_item") == ["1) Sign up when you meet the requirements."]


def test_contents_rows_filled_with_leader_dots_stay_apart_at_double_spacing(tmp_path: Path):
    doc = Doc().page()
    doc.pdf.set_font("Helvetica", "", SIZE)
    dot = doc.pdf.get_string_width(".")
    for n, title in enumerate(
        ["General Information", "What you will learn", "Required Materials", "Grading"], start=1
    ):
        entry = f"Section {n}: {title} "
        page = f" {n + 1}"
        room = RIGHT - LEFT - doc.pdf.get_string_width(entry + page)
        doc.line(entry + "." * int(room / dot) + page, leading=DOUBLE)
    doc.gap(SIZE * DOUBLE)
    for k in range(2):
        doc.para(filler(90, k), leading=DOUBLE, space_after=SIZE * DOUBLE)
    rows = [t for t in texts(doc.save(tmp_path / "contents.pdf")) if "Section" in t]
    assert len(rows) == 4 and all(t.count("Section") == 1 for t in rows)


def schedule(doc: Doc) -> Doc:
    """Rows set with tabs: a day, a date and a reading, some readings wrapped below."""
    rows = [
        ("T", "9/21", ["Carlos Bulosan, America Is in the Heart (1946)"]),
        (
            "Th",
            "9/23",
            [
                "John Okada, No-No Boy (1957), chapters one to four",
                "and the introduction by Ruth Ozeki",
            ],
        ),
        ("T", "9/28", ["No-No Boy, chapters five to eleven"]),
    ]
    for day, date, reading in rows:
        doc.line(day, advance=False).line(date, x=LEFT + 36, advance=False)
        for line in reading:
            doc.line(line, x=LEFT + 72)
        doc.gap(8)
    return doc


def test_a_row_set_with_tabs_is_one_paragraph_with_its_wrapped_lines(tmp_path: Path):
    doc = schedule(Doc().page().para(filler(40), space_after=12))
    rows = [t for t in texts(doc.save(tmp_path / "schedule.pdf")) if "/" in t]
    assert rows == [
        "T 9/21 Carlos Bulosan, America Is in the Heart (1946)",
        "Th 9/23 John Okada, No-No Boy (1957), chapters one to four and the "
        "introduction by Ruth Ozeki",
        "T 9/28 No-No Boy, chapters five to eleven",
    ]


def test_a_long_title_left_of_a_line_on_its_baseline_is_no_cell(tmp_path: Path):
    doc = Doc().page().line("Consolidated Balance Sheets", advance=False)
    doc.right("Example Incorporated", RIGHT).gap(12).para(filler(60))
    got = texts(doc.save(tmp_path / "title.pdf"))
    assert "Example Incorporated" not in got[0] and "Consolidated" not in got[-1]
