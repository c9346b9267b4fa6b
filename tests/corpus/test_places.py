"""Where each paragraph is in its source, kept at parsing (corpus/parsing/places.py).

PDFs built here with fpdf2 (lines placed at known positions) and small text, Markdown,
HTML and Word files: a PDF paragraph's rectangles hold its characters as PDFium places
them, merged per run of lines, a table's rectangles are its rows, a block across a page
break has rectangles on both pages; other sources' paragraphs keep the character range
of their text.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest
from support.pdf_builder import LEFT, RIGHT, TOP, Doc, filler

from deepread.corpus.parsing import parse_file
from deepread.corpus.parsing.places import LineBox, merge_runs, words_of
from deepread.corpus.parsing.source_text import source_text
from deepread.records.documents import Paragraph


def _paragraph(path: Path, starts: str) -> Paragraph:
    paragraphs = parse_file(path).paragraphs
    return next(p for p in paragraphs if p.text.split("\n")[-1].startswith(starts))


def _char_boxes(path: Path, page: int, text: str) -> list[tuple[float, float, float, float]]:
    """Each character of ``text`` on ``page`` as PDFium finds it: (x0, top, x1, bottom)
    from the page's top-left corner (the pages here are unrotated, letter size)."""
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        page_obj = pdf[page - 1]
        height = page_obj.get_height()
        textpage = page_obj.get_textpage()
        found = textpage.search(text, match_case=True).get_next()
        assert found is not None, f"{text!r} not on page {page}"
        start, count = found
        boxes = []
        for i in range(start, start + count):
            x0, y0, x1, y1 = textpage.get_charbox(i)
            if x1 > x0:
                boxes.append((x0, height - y1, x1, height - y0))
        return boxes
    finally:
        pdf.close()


def _inside(box: tuple[float, float, float, float], rects: tuple) -> bool:
    x0, top, x1, bottom = box
    return any(
        r[1] <= x0 + 0.01 and x1 <= r[3] + 0.01 and r[2] <= top + 0.01 and bottom <= r[4] + 0.01
        for r in rects
    )


def test_a_pdf_paragraph_keeps_rectangles_that_hold_every_character_of_it(tmp_path: Path):
    text = filler(60, seed=1)
    path = Doc().page().line("Overview", size=14, bold=True).para(text).save(tmp_path / "a.pdf")

    para = _paragraph(path, text[:20])

    assert para.boxes and {b[0] for b in para.boxes} == {1}
    for b in para.boxes:
        assert LEFT - 1 <= b[1] < b[3] <= RIGHT + 1 and TOP < b[2] < b[4] < 792
    assert all(_inside(c, para.boxes) for c in _char_boxes(path, 1, text[:60]))


def test_the_full_lines_of_a_paragraph_are_one_rectangle_and_its_short_last_line_another(
    tmp_path: Path,
):
    doc = Doc().page()
    doc.pdf.set_font("Helvetica", "", 10)
    doc.pdf.set_xy(LEFT, TOP)
    text = filler(80, seed=2)
    doc.pdf.multi_cell(w=RIGHT - LEFT, h=12.5, text=text, align="J")  # justified, 5 lines
    path = doc.save(tmp_path / "b.pdf")

    para = _paragraph(path, text[:20])

    assert len(para.boxes or ()) == 2  # the full lines, then the short last one
    full, last = para.boxes or ()
    assert last[3] < full[3] - 20 and last[2] >= full[4] - 0.5


def test_a_table_is_kept_as_one_rectangle_per_row_under_its_title(tmp_path: Path):
    doc = Doc().page().line("Selected figures", bold=True).gap(8)
    for label, a, b in (
        ("Revenue", "9,583", "9,912"),
        ("Costs", "4,001", "4,210"),
        ("Net income", "1,204", "1,377"),
        ("Cash", "880", "912"),
    ):
        doc.line(label, advance=False).right(a, 400).right(b, 500).gap(14)
    path = doc.save(tmp_path / "t.pdf")

    table = next(p for p in parse_file(path).paragraphs if p.kind == "table")

    title, *rows = table.boxes or ()
    assert len(rows) == 4  # one a row, and the title above it: a table shown with its heads
    assert title[3] < 200 and title[4] <= rows[0][2]
    tops = [b[2] for b in rows]
    assert tops == sorted(tops)
    assert all(b[1] <= LEFT + 1 and b[3] >= 499 for b in rows)


def test_a_paragraph_across_a_page_break_has_rectangles_on_both_pages(tmp_path: Path):
    doc = Doc().page()
    first = doc.wrap(filler(200, seed=3))
    # the paragraph's lines run to the foot of page 1 and on at the top of page 2
    doc.y = 792 - 72 - 12.5 * 4
    for ln in first[:4]:
        doc.line(ln)
    doc.page()
    for ln in first[4:]:
        doc.line(ln)
    path = doc.save(tmp_path / "c.pdf")

    para = _paragraph(path, first[0][:20])

    assert para.page == 1
    assert {b[0] for b in para.boxes or ()} == {1, 2}


def test_lines_of_one_run_merge_and_a_line_far_below_starts_another():
    lines = [
        LineBox(1, 72, 100, 540, 112, 80),
        LineBox(1, 72, 112.5, 539, 124.5, 80),
        LineBox(1, 72, 300, 540, 312, 80),  # another run, far below
        LineBox(2, 72, 72, 540, 84, 80),
    ]

    boxes = merge_runs(lines)

    assert boxes == (
        (1, 72.0, 100.0, 540.0, 124.5),
        (1, 72.0, 300.0, 540.0, 312.0),
        (2, 72.0, 72.0, 540.0, 84.0),
    )


def test_rectangles_are_rounded_outward_so_they_still_hold_their_lines():
    (box,) = merge_runs([LineBox(1, 72.04, 100.06, 300.01, 111.99, 10)])

    assert box == (1, 72.0, 100.0, 300.1, 112.0)


SOURCES = {
    "notes.txt": "Opening words of the file.\n\nThe second paragraph says where\n"
    "the fruit is kept, on two lines.\n\nA last one.\n",
    "notes.md": "# Fruit\n\nApples are kept **cold** in the [cellar](http://x.y/z).\n\n"
    "## Prices\n\n- Pears cost more in winter.\n",
    "notes.html": "<html><body><h1>Fruit</h1><p>Apples are kept <em>cold</em> &amp; dry "
    "in the cellar.</p><p>Pears cost more in winter.</p></body></html>",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_paragraph_of_a_text_source_keeps_the_character_range_of_its_text(
    tmp_path: Path, name: str
):
    path = tmp_path / name
    path.write_text(SOURCES[name], encoding="utf-8")
    source = source_text(path)

    paragraphs = parse_file(path).paragraphs

    assert paragraphs
    for p in paragraphs:
        assert p.boxes == () and p.span is not None
        words = words_of(p.text)  # the headings put before it included: they are its text
        shown = words_of(source.text[p.span[0] : p.span[1]])
        assert words == [w for w in shown if w in set(words)]
        assert words[0] == shown[0] and words[-1] == shown[-1]


def test_a_word_paragraph_keeps_the_character_range_of_its_text(tmp_path: Path):
    import docx

    document = docx.Document()
    document.add_heading("Fruit", level=1)
    document.add_paragraph("Apples are kept cold in the cellar.")
    document.add_paragraph("Pears cost more in winter.")
    path = tmp_path / "notes.docx"
    document.save(str(path))
    text = source_text(path).text

    paragraphs = parse_file(path).paragraphs

    pears = next(p for p in paragraphs if "Pears" in p.text)
    assert pears.span is not None
    assert text[pears.span[0] : pears.span[1]] == "Pears cost more in winter."
