"""A table's rows as a person reads one (text/headed_rows.py): each value under its
column's head, the pieces a statement prints apart joined to their figure."""

from __future__ import annotations

from deepread.text.headed_rows import headed_rows


def table(*rows: list[str]) -> str:
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{body}</table>"


def test_a_row_s_values_are_named_by_the_header_row_above_it():
    rows = headed_rows(table(["", "2022", "2021"], ["Effective tax rate", "23%", "20%"]))

    assert [r.line() for r in rows] == ["Effective tax rate: 2022 23%, 2021 20%"]
    assert rows[0].head == "2022 | 2021" and rows[0].cells == "Effective tax rate | 23% | 20%"


def test_a_currency_or_percent_sign_in_a_cell_of_its_own_joins_its_figure():
    rows = headed_rows(
        table(
            ["", "2023", "2022"],
            ["Revenue ........ $", "9,583", "$", "10,329"],
            ["Margin", "12", "%", "11", "%"],
        )
    )

    assert [r.line() for r in rows] == [
        "Revenue: 2023 $9,583, 2022 $10,329",
        "Margin: 2023 12%, 2022 11%",
    ]


def test_the_latest_header_row_as_wide_as_the_row_names_its_values():
    rows = headed_rows(
        table(
            ["", "Year ended June 30"],
            ["", "2023", "2022", "2021"],
            ["Flexibles", "$384", "$376", "$336"],
        )
    )

    assert rows[0].line() == "Flexibles: 2023 $384, 2022 $376, 2021 $336"


def test_a_row_no_header_row_fits_keeps_its_values_without_heads():
    rows = headed_rows(table(["Cash", "1,200", "900"]))

    assert rows[0].line() == "Cash: 1,200, 900" and rows[0].head == ""


def test_a_table_holding_no_figure_gives_each_of_its_rows():
    rows = headed_rows(table(["ChainMap", "dict-like class for a single view"], ["deque"]))

    assert [r.line() for r in rows] == ["ChainMap: dict-like class for a single view", "deque"]


def test_text_holding_no_table_gives_no_rows():
    assert headed_rows("Revenue was $9,583 million in 2023.") == []


def test_a_row_of_figures_printed_as_dollars_in_parentheses_is_a_row_not_heads():
    rows = headed_rows(
        table(
            ["", "2021", "2020"],
            ["Provision for income taxes", "$(491)", "$(111)"],
            ["Effective tax rate", "20.5%", "17.8%"],
        )
    )

    assert [r.line() for r in rows] == [
        "Provision for income taxes: 2021 $(491), 2020 $(111)",
        "Effective tax rate: 2021 20.5%, 2020 17.8%",
    ]


def test_a_label_printed_again_is_named_by_the_row_holding_a_label_alone_above_it():
    rows = headed_rows(
        table(
            ["", "2022", "2021"],
            ["Operating expenses:", "", ""],
            ["Net income", "$815", "$951"],
            ["Basic earnings per share:", "", ""],
            ["Net income", "$0.532", "$0.604"],
        )
    )

    assert [r.line() for r in rows] == [
        "Net income: 2022 $815, 2021 $951",
        "Basic earnings per share — Net income: 2022 $0.532, 2021 $0.604",
    ]
