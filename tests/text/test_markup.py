"""Paragraph text without its table markup, and a table as a reader is shown it
(``text/markup.py``)."""

from __future__ import annotations

import time

from deepread.text.markup import MAX_COLSPAN, plain, shown_text, table_rows, untagged


def test_a_table_row_becomes_its_cells_words_kept_apart():
    row = "<table><tr><td>Net sales</td><td>2,000</td></tr></table>"

    assert plain(row) == "Net sales 2,000"


def test_untagged_text_keeps_its_spacing_and_a_tag_becomes_a_space():
    assert untagged("a  b<br/>c") == "a  b c"


def test_a_table_is_shown_as_rows_of_cells_with_its_caption_on_a_line_of_its_own():
    table = (
        "Consolidated Statements of Cash Flows"
        "<table><tr><td></td><td>2023</td><td>2022</td></tr>"
        "<tr><td>Net income</td><td>$5,428</td><td>$4,756</td></tr></table>"
    )

    assert shown_text(table, "table") == (
        "Consolidated Statements of Cash Flows\n | 2023 | 2022\nNet income | $5,428 | $4,756"
    )


def test_an_empty_cell_keeps_its_place_where_its_column_holds_figures_in_other_rows():
    table = (
        "<table><tr><td>Revenue</td><td>9,583</td><td>10,329</td></tr>"
        "<tr><td>Restructuring</td><td/><td>(3)</td></tr></table>"
    )

    assert table_rows(table).splitlines()[1] == "Restructuring |  | (3)"


def test_columns_empty_in_every_row_and_trailing_empty_cells_are_left_out():
    table = (
        "<table><tr><td>Basic</td><td></td><td>$2.35</td><td></td></tr>"
        "<tr><td>Diluted</td><td></td><td>$2.32</td><td></td></tr>"
        "<tr><td>Note</td><td></td><td></td><td></td></tr></table>"
    )

    assert table_rows(table) == "Basic | $2.35\nDiluted | $2.32\nNote"


def test_a_cell_spanning_columns_keeps_the_columns_after_it_in_place():
    table = (
        "<table><tr><th colspan='2'>Fiscal years</th><th>Change</th></tr>"
        "<tr><td>2023</td><td>2022</td><td>%</td></tr></table>"
    )

    assert table_rows(table) == "Fiscal years |  | Change\n2023 | 2022 | %"


def test_a_colspan_is_bounded_so_a_hostile_table_cannot_write_a_million_separators():
    table = "<table><tr><td colspan=1000000>x</td><td>y</td></tr></table>"

    assert table_rows(table).count("|") <= MAX_COLSPAN


def test_rows_without_closing_tags_and_entities_are_read_as_html_writes_them():
    table = "<table><tbody><tr><td>R&amp;D<td>1,200<tr><td>SG&amp;A<td>900</tbody></table>"

    assert table_rows(table) == "R&D | 1,200\nSG&A | 900"


def test_text_that_is_not_a_table_is_shown_as_stored():
    code = "Write <table><tr><td>x</td></tr></table> in the template."

    assert shown_text(code, "text") == code
    assert shown_text("Revenue 9,583", "table") == "Revenue 9,583"


def test_a_hostile_table_of_openings_or_of_one_wide_row_is_shown_in_linear_time():
    openings = "</table>" + "<table><tr><td>x" * 50_000
    wide = "<table><tr>" + "<td>x</td>" * 5_000 + "</tr>" + "<tr><td>y</td></tr>" * 5_000
    wide += "</table>"

    started = time.perf_counter()
    shown = shown_text(openings, "table"), shown_text(wide, "table")

    assert time.perf_counter() - started < 5  # quadratic takes minutes; linear ~0.1 s
    assert shown[1].count("\n") == 5_000 and shown[1].endswith("\ny")
