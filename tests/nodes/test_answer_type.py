"""A question asking for a kind of fact the cited passages do not hold is not answered.

The expectations (:mod:`deepread.nodes.sufficiency.answer_type`) one rule per test, and the check
that uses them (``Context.answer_type_check``) over small syllabi generated here, with
the real store, parser and local embedding model and the offline extractive policy.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.documents import markdown_index, run_agent

import deepread
from deepread.nodes.sufficiency.answer_type import expected, missing

UNDATED_MD = (
    "# Introductory Chemistry\n\n"
    "## Final Exam\n\n"
    "The final exam is cumulative: it covers every chapter of the textbook, and you may "
    "bring one page of notes to the final exam.\n\n"
    "## Grading\n\n"
    "Exams count for 50% of the grade, lab reports 30% and homework 20%.\n"
)
TITLE_DATED_MD = UNDATED_MD.replace("## Final Exam\n", "## Final Exam, December 12\n")


@pytest.fixture(scope="module")
def undated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    with markdown_index(tmp_path_factory, "undated", "chem-syllabus.md", UNDATED_MD) as idx:
        yield idx


@pytest.fixture(scope="module")
def title_dated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    with markdown_index(tmp_path_factory, "dated", "chem-syllabus.md", TITLE_DATED_MD) as idx:
        yield idx


def test_a_when_question_is_not_met_by_a_passage_without_a_time_or_date():
    assert missing("When is the final exam?", ["The final exam is cumulative."]) is not None


def test_a_calendar_date_meets_a_when_question():
    assert missing("When is the final exam?", ["Final exam: Dec 12 in Room 4."]) is None


def test_a_clock_time_meets_a_what_time_question():
    assert missing("What time are classes held?", ["Lectures run 10:30-11:45."]) is None


def test_a_weekday_meets_a_what_days_question():
    assert missing("What days does the class meet?", ["Class meets Tuesdays."]) is None


def test_a_week_of_the_term_meets_a_when_question():
    assert (
        missing(
            "When does the project start?", ["The project starts by the fifth week of the course."]
        )
        is None
    )


def test_a_stated_arrangement_meets_a_when_question():
    assert missing("When are office hours?", ["Office hours: by appointment."]) is None


def test_a_when_opening_a_clause_expects_nothing():
    assert (
        expected("When I went to the library the books were out, how else can I read them?") is None
    )


def test_a_how_many_question_needs_a_number_beside_what_it_counts():
    assert (
        missing("How many credits is this course worth?", ["This course is worth 3 credits."])
        is None
    )
    assert (
        missing(
            "How many credits is this course worth?",
            ["Credits earned in this course count toward the major. Exam 2 is in week 9."],
        )
        is not None
    )


def test_a_number_word_counts_as_a_number():
    assert missing("How many exams are there?", ["There are two exams and a final."]) is None


def test_how_many_times_expects_nothing():
    assert expected("How many times does the class meet each week?") is None


def test_a_question_asking_for_an_email_address_needs_one():
    assert missing("What is the professor's email?", ["Email me with questions."]) is not None
    assert missing("What is the professor's email?", ["Email: jsmith@example.edu"]) is None


def test_a_redacted_email_address_counts_as_one():
    assert missing("What is the professor's email address?", ["Email: <PROF_EMAIL>"]) is None


def test_a_question_about_an_email_policy_expects_no_address():
    assert expected("What is your email policy?") is None


def test_a_percentage_question_needs_a_number_or_percentage():
    assert (
        missing("What percentage of the grade is homework?", ["Homework is graded on effort."])
        is not None
    )
    assert missing("What percentage of the grade is homework?", ["Homework: 20%"]) is None


def test_a_cost_question_needs_an_amount():
    assert missing("How much do the clickers cost?", ["Buy a clicker at the store."]) is not None
    assert missing("How much do the clickers cost?", ["Clickers cost $20."]) is None


def test_a_yes_no_question_expects_nothing():
    assert expected("Will the lectures be recorded?") is None


def test_the_check_abstains_when_the_passages_found_hold_no_date(undated):
    out = run_agent(undated, "When is the final exam?")

    assert (out["stop_reason"], out["sufficiency"]) == ("no_evidence", "insufficient")


def test_with_the_answer_type_check_off_the_same_passages_answer(undated):
    out = run_agent(undated, "When is the final exam?", answer_type_check=False)

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")


def test_a_date_in_the_cited_paragraphs_section_title_meets_the_question(title_dated):
    out = run_agent(title_dated, "When is the final exam?")

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")


def test_the_check_passes_a_question_its_passages_answer_in_kind(undated):
    out = run_agent(undated, "What percentage of the grade are the exams?")

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")
