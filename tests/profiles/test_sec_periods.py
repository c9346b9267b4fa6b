"""The period a question names and the passages stating its figures
(profiles/kinds/sec_filing/periods.py), as the offline answer ranks its quotes by them."""

from __future__ import annotations

from deepread.profiles.kinds.sec_filing.periods import asks_quarter, states_figures_of, years_named

YEAR_2022 = frozenset({"2022"})
ANNUAL = "Net sales for fiscal 2022 were $10,208.6 million, up 18.3% from $8,630.9 million."
QUARTERLY = "Net sales for the fourth quarter of 2022 were $3,226.8 million, $2,730.6 and 18.2%."


def test_a_year_is_read_with_or_without_fy():
    assert years_named("What was the operating margin in FY2022?") == YEAR_2022
    assert years_named("Total net sales in fiscal 2022 and FY 2021?") == {"2022", "2021"}


def test_a_figure_is_not_a_year():
    assert years_named("Was revenue above $2,022 million?") == frozenset()


def test_a_quarter_question_is_told_from_a_year_question():
    assert asks_quarter("Revenue in the quarter ended July 29, 2023?")
    assert asks_quarter("What were Q2 2023 sales?")
    assert not asks_quarter("Total net sales in fiscal 2022?")


def test_a_passage_with_figures_of_the_year_states_them():
    assert states_figures_of(ANNUAL, YEAR_2022, quarter=False)


def test_a_passage_of_another_year_does_not():
    assert not states_figures_of(ANNUAL.replace("2022", "2019"), YEAR_2022, quarter=False)


def test_a_passage_naming_the_year_without_figures_does_not():
    assert not states_figures_of("Fiscal 2022 was a year of growth.", YEAR_2022, quarter=False)


def test_a_quarter_alone_does_not_answer_a_year_but_answers_a_quarter():
    assert not states_figures_of(QUARTERLY, YEAR_2022, quarter=False)
    assert states_figures_of(QUARTERLY, YEAR_2022, quarter=True)


def test_a_table_of_the_year_and_its_quarters_is_about_the_year():
    table = "Fiscal year 2022 by quarter: Q1 2,345.9; Q2 2,330.2; Q3 2,305.6; Q4 3,226.8"
    assert states_figures_of(table, YEAR_2022, quarter=False)
