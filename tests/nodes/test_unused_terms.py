"""A question naming a specific word its document never uses needs closer support.

The words (:mod:`deepread.nodes.sufficiency.unused_terms`) and the check that uses them
(``Context.unused_term_support``) over a small syllabus generated here, with the real
store, parser and local embedding model and the offline extractive policy.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.documents import markdown_index, run_agent

import deepread
from deepread.nodes.context import Context
from deepread.nodes.sufficiency.unused_terms import (
    document_words,
    is_common,
    unused_terms,
    words_of,
)

SYLLABUS_MD = (
    "# Introductory Chemistry\n\n"
    "## Instructor\n\n"
    "Dr. Jane Smith, email jsmith@example.edu, office Room 210, office hours Tuesday "
    "2-4 pm.\n\n"
    "## Laboratory\n\n"
    "Safety goggles must be worn in the laboratory at all times. Lab reports are due one "
    "week after each lab session.\n\n"
    "## Grading\n\n"
    "Exams count for 50% of the grade, lab reports 30% and homework 20%.\n"
)


@pytest.fixture(scope="module")
def syllabus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    with markdown_index(tmp_path_factory, "syllabus", "chem-syllabus.md", SYLLABUS_MD) as idx:
        yield idx


def test_a_specific_word_the_document_never_uses_is_unused():
    vocabulary = words_of("Safety goggles must be worn in the laboratory.")

    assert unused_terms("Do students need to wear lab aprons?", vocabulary) == ["aprons"]


def test_common_words_and_generic_nouns_never_count_as_unused():
    vocabulary = words_of("Safety goggles must be worn.")

    assert unused_terms("How many students take the course and what is it worth?", vocabulary) == []
    assert is_common("course") and is_common("many") and not is_common("apron")


def test_a_word_naming_the_kind_of_document_never_counts_as_unused():
    assert unused_terms("What does the syllabus say about the filing?", set()) == []


def test_a_word_fusing_letters_and_digits_is_judged_by_its_parts():
    vocabulary = words_of("Revenue grew in fiscal 2022.")

    assert unused_terms("How did revenue change in FY2022?", vocabulary) == []
    assert unused_terms("How did revenue change in FY2019?", vocabulary) == ["fy2019"]


def test_a_compound_of_two_words_the_document_uses_is_not_unused():
    vocabulary = words_of("Free cash flow and top line growth are improving.")

    assert unused_terms("Is the cashflow and topline improving?", vocabulary) == []


def test_the_document_words_include_its_titles_and_file_name(syllabus):
    words = document_words(syllabus, syllabus.documents()[0].doc_id)

    assert {"safety", "laboratory", "grad", "chemistry", "syllabu"} <= words


def test_a_question_about_something_the_document_never_mentions_abstains(syllabus):
    out = run_agent(syllabus, "Do students need to wear lab aprons?")

    assert (out["stop_reason"], out["sufficiency"]) == ("no_evidence", "insufficient")


def test_a_question_the_document_answers_is_answered(syllabus):
    out = run_agent(syllabus, "Do I have to wear safety goggles in the lab?")

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")
    assert "Safety goggles must be worn" in out["answer"]


def test_with_unused_term_support_off_only_the_similarity_decides(syllabus):
    # The lab paragraph is close enough to the aprons question for support_threshold
    # alone (cosine ~0.37): the unused word is what made the check want more.
    out = run_agent(syllabus, "Do students need to wear lab aprons?", unused_term_support=0.0)

    assert (out["stop_reason"], out["sufficiency"]) == ("answered", "supported")


def test_the_shipped_settings_keep_the_unused_term_bar_above_the_plain_one():
    context = Context()

    assert context.unused_term_support > context.support_threshold > 0
