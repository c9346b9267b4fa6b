"""A table with a row named for the quantity the question asks
(profiles/kinds/sec_filing/rows.py)."""

from __future__ import annotations

from deepread.profiles.kinds.sec_filing.rows import states_row_of
from deepread.profiles.kinds.sec_filing.statements import (
    INCOME,
    Metrics,
    metrics_asked,
    statements_asked,
)
from deepread.text.terms import content_words

STATEMENT = (
    "STATEMENTS OF EARNINGS<table><tr><td>Three Months Ended</td><td></td></tr>"
    "<tr><td>Revenue</td><td>$9,583</td><td>$10,329</td></tr>"
    "<tr><td>Cost of sales</td><td>7,363</td><td>8,042</td></tr></table>"
)
MIX = (
    "REVENUE CATEGORY SUMMARY<table><tr><td>Revenue Mix Comparable Sales</td></tr>"
    "<tr><td>Computing and Mobile Phones</td><td>41 %</td><td>(6.4)%</td></tr>"
    "<tr><td>Total</td><td>100 %</td><td>(5.4)%</td></tr></table>"
)
TOTAL_REVENUE = content_words("What was the company's total revenue in the quarter?")


def test_a_table_with_a_row_named_for_the_quantity_states_it():
    assert states_row_of(STATEMENT, TOTAL_REVENUE)


def test_a_table_whose_only_matching_row_is_a_bare_total_does_not():
    assert not states_row_of(MIX, TOTAL_REVENUE)


def test_a_label_qualified_by_total_or_net_still_names_the_quantity():
    table = "<table><tr><td>Total net revenue</td><td>$9,497,578</td></tr></table>"

    assert states_row_of(table, TOTAL_REVENUE)


def test_a_row_without_a_figure_names_nothing():
    table = "<table><tr><td>Revenue</td><td>see note 4</td></tr></table>"

    assert not states_row_of(table, TOTAL_REVENUE)


def test_prose_naming_the_quantity_is_not_a_table_row():
    assert not states_row_of("Revenue | $9,583 was reported.", TOTAL_REVENUE)


def test_without_question_words_nothing_is_stated():
    assert not states_row_of(STATEMENT, set())


def test_a_row_of_the_quantity_s_share_does_not_name_the_quantity():
    table = "<table><tr><td>% of revenue</td><td>19.5 %</td><td>21.5 %</td></tr></table>"

    assert not states_row_of(table, TOTAL_REVENUE)


def test_a_header_row_of_years_names_no_quantity_when_the_question_names_the_year():
    """A header row's empty first cell leaves "2022" as its label: a year, no quantity."""
    table = (
        "<table><tr><td></td><td>2022</td><td>2021</td></tr>"
        "<tr><td>Basic earnings per share</td><td>$1.56</td><td>$1.30</td></tr></table>"
    )

    assert not states_row_of(table, content_words("What was the effective tax rate in 2022?"))


def test_a_row_printing_dollars_in_parentheses_states_the_quantity():
    """Dollars in parentheses ("$(491)") are a figure, as in the answer's rows."""
    table = "<table><tr><td>Provision for income taxes</td><td>$(491)</td></tr></table>"

    assert states_row_of(table, content_words("What was the provision for income taxes?"))


def test_a_row_printed_as_a_line_of_text_states_the_quantity():
    """A PDF's table read as text: the label, then its figures, no table around them."""
    rate = content_words("What was the effective income tax rate in 2022?")

    assert states_row_of("Effective income tax rate (0.6) % 14.8 % 17.5 %", rate)
    assert not states_row_of("Effective income tax rate was 14.8 % in 2021.", rate)


def test_a_label_adding_one_word_to_the_quantity_asked_still_names_it():
    """ "Effective income tax rate" is the effective tax rate a question asks for."""
    rate = content_words("What was the effective tax rate in 2022?")

    assert states_row_of("Effective income tax rate (0.6) % 14.8 % 17.5 %", rate)


def test_a_label_sharing_one_word_of_the_quantity_asked_does_not_name_it():
    """ "Loss before income taxes" shares "tax" with a tax rate, and states no rate."""
    table = "<table><tr><td>Loss before income taxes</td><td>(5,022)</td></tr></table>"

    assert not states_row_of(table, content_words("What was the effective tax rate in 2022?"))


def test_a_label_whose_one_word_more_makes_another_measure_does_not_name_it():
    """ "Adjusted net earnings per share (Diluted)" is the company's own measure, not the
    diluted earnings per share asked."""
    table = (
        "<table><tr><td>Adjusted net earnings per share (Diluted)</td><td>$10.15</td></tr></table>"
    )
    asked = content_words("What was the diluted earnings per share for 2022?")

    assert not states_row_of(table, asked)


def asking(question: str) -> tuple[set[str], Metrics]:
    """What the filing profile judges rows by for ``question``: its words, its metrics."""
    return content_words(question), metrics_asked(question)


def test_a_label_holding_one_word_of_a_metric_asked_does_not_name_it():
    """ "Other income, net" holds only words asked ("income"), and is no income tax rate."""
    table = "<table><tr><td>Other income, net</td><td>551</td></tr></table>"

    assert not states_row_of(table, *asking("What was the effective income tax rate in 2021?"))


def test_a_label_missing_two_words_of_the_metric_asked_does_not_name_it():
    """ "Income tax benefit" is the tax, not the effective income tax rate."""
    table = "<table><tr><td>Income tax benefit</td><td>743</td></tr></table>"

    assert not states_row_of(table, *asking("What was the effective income tax rate in 2021?"))


def test_a_label_naming_the_metric_another_way_names_it():
    """ "Cost of sales" is the cost of goods sold a question asks for."""
    table = "<table><tr><td>Cost of sales</td><td>20,441</td></tr></table>"

    assert states_row_of(table, *asking("What was Nike's cost of goods sold in FY2018?"))


def test_a_label_naming_the_metric_with_another_measure_s_words_does_not_name_it():
    """ "Net income attributable to noncontrolling interest" is no net income of the
    company, though it begins as one."""
    table = (
        "<table><tr><td>Net income attributable to noncontrolling interest</td>"
        "<td>$12</td></tr></table>"
    )

    assert not states_row_of(table, *asking("What was the net income in 2022?"))


def test_the_effective_income_tax_rate_is_asked_as_a_metric():
    """Filings print "Effective income tax rate" as often as "Effective tax rate"."""
    assert statements_asked("What was Boeing's effective income tax rate in 2021?") == [INCOME]
    assert states_row_of(
        "Effective income tax rate 14.8 % 17.5 % 71.8 %",
        *asking("What was Boeing's effective income tax rate in 2021?"),
    )


def test_a_label_the_question_asks_for_besides_its_metric_names_it():
    """A question defining days payable outstanding by its accounts payable asks for the
    row "Accounts payable" too."""
    table = "<table><tr><td>Accounts payable</td><td>1,174</td></tr></table>"
    question = (
        "What is FY2020 days payable outstanding (DPO) for Corning? DPO is defined as: "
        "365 * (average accounts payable between FY2019 and FY2020) / (FY2020 COGS)."
    )

    assert states_row_of(table, *asking(question))


def test_a_sentence_stating_a_metric_asked_by_its_name_states_it_as_a_row_does():
    question = "What was American Express's effective tax rate in 2022?"
    rate, metrics = content_words(question), metrics_asked(question)

    stated = "The effective tax rate was 21.6 percent and 24.6 percent for 2022 and 2021."
    assert states_row_of(stated, rate, metrics)
    assert states_row_of("Our effective tax rate increased from 20% to 23%.", rate, metrics)
    assert not states_row_of("… would favorably affect the effective tax rate.", rate, metrics)
