"""The financial-statement lexicon: a question asking for a financial quantity names
the statements it is computed from; section titles are recognised as statements; any
other question or document gets nothing."""

from __future__ import annotations

from deepread.profiles.kinds.sec_filing.statements import (
    BALANCE,
    CASH_FLOW,
    INCOME,
    quantities_named,
    statement_sections,
    statements_asked,
    title_statement,
)
from deepread.records.documents import Section


def test_a_liquidity_ratio_is_computed_from_the_balance_sheet():
    assert statements_asked("Has the quick ratio improved between FY2023 and FY2022?") == [BALANCE]


def test_a_margin_is_computed_from_the_income_statement():
    assert statements_asked("Does the company have an improving gross margin profile?") == [INCOME]


def test_a_statement_named_in_an_instruction_comes_before_the_metrics():
    question = (
        "What is the year-over-year change in operating income? Give a solution "
        "by using the cash flow statement."
    )

    assert statements_asked(question) == [CASH_FLOW, INCOME]


def test_a_ratio_across_statements_names_both_in_textbook_order():
    assert statements_asked("Calculate the inventory turnover ratio for FY2022.") == [
        BALANCE,
        INCOME,
    ]


def test_a_question_about_no_financial_quantity_gets_nothing():
    assert statements_asked("When is the final exam and how is the grade computed?") == []


def test_titles_of_statements_are_recognised_in_their_usual_wordings():
    assert title_statement("CONSOLIDATED STATEMENTS OF OPERATIONS") == INCOME
    assert title_statement("Consolidated Statements of Financial Position") == BALANCE
    assert title_statement("Condensed Consolidated Balance Sheets") == BALANCE
    assert title_statement("CONSOLIDATED STATEMENTS OF CASH FLOWS") == CASH_FLOW


def test_notes_about_a_statement_and_comprehensive_income_are_not_the_statement():
    assert title_statement("Notes to Consolidated Statements of Income") is None
    assert title_statement("Consolidated Statements of Comprehensive Income") is None


def test_a_statement_mentioned_inside_another_title_is_not_the_statement():
    assert title_statement("Assets Measured at Fair Value on the Balance Sheets") is None
    assert title_statement("Off-Balance Sheet Arrangements") is None


def test_a_statement_title_with_its_units_note_is_still_the_statement():
    title = "CONSOLIDATED STATEMENTS OF EARNINGS (Dollars in Millions) (Note 1)"

    assert title_statement(title) == INCOME


def test_a_question_about_an_adjusted_measure_is_not_sent_to_the_statements():
    assert statements_asked("What was the Adjusted EBITDA margin in FY2023?") == []


def test_of_two_sections_titled_as_one_statement_the_larger_subtree_is_picked():
    outline = [
        Section(3, "Consolidated Balance Sheet Data", 6, 2),
        Section(40, "CONSOLIDATED BALANCE SHEETS", 6, 39),
        Section(41, "Consolidated Statements of Income", 6, 39),
    ]
    weight = {(1, 3): 600, (1, 40): 1200, (1, 41): 900}

    picked = statement_sections(
        "What is the current ratio?", {1: outline}, lambda d, s: weight[d, s]
    )

    assert picked == [(1, 40)]


def test_a_document_without_statement_titles_gets_nothing():
    outline = [Section(1, "Grading policy", 1, 0), Section(2, "Net sales", 1, 0)]

    assert statement_sections("What were net sales?", {1: outline}, lambda d, s: 50) == []


def test_the_quantities_a_question_names_are_given_as_it_writes_them_in_its_order():
    question = "How did Acme's Capital Expenditures and effective tax rate change in 2023?"
    assert quantities_named(question) == ["capital expenditures", "effective tax rate"]


def test_a_non_gaap_measure_names_no_quantity_to_search_for():
    assert quantities_named("What was Acme's adjusted EBITDA in 2023?") == []
