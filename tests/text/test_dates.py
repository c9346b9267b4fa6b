"""Dates written any way are one search term (text/dates.py): "March 31st" finds "3/31"."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepread
from deepread.records.documents import Hit, Paragraph
from deepread.stores.rerank import CoverageReranker
from deepread.text.dates import calendar_days, date_terms, months, with_calendar_days

SCHEDULE = """# Course schedule

## Weeks

3/24 Sensory processing in the classroom; reading due.

3/31 Diagnosis: disparities in adulthood diagnosis.

4/7 Intervention approaches; reading due.

Fri, Oct. 8 Automated intervention and feedback.

## Policies

Late work loses ten percent a day; every topic is examined in the final.
"""


@pytest.mark.parametrize(
    "text", ["March 31st", "Mar. 31", "31 March", "the 31st of March", "3/31", "3/31/2023", "31/3"]
)
def test_every_spelling_of_a_day_is_the_same_term(text: str) -> None:
    assert calendar_days(text) == ["monthday0331"]


def test_a_range_names_every_day_in_it() -> None:
    assert calendar_days("away 10/7 - 10/11") == [
        "monthday1007",
        "monthday1008",
        "monthday1009",
        "monthday1010",
        "monthday1011",
    ]


def test_two_dates_not_joined_as_a_range_are_just_two_days() -> None:
    assert calendar_days("3/31 and 4/7") == ["monthday0331", "monthday0407"]


def test_a_range_longer_than_a_month_names_only_its_ends() -> None:
    assert calendar_days("1/1 - 12/31") == ["monthday0101", "monthday1231"]


@pytest.mark.parametrize(
    "text", ["version 1.2/3", "13/13", "0/5", "grade 95/100", "page 4 of 12", "2/30"]
)
def test_numbers_that_cannot_be_a_day_add_no_term(text: str) -> None:
    assert calendar_days(text) == []


def test_text_without_dates_is_indexed_as_it_is() -> None:
    assert with_calendar_days("No dates here.") == "No dates here."


def top_bm25_hit(folder: Path, question: str) -> str:
    """The first BM25 hit's text for ``question`` in :data:`SCHEDULE`."""
    path = folder / "schedule.md"
    path.write_text(SCHEDULE, encoding="utf-8")
    with deepread.Index.open(store=folder / "store", collection="course") as idx:
        idx.ingest([path])
        return idx.retrieve(question, k=1, mode="bm25")[0].text


def test_a_question_naming_a_day_finds_the_row_written_as_numbers(tmp_path: Path) -> None:
    assert top_bm25_hit(tmp_path, "What is the topic on March 31st?").startswith("3/31 Diagnosis")


def test_the_row_of_the_day_asked_ranks_first_however_written() -> None:
    texts = [
        "Office hours are on Mondays.",
        "Lectures are recorded.",
        "Fri, Oct. 8 Automated intervention.",
    ]
    assert reranked("What happens on October 8th?", texts) == [2, 0]


def test_a_documents_dates_name_their_month() -> None:
    assert months("9/23 Quiz; Sept. 30 lab", of_dates=True) == ["month09", "month09"]


def test_a_query_names_only_the_months_it_names_alone() -> None:
    assert months("How often do we meet in September?", of_dates=False) == ["month09"]
    assert months("What is due on October 8?", of_dates=False) == []


def test_the_verb_may_is_no_month() -> None:
    assert months("May I submit late?", of_dates=False) == []


def test_a_question_naming_a_month_finds_the_rows_dated_in_it(tmp_path: Path) -> None:
    assert top_bm25_hit(tmp_path, "Which sessions are in October?").startswith("Fri, Oct. 8")


def reranked(query: str, texts: list[str], k: int = 2) -> list[int]:
    """Paragraph numbers of the top ``k`` after reranking ``texts`` (first-stage order)."""
    candidates = [(Hit(1, 1, i, 1.0 / (i + 1)), Paragraph(1, 1, i, t)) for i, t in enumerate(texts)]
    ranked = CoverageReranker().rerank(query, candidates, [""] * len(texts), k=k)
    return [p.para_idx for _, p in ranked]


def test_a_range_asked_is_met_by_a_row_of_any_day_in_it() -> None:
    rest, groups = date_terms("What do we read from 9/23 through 9/25?", query=True)
    assert "9/23" not in rest
    assert groups == [["monthday0923", "monthday0924", "monthday0925"]]


def test_a_row_of_a_day_in_the_range_asked_ranks_first() -> None:
    texts = [
        "Discussion topics for class are posted each week before class.",
        "Lectures are recorded.",
        "Th 9/24 Okada, No-No Boy",
    ]
    assert reranked("What topics will we discuss in class from 9/23 through 9/30?", texts) == [2, 0]


def test_a_month_named_alone_is_met_by_a_row_dated_in_it() -> None:
    texts = [
        "How often the class meets is set by the department.",
        "Lectures are recorded.",
        "Fri, Sep. 3 The emerging era of big data",
    ]
    assert reranked("How many times does the class meet in September?", texts) == [2, 0]
