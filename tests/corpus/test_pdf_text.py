"""PDF text comes back as whole paragraphs and whole tables (PDFs built in the test).

Cues: a financial statement (one table, "$" and "(1,577)" in their cells, wrapped row
labels joined, captioned with its title), two columns drawn row by row, line-end
hyphenation, and paragraphs whose first line is indented.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.pdf_builder import Doc, filler

from deepread.corpus.parsing import parse_file


def cells(table_html: str) -> list[list[str]]:
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table_html)]


def statement(doc: Doc) -> Doc:
    doc.line("Consolidated Statements of Cash Flows", x=200, bold=True)
    doc.line("($ in millions)", x=260).gap(6)
    doc.line("For the years ended June 30,", bold=True, advance=False)
    doc.right("2023", 440, bold=True).right("2022", 520, bold=True).gap(12.5)
    rows = [
        ("Net income", "$", "1,058", "$", "815"),
        ("Depreciation and amortization", "", "586", "", "625"),
        ("Purchase of property, plant and equipment, net of", "", "(1,577)", "", "(1,410)"),
        ("proceeds from sales", "", "", "", ""),
        ("Net cash used in investing activities", "$", "(1,404)", "$", "(1,123)"),
    ]
    for label, cur1, v1, cur2, v2 in rows:
        doc.line(label, advance=False)
        if cur1:
            doc.line(cur1, x=380, advance=False)
        if v1:
            doc.right(v1, 440)
        if cur2:
            doc.line(cur2, x=460, advance=False)
        if v2:
            doc.right(v2, 520)
        doc.gap(12.5)
    return doc


def test_a_statement_is_one_table_whose_rows_keep_label_and_figures(tmp_path: Path):
    doc = statement(Doc().page().para(filler(40)))
    doc.gap(10).para(filler(40, 1))
    parsed = parse_file(doc.save(tmp_path / "statement.pdf"))
    tables = [p for p in parsed.paragraphs if p.kind == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.caption and "Consolidated Statements of Cash Flows" in table.caption
    rows = cells(table.text)
    assert ["Net income", "$1,058", "$815"] in rows
    assert [
        "Purchase of property, plant and equipment, net of proceeds from sales",
        "(1,577)",
        "(1,410)",
    ] in rows
    assert rows[0][1:] == ["2023", "2022"]
    # No orphan cells: nothing outside the table is a lone figure or "$".
    assert not any(
        re.fullmatch(r"[$()\d,.\s—-]*", p.text) for p in parsed.paragraphs if p.kind != "table"
    )


def test_a_statement_is_found_by_its_title_row_labels_and_figures(tmp_path: Path):
    from deepread.stores.search_text import search_text

    parsed = parse_file(statement(Doc().page()).save(tmp_path / "statement.pdf"))
    table = next(p for p in parsed.paragraphs if p.kind == "table")
    text = search_text(table.text, "table", "")
    for needle in ("Consolidated Statements of Cash Flows", "Net income", "1,058", "(1,577)"):
        assert needle in text


def test_two_columns_drawn_row_by_row_read_column_by_column(tmp_path: Path):
    left = [
        f"Left column sentence number {i} talks about the harbour and its ships" for i in range(14)
    ]
    right = [
        f"Right column sentence number {i} talks about the ledger and its sums" for i in range(14)
    ]
    doc = Doc().page()
    for a, b in zip(left, right, strict=True):
        doc.line(a[:45], size=9, advance=False).line(b[:45], x=320, size=9)
    parsed = parse_file(doc.save(tmp_path / "columns.pdf"))
    text = " ".join(p.text for p in parsed.paragraphs)
    assert text.index("Left column sentence number 13") < text.index(
        "Right column sentence number 0"
    )
    assert text.index("Right column sentence number 0") < text.index(
        "Right column sentence number 13"
    )


def test_a_word_broken_at_a_line_end_is_joined_and_a_compound_keeps_its_hyphen(tmp_path):
    doc = Doc().page()
    doc.line("The implementation of the plan is reviewed by the board every single")
    doc.line("year, and the team documents each step of the imple-")
    doc.line("mentation for the auditors, including the well-")
    doc.line("known risks of a long-term contract with the supplier.")
    parsed = parse_file(doc.save(tmp_path / "hyphens.pdf"))
    text = " ".join(p.text for p in parsed.paragraphs)
    assert "each step of the implementation for the auditors" in text
    assert "including the well-known risks" in text


def test_an_indented_first_line_starts_a_paragraph_that_the_next_lines_continue(tmp_path):
    doc = Doc().page()
    doc.para(filler(70), indent=18, space_after=0)
    doc.para(filler(70, 3), indent=18, space_after=0)
    parsed = parse_file(doc.save(tmp_path / "indent.pdf"))
    assert [p.text for p in parsed.paragraphs] == [filler(70), filler(70, 3)]


def test_a_hanging_indent_reference_is_one_paragraph(tmp_path: Path):
    doc = Doc().page()
    for k in range(3):
        doc.para(filler(45, k), hang=36, space_after=4)
    parsed = parse_file(doc.save(tmp_path / "references.pdf"))
    assert [p.text for p in parsed.paragraphs] == [filler(45, k) for k in range(3)]
